package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func user(name, groups string, roles ...string) map[string]string {
	h := map[string]string{"X-User": name, "X-Groups": groups}
	if len(roles) > 0 {
		h["X-Roles"] = roles[0]
	}
	return h
}

var (
	alice = user("alice", "managers")
	bob   = user("bob", "managers")
	carol = user("carol", "sales")
	admin = user("root", "", "admin")
)

func TestTaskClaimReleaseComplete(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval"})
	tk := f.waitTask(inst.ID)
	path := "/api/v1/tasks/" + tk.ID

	type taskView struct {
		ID       string `json:"id"`
		Assignee string `json:"assignee"`
		Status   string `json:"status"`
	}
	visible := func(h map[string]string) int {
		var p taskPage
		resp := f.as(h, http.MethodGet, "/api/v1/tasks?status=open", nil, &p)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return len(p.Items)
	}

	// unassigned: managers see it, sales do not
	require.Equal(t, 1, visible(alice))
	require.Equal(t, 1, visible(bob))
	require.Equal(t, 0, visible(carol))
	requireEnvelope(t, f.as(carol, http.MethodGet, path, nil, nil), http.StatusNotFound, "not_found")

	var got taskView
	resp := f.as(alice, http.MethodPost, path+"/claim", nil, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "alice", got.Assignee)

	// claimed by alice: bob no longer lists it; by id he sees who has it,
	// and may not claim, release or complete it
	require.Equal(t, 0, visible(bob))
	require.Equal(t, 1, visible(alice))
	got = taskView{}
	resp = f.as(bob, http.MethodGet, path, nil, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "alice", got.Assignee)
	for _, tc := range []struct {
		name   string
		h      map[string]string
		method string
		path   string
		body   any
		status int
		code   string
	}{
		{"bob claims", bob, http.MethodPost, path + "/claim", nil, http.StatusConflict, "task_claimed"},
		{"bob releases", bob, http.MethodPost, path + "/release", nil, http.StatusConflict, "task_claimed"},
		{"bob completes", bob, http.MethodPost, path + "/complete", map[string]any{}, http.StatusConflict, "task_claimed"},
		{"bob claims for alice", bob, http.MethodPost, path + "/claim", map[string]any{"assignee": "alice"}, http.StatusConflict, "task_claimed"},
		{"bob delegates to himself", bob, http.MethodPost, path + "/delegate", map[string]any{"assignee": "bob"}, http.StatusConflict, "task_claimed"},
		{"carol gets it", carol, http.MethodGet, path, nil, http.StatusNotFound, "not_found"},
		{"carol completes it", carol, http.MethodPost, path + "/complete", map[string]any{}, http.StatusNotFound, "not_found"},
		{"bob lists another user's tasks", bob, http.MethodGet, "/api/v1/tasks?user=alice", nil, http.StatusForbidden, "forbidden"},
		{"unknown task", alice, http.MethodGet, path + "-nope", nil, http.StatusNotFound, "not_found"},
		{"claim body has unknown field", alice, http.MethodPost, path + "/claim", map[string]any{"who": "x"}, http.StatusBadRequest, "invalid_input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireEnvelope(t, f.as(tc.h, tc.method, tc.path, tc.body, nil), tc.status, tc.code)
		})
	}

	// alice releases, an admin assigns it to bob and takes it back for alice
	got = taskView{}
	resp = f.as(alice, http.MethodPost, path+"/release", nil, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Empty(t, got.Assignee)
	require.Equal(t, 1, visible(admin))
	resp = f.as(admin, http.MethodPost, path+"/claim", map[string]any{"assignee": "bob"}, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "bob", got.Assignee)
	resp = f.as(admin, http.MethodPost, path+"/claim", map[string]any{"assignee": "alice"}, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode, "admins may reassign a claimed task")
	require.Equal(t, "alice", got.Assignee)

	resp = f.as(alice, http.MethodPost, path+"/complete", map[string]any{"variables": map[string]any{"approved": false}}, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "completed", got.Status)
	requireEnvelope(t, f.as(alice, http.MethodPost, path+"/complete", map[string]any{}, nil), http.StatusConflict, "task_not_open")
	requireEnvelope(t, f.as(alice, http.MethodPost, path+"/claim", nil, nil), http.StatusConflict, "task_not_open")
	requireEnvelope(t, f.as(alice, http.MethodPost, path+"/release", nil, nil), http.StatusConflict, "task_not_open")
	f.waitStatus(inst.ID, "completed")
}

