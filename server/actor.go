package server

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Headers that name the acting user where no real identity does: requests
// of the local profile (whose demo admin may act as anyone) and apps built
// without the identity middleware. Configured identities ignore them.
const (
	UserHeader   = "X-User"
	GroupsHeader = "X-Groups" // comma-separated
	RolesHeader  = "X-Roles"  // comma-separated; "admin" sees and may do everything
)

// actor is who makes a request, as the REST handlers need it.
type actor struct {
	Name   string
	Groups []string
	Admin  bool
}

// actorOf returns the acting user of c: the authenticated user, else the
// one the X-User headers name, else an admin (the local profile's
// unauthenticated API caller).
func actorOf(c *fiber.Ctx) actor {
	u := CurrentUser(c)
	if u != nil && !u.Local {
		return actor{Name: u.Name, Groups: u.Groups, Admin: u.Has(RoleAdmin)}
	}
	name := strings.TrimSpace(c.Get(UserHeader))
	if name == "" {
		if u != nil {
			return actor{Name: u.Name, Groups: u.Groups, Admin: true}
		}
		return actor{Admin: true}
	}
	return actor{Name: name, Groups: csvList(c.Get(GroupsHeader)), Admin: slices.Contains(csvList(c.Get(RolesHeader)), RoleAdmin)}
}

func csvList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
