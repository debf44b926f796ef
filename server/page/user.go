package page

import (
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// currentUser is the signed-in user as the pages show it, and whether it is
// the local profile's demo user. ok is false for an anonymous request.
func currentUser(c *fiber.Ctx) (u web.User, local, ok bool) {
	cu := identity.CurrentUser(c)
	if cu == nil {
		return web.User{}, false, false
	}
	return web.User{Name: cu.Name, Groups: cu.Groups, Roles: cu.Roles}, cu.Local, true
}
