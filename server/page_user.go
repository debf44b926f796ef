package server

import (
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// pageUser is the signed-in user as the pages show it, and whether it is
// the local profile's demo user. ok is false for an anonymous request.
func pageUser(c *fiber.Ctx) (u web.User, local, ok bool) {
	cu := identity.CurrentUser(c)
	if cu == nil {
		return web.User{}, false, false
	}
	return web.User{Name: cu.Name, Groups: cu.Groups, Roles: cu.Roles}, cu.Local, true
}