// TestAdminTakesClaimedTask: a task claimed by bob is 409 for alice and
// for an admin too (the claim policy); the admin delegates it to themself,
// then completes it.
func TestAdminTakesClaimedTask(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval"})
	tk := f.waitTask(inst.ID)
	path := "/api/v1/tasks/" + tk.ID
	require.Equal(t, http.StatusOK, f.as(bob, http.MethodPost, path+"/claim", nil, nil).StatusCode)
	requireEnvelope(t, f.as(alice, http.MethodPost, path+"/complete", map[string]any{}, nil), http.StatusConflict, "task_claimed")
	requireEnvelope(t, f.as(admin, http.MethodPost, path+"/complete", map[string]any{}, nil), http.StatusConflict, "task_claimed")
	require.Equal(t, http.StatusOK, f.as(admin, http.MethodPost, path+"/delegate", map[string]any{"assignee": "root"}, nil).StatusCode)
	resp := f.as(admin, http.MethodPost, path+"/complete", map[string]any{"variables": map[string]any{"approved": false}}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	f.waitStatus(inst.ID, "completed")
}

func TestTaskForm(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/form.bpmn")
	inst, _ := f.start(map[string]any{"definition": "form"})
	tk := f.waitTask(inst.ID)

	clerk := user("dora", "clerks")
	var got struct {
		ID       string `json:"id"`
		Priority int    `json:"priority"`
		Form     struct {
			Schema  json.RawMessage `json:"schema"`
			FormKey string          `json:"formKey"`
		} `json:"form"`
	}
	resp := f.as(clerk, http.MethodGet, "/api/v1/tasks/"+tk.ID, nil, &got)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 10, got.Priority)
	require.JSONEq(t, `{"components":[{"key":"approved","type":"checkbox","label":"Approved"}]}`, string(got.Form.Schema))

	resp = f.as(clerk, http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete", map[string]any{"variables": map[string]any{"approved": true}}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var next taskPage
	for len(next.Items) == 0 || next.Items[0].ID == tk.ID {
		next = taskPage{}
		f.as(clerk, http.MethodGet, "/api/v1/tasks?status=open&instance="+inst.ID, nil, &next)
	}
	got.Form.Schema = nil
	f.as(clerk, http.MethodGet, "/api/v1/tasks/"+next.Items[0].ID, nil, &got)
	require.Equal(t, "invoice-form", got.Form.FormKey)
	require.Empty(t, got.Form.Schema)
}

func TestTaskListOrderAndPages(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	// priority is 80 above an amount of 1000, else 50
	small, _ := f.start(map[string]any{"definition": "approval", "variables": map[string]any{"amount": 5}})
	big, _ := f.start(map[string]any{"definition": "approval", "variables": map[string]any{"amount": 5000}})
	f.waitTask(small.ID)
	f.waitTask(big.ID)
	var p taskPage
	f.as(alice, http.MethodGet, "/api/v1/tasks?status=open&limit=1", nil, &p)
	require.Len(t, p.Items, 1)
	require.Equal(t, big.ID, p.Items[0].InstanceID, "higher priority first")
	require.NotEmpty(t, p.Next)
	cursor := p.Next
	p = taskPage{}
	f.as(alice, http.MethodGet, "/api/v1/tasks?status=open&limit=1&cursor="+cursor, nil, &p)
	require.Len(t, p.Items, 1)
	require.Equal(t, small.ID, p.Items[0].InstanceID)
	require.Empty(t, p.Next)
	requireEnvelope(t, f.as(alice, http.MethodGet, "/api/v1/tasks?group=sales", nil, nil), http.StatusForbidden, "forbidden")
	requireEnvelope(t, f.as(alice, http.MethodGet, "/api/v1/tasks?$where=1", nil, nil), http.StatusBadRequest, "invalid_input")
}

// TestConcurrentClaims: of fifty candidates claiming at once exactly one
// gets the task; the others learn who has it (409).
func TestConcurrentClaims(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval"})
	tk := f.waitTask(inst.ID)
	requireOneWinner(t, f.race(50, func(i int) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/claim", nil)
		req.Header.Set("X-User", fmt.Sprintf("user-%d", i))
		req.Header.Set("X-Groups", "managers")
		return req
	}))
}
