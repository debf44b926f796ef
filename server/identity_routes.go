package server

import (
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/server/identity"
)

// identityRoutes installs authentication and CSRF checks for every route
// registered after it, and POST /login, POST /logout, GET /api/v1/me (who
// the request acts as). Call it before the routes that need a user.
func (s *Server) identityRoutes() {
	a := identity.NewAuthenticator(s.cfg.Identity)
	s.app.Use(a.Authenticate, identity.CheckCSRF)
	s.app.Use("/api", identity.RequireUser)
	s.app.Get("/api/v1/me", func(c *fiber.Ctx) error { return c.JSON(identity.CurrentUser(c)) })
	s.app.Post("/login", a.Login)
	s.app.Post("/logout", a.Logout)
	var once sync.Once
	var other bool
	// The pages render GET /login; this plain form stands in while they do not.
	s.app.Get("/login", func(c *fiber.Ctx) error {
		once.Do(func() { other = countRoutes(s.app, fiber.MethodGet, "/login") > 1 })
		if other {
			return c.Next()
		}
		return identity.LoginForm(c)
	})
}

func countRoutes(app *fiber.App, method, path string) int {
	n := 0
	for _, r := range app.GetRoutes(true) {
		if r.Method == method && r.Path == path {
			n++
		}
	}
	return n
}
