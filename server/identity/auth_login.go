package identity

import (
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"
)

type loginBody struct {
	Name     string `json:"name" form:"name"`
	Password string `json:"password" form:"password"`
	Next     string `json:"next" form:"next"`
}

// login is POST /login (form or JSON: name, password, next). A form gets a
// 303 to next (or /), or back to /login?error=invalid; JSON gets the user
// and the CSRF token, or 401.
func (a *Authenticator) Login(c *fiber.Ctx) error {
	var b loginBody
	if err := c.BodyParser(&b); err != nil {
		return &Error{Status: http.StatusBadRequest, Code: "invalid_input", Message: "login body: " + err.Error() + ": send name and password as a form or JSON"}
	}
	wantsJSON := strings.HasPrefix(c.Get(fiber.HeaderContentType), fiber.MIMEApplicationJSON)
	u := a.check(b.Name, b.Password)
	if u == nil {
		if wantsJSON {
			return unauthorized("name or password is wrong")
		}
		return c.Redirect("/login?error=invalid&next="+url.QueryEscape(safeNext(b.Next)), http.StatusSeeOther)
	}
	exp := time.Now().Add(a.cfg.SessionTTL)
	c.Cookie(&fiber.Cookie{
		Name: SessionCookie, Value: a.sign(u.Name, exp), Path: "/", Expires: exp,
		HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode, Secure: c.Protocol() == "https",
	})
	token := setCSRFCookie(c)
	if wantsJSON {
		return c.JSON(fiber.Map{"user": u, "csrfToken": token})
	}
	return c.Redirect(safeNext(b.Next), http.StatusSeeOther)
}

// check returns the user for name and password, or nil. In the local
// profile the demo user logs in without a password.
func (a *Authenticator) check(name, password string) *User {
	cu, ok := a.cfg.user(name)
	if !ok {
		if a.cfg.Local && (name == "" || name == LocalUserName) {
			return localDemo("session")
		}
		if a.dummyHash != nil {
			_ = bcrypt.CompareHashAndPassword(a.dummyHash, []byte(password))
		}
		return nil
	}
	if bcrypt.CompareHashAndPassword([]byte(cu.Password), []byte(password)) != nil {
		return nil
	}
	return &User{Name: cu.Name, Groups: cu.Groups, Roles: cu.Roles, Via: "session"}
}

// logout is POST /logout: it ends the session (a cookie-authenticated
// write, so it needs the CSRF token).
func (a *Authenticator) Logout(c *fiber.Ctx) error {
	for _, name := range []string{SessionCookie, CSRFCookie} {
		c.Cookie(&fiber.Cookie{
			Name: name, Value: "", Path: "/", Expires: time.Unix(1, 0), MaxAge: -1,
			HTTPOnly: name == SessionCookie, SameSite: fiber.CookieSameSiteLaxMode,
		})
	}
	if strings.Contains(c.Get(fiber.HeaderAccept), fiber.MIMEApplicationJSON) {
		return c.SendStatus(http.StatusNoContent)
	}
	return c.Redirect("/login", http.StatusSeeOther)
}

// safeNext keeps redirects on this site: a path, never //host or a URL.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

var loginTmpl = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Workflow++ login</title><link rel="icon" href="data:,"></head>
<body><h1>Workflow++</h1>
{{if .Error}}<p role="alert">Name or password is wrong.</p>{{end}}
{{if .Local}}<p>Local profile: leave both fields empty to log in as the demo admin.</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="next" value="{{.Next}}">
<label>Name <input name="name" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Log in</button>
</form></body></html>`))

func LoginForm(c *fiber.Ctx) error {
	c.Type("html", "utf-8")
	return loginTmpl.Execute(c.Response().BodyWriter(), map[string]any{
		"Error": c.Query("error") != "",
		"Next":  safeNext(c.Query("next")),
		"Local": CurrentUser(c) != nil && CurrentUser(c).Local,
	})
}
