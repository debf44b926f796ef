package identity_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/identity"
)

func TestRequireRole(t *testing.T) {
	t.Parallel()
	users := map[string]*identity.User{
		"worker":   {Name: "w", Roles: []string{identity.RoleWorker}},
		"operator": {Name: "o", Roles: []string{identity.RoleOperator}},
		"admin":    {Name: "a", Roles: []string{identity.RoleAdmin}},
	}
	app := fiber.New(fiber.Config{ErrorHandler: statusOnly})
	app.Use(func(c *fiber.Ctx) error {
		if u := users[c.Get("X-Test-User")]; u != nil {
			c.Locals(identity.LocalsKey, u)
		}
		return c.Next()
	})
	app.Post("/cancel", identity.RequireRole(identity.RoleOperator), func(c *fiber.Ctx) error { return c.SendStatus(http.StatusNoContent) })
	for user, want := range map[string]int{"worker": 403, "operator": 204, "admin": 204, "": 401} {
		req := httptest.NewRequest(http.MethodPost, "/cancel", nil)
		req.Header.Set("X-Test-User", user)
		resp, err := app.Test(req, -1)
		require.NoError(t, err)
		require.Equal(t, want, resp.StatusCode, user)
	}
}

// statusOnly writes the status of an identity error.
func statusOnly(c *fiber.Ctx, err error) error {
	var e *identity.Error
	if !errors.As(err, &e) {
		return c.SendStatus(http.StatusInternalServerError)
	}
	return c.SendStatus(e.Status)
}

func TestMayWork(t *testing.T) {
	t.Parallel()
	alice := &identity.User{Name: "alice", Groups: []string{"managers"}, Roles: []string{identity.RoleWorker}}
	admin := &identity.User{Name: "root", Roles: []string{identity.RoleAdmin}}
	for name, tc := range map[string]struct {
		task engine.Task
		may  bool
	}{
		"assignee":                {engine.Task{Assignee: "alice"}, true},
		"other assignee":          {engine.Task{Assignee: "bob", CandidateGroups: []string{"managers"}}, false},
		"candidate group":         {engine.Task{CandidateGroups: []string{"managers"}}, true},
		"candidate user":          {engine.Task{CandidateUsers: []string{"alice"}}, true},
		"no match":                {engine.Task{CandidateGroups: []string{"sales"}}, false},
		"claimed by other, hears": {engine.Task{Assignee: "bob", CandidateUsers: []string{"alice"}}, false},
	} {
		require.Equal(t, tc.may, alice.MayWork(&tc.task), name)
		require.True(t, admin.MayWork(&tc.task), name)
	}
	claimed := engine.Task{Assignee: "bob", CandidateUsers: []string{"alice"}}
	require.True(t, alice.HearsTask(&claimed, "claimed"))
	require.False(t, alice.HearsTask(&claimed, "completed"))
	var nobody *identity.User
	require.False(t, nobody.MayWork(&claimed))
	require.False(t, nobody.Has(identity.RoleWorker))
}
