package api

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/tasks"
)

// Headers that name the acting user where no real identity does: requests
// of the local profile (whose demo admin may act as anyone) and apps built
// without the identity middleware. Configured identities ignore them.
const (
	UserHeader   = "X-User"
	GroupsHeader = "X-Groups" // comma-separated
	RolesHeader  = "X-Roles"  // comma-separated; "admin" sees and may do everything
)

// Actor is who makes a request, as the REST handlers need it.
type Actor struct {
	Name     string
	Groups   []string
	Admin    bool
	Overseer bool // an admin or operator: oversees human work
	Worker   bool // has the worker role (admins have every role)
}

// Task is the actor as package tasks sees it.
func (a Actor) Task() tasks.Actor {
	return tasks.Actor{Name: a.Name, Groups: a.Groups, Overseer: a.Overseer, Worker: a.Worker}
}

// ActorOf returns the acting user of c: the authenticated user, else the
// one the X-User headers name, else an admin (the local profile's
// unauthenticated API caller).
func ActorOf(c *fiber.Ctx) Actor {
	u := identity.CurrentUser(c)
	if u != nil && !u.Local {
		return Actor{Name: u.Name, Groups: u.Groups, Admin: u.Has(identity.RoleAdmin), Overseer: u.Has(identity.RoleOperator), Worker: u.Has(identity.RoleWorker)}
	}
	name := strings.TrimSpace(c.Get(UserHeader))
	if name == "" {
		if u != nil {
			return Actor{Name: u.Name, Groups: u.Groups, Admin: true, Overseer: true, Worker: true}
		}
		return Actor{Admin: true, Overseer: true, Worker: true}
	}
	roles := csvList(c.Get(RolesHeader))
	admin := slices.Contains(roles, identity.RoleAdmin)
	// Headers without roles name a worker, as the local profile always let them act.
	worker := admin || len(roles) == 0 || slices.Contains(roles, identity.RoleWorker)
	return Actor{Name: name, Groups: csvList(c.Get(GroupsHeader)), Admin: admin, Overseer: admin || slices.Contains(roles, identity.RoleOperator), Worker: worker}
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
