package identity

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Cross-site request forgery is refused in two layers:
//   - every state-changing request without a bearer token (a browser cannot
//     forge one) must come from this site: a Sec-Fetch-Site of same-origin or
//     none, or else an Origin naming this host; with neither header (not a
//     browser, or a very old one), a body a cross-site HTML form can send
//     (text/plain, form-urlencoded, multipart) is refused: API clients send
//     JSON or XML;
//   - cookie-authenticated writes also carry a double-submit token: the page
//     reads the CSRFCookie (not HttpOnly) and sends it back in CSRFHeader or
//     the CSRFField form field.
const (
	CSRFCookie = "wfpp_csrf"
	CSRFHeader = "X-CSRF-Token"
	CSRFField  = "_csrf"

	localCSRF = "wfpp.csrf"
)

func CheckCSRF(c *fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions, fiber.MethodTrace:
		return c.Next()
	}
	u := CurrentUser(c)
	if u != nil && u.Via == "bearer" {
		return c.Next()
	}
	if err := sameSite(c); err != nil {
		return err
	}
	if u != nil && u.Via == "session" {
		sent := c.Get(CSRFHeader)
		if sent == "" {
			sent = c.FormValue(CSRFField)
		}
		want := c.Cookies(CSRFCookie)
		if want == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(want)) != 1 {
			return forbidden("CSRF token missing or wrong: send the " + CSRFCookie + " cookie's value in the " + CSRFHeader + " header or the " + CSRFField + " form field")
		}
	}
	return c.Next()
}

// sameSite refuses a write that a browser says, or may have sent, from
// another site.
func sameSite(c *fiber.Ctx) error {
	if site := c.Get("Sec-Fetch-Site"); site != "" {
		if site == "same-origin" || site == "none" {
			return nil
		}
		return forbidden("cross-site write refused: the browser says this request comes from another site (Sec-Fetch-Site: " + site + ")")
	}
	if origin := c.Get(fiber.HeaderOrigin); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || !strings.EqualFold(u.Host, c.Hostname()) {
			return forbidden("cross-site write refused: Origin " + strconv.Quote(origin) + " is not this server (" + c.Hostname() + ")")
		}
		return nil
	}
	ct, _, _ := strings.Cut(strings.ToLower(c.Get(fiber.HeaderContentType)), ";")
	switch strings.TrimSpace(ct) {
	case "text/plain", fiber.MIMEApplicationForm, fiber.MIMEMultipartForm:
		return forbidden("write refused: a " + strings.TrimSpace(ct) + " body without Origin or Sec-Fetch-Site may come from another site's form; " +
			"send JSON (Content-Type: application/json), a bearer token, or an Origin header naming this server")
	}
	return nil
}

// CSRFToken returns the CSRF token of request c for pages to put in forms
// and in the X-CSRF-Token header of fetches, setting the cookie when it is
// missing.
func CSRFToken(c *fiber.Ctx) string {
	if t, ok := c.Locals(localCSRF).(string); ok {
		return t
	}
	if t := c.Cookies(CSRFCookie); t != "" {
		return t
	}
	return setCSRFCookie(c)
}

func setCSRFCookie(c *fiber.Ctx) string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	t := base64.RawURLEncoding.EncodeToString(b[:])
	c.Locals(localCSRF, t)
	c.Cookie(&fiber.Cookie{
		Name: CSRFCookie, Value: t, Path: "/", SameSite: fiber.CookieSameSiteLaxMode,
		Secure: c.Protocol() == "https",
	})
	return t
}
