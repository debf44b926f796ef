package identity

import (
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

const LocalsKey = "wfpp.user"

// User is who a request acts as.
type User struct {
	Name   string   `json:"name"`
	Groups []string `json:"groups"`
	Roles  []string `json:"roles"`
	// Local says the user is the local profile's demo admin, acting without
	// credentials; pages mark it.
	Local bool `json:"local,omitempty"`
	// Via says how the request was authenticated: "bearer", "session" or "local".
	Via string `json:"via"`
}

// CurrentUser returns the user request c acts as, or nil for an anonymous
// request (possible only on routes that do not require a user, such as
// pages and /login).
func CurrentUser(c *fiber.Ctx) *User {
	u, _ := c.Locals(LocalsKey).(*User)
	return u
}

// Has reports whether u has role; admins have every role.
func (u *User) Has(role string) bool {
	if u == nil {
		return false
	}
	return slices.Contains(u.Roles, RoleAdmin) || slices.Contains(u.Roles, role)
}

// InGroup reports whether u belongs to group.
func (u *User) InGroup(group string) bool {
	return u != nil && slices.Contains(u.Groups, group)
}

// MayWork reports whether u may see, claim and complete task: admins
// always, others when the task is assigned to them, or unassigned with them
// or one of their groups among its candidates.
func (u *User) MayWork(t *engine.Task) bool {
	if u == nil {
		return false
	}
	if u.Has(RoleAdmin) || t.Assignee == u.Name {
		return true
	}
	return t.Assignee == "" && u.Candidate(t)
}

// candidate reports whether u is among the candidates of t, assigned or not.
func (u *User) Candidate(t *engine.Task) bool {
	if slices.Contains(t.CandidateUsers, u.Name) {
		return true
	}
	for _, g := range t.CandidateGroups {
		if u.InGroup(g) {
			return true
		}
	}
	return false
}

// HearsTask reports whether u hears, over /ws, of a change of t: when u may
// work on it, and, when someone claimed it, when u was a candidate (it
// leaves u's inbox). It makes *User a live.Viewer.
func (u *User) HearsTask(t *engine.Task, change string) bool {
	return u.MayWork(t) || (change == "claimed" && u != nil && u.Candidate(t))
}

// String names u in logs.
func (u *User) String() string {
	if u == nil {
		return ""
	}
	return u.Name
}
