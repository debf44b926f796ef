package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"

	"github.com/gofiber/fiber/v2"
)

// Double-submit CSRF protection for cookie-authenticated writes: the page
// reads the CSRFCookie (not HttpOnly) and sends it back in CSRFHeader or
// the CSRFField form field. Bearer-token and credential-less local-profile
// requests are exempt: a browser cannot forge the first, and the second is
// refused when the browser says it comes from another site.
const (
	CSRFCookie = "wfpp_csrf"
	CSRFHeader = "X-CSRF-Token"
	CSRFField  = "_csrf"

	localCSRF = "wfpp.csrf"
)

func checkCSRF(c *fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions, fiber.MethodTrace:
		return c.Next()
	}
	u := CurrentUser(c)
	if u == nil {
		return c.Next()
	}
	switch u.Via {
	case "session":
		sent := c.Get(CSRFHeader)
		if sent == "" {
			sent = c.FormValue(CSRFField)
		}
		want := c.Cookies(CSRFCookie)
		if want == "" || subtle.ConstantTimeCompare([]byte(sent), []byte(want)) != 1 {
			return forbidden("CSRF token missing or wrong: send the " + CSRFCookie + " cookie's value in the " + CSRFHeader + " header or the " + CSRFField + " form field")
		}
	case "local":
		if c.Get("Sec-Fetch-Site") == "cross-site" {
			return forbidden("cross-site write refused in the local profile")
		}
	}
	return c.Next()
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
	c.Cookie(&fiber.Cookie{Name: CSRFCookie, Value: t, Path: "/", SameSite: fiber.CookieSameSiteLaxMode,
		Secure: c.Protocol() == "https"})
	return t
}
