package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTaskRulesSameThroughRESTAndPages sends each task situation through the
// REST API and through the inbox page's routes: both answer the same status
// and error code, because package tasks decides for both.
func TestTaskRulesSameThroughRESTAndPages(t *testing.T) {
	t.Parallel()
	valid := map[string]any{"variables": map[string]any{"comment": "fine", "amount": 5, "approved": true}}
	type situation struct {
		name    string
		prepare func(f *fixture, instanceID, path string) // brings the task into the situation
		as      map[string]string
		action  string // claim, release, delegate, complete
		body    any
		status  int
		code    string
	}
	for _, sit := range []situation{
		{name: "unassigned: a candidate claims", as: alice, action: "claim", status: http.StatusOK},
		{name: "unassigned: a candidate completes (claims and completes)", as: alice, action: "complete", body: valid, status: http.StatusOK},
		{
			name: "unassigned: a candidate who does not hold it delegates", as: alice, action: "delegate",
			body: map[string]any{"assignee": "bob"}, status: http.StatusForbidden, code: "forbidden",
		},
		{name: "mine: I complete", prepare: claimAs(alice), as: alice, action: "complete", body: valid, status: http.StatusOK},
		{name: "mine: I release", prepare: claimAs(alice), as: alice, action: "release", status: http.StatusOK},
		{name: "mine: I delegate", prepare: claimAs(alice), as: alice, action: "delegate", body: map[string]any{"assignee": "bob"}, status: http.StatusOK},
		{name: "someone else's: I claim", prepare: claimAs(bob), as: alice, action: "claim", status: http.StatusConflict, code: "task_claimed"},
		{name: "someone else's: I complete", prepare: claimAs(bob), as: alice, action: "complete", body: valid, status: http.StatusConflict, code: "task_claimed"},
		{name: "someone else's: I release", prepare: claimAs(bob), as: alice, action: "release", status: http.StatusConflict, code: "task_claimed"},
		{name: "someone else's: an operator releases", prepare: claimAs(bob), as: user("olga", "", "operator"), action: "release", status: http.StatusOK},
		{
			name: "someone else's: an operator delegates", prepare: claimAs(bob), as: user("olga", "", "operator"), action: "delegate",
			body: map[string]any{"assignee": "alice"}, status: http.StatusOK,
		},
		{
			name: "unassigned: an operator without the worker role claims", as: user("olga", "", "operator"), action: "claim",
			status: http.StatusForbidden, code: "forbidden",
		},
		{name: "not eligible: not a candidate", as: carol, action: "claim", status: http.StatusNotFound, code: "not_found"},
		{name: "not eligible: not a candidate completes", as: carol, action: "complete", body: valid, status: http.StatusNotFound, code: "not_found"},
		{name: "completed", prepare: completeAs(alice, valid), as: alice, action: "complete", body: valid, status: http.StatusConflict, code: "task_not_open"},
		{name: "cancelled", prepare: instanceOp("cancel"), as: alice, action: "claim", status: http.StatusConflict, code: "task_not_open"},
		{name: "paused instance: claim", prepare: instanceOp("pause"), as: alice, action: "claim", status: http.StatusConflict, code: "instance_paused"},
		{name: "paused instance: complete", prepare: instanceOp("pause"), as: alice, action: "complete", body: valid, status: http.StatusConflict, code: "instance_paused"},
		{
			name: "invalid form values", as: alice, action: "complete",
			body:   map[string]any{"variables": map[string]any{"comment": strings.Repeat("x", 30), "amount": 0}},
			status: http.StatusBadRequest, code: "invalid_form_values",
		},
		{
			name: "invalid form values: required missing", prepare: claimAs(alice), as: alice, action: "complete",
			body: map[string]any{"variables": map[string]any{}}, status: http.StatusBadRequest, code: "invalid_form_values",
		},
	} {
		for _, prefix := range []string{"/api/v1/tasks/", "/ui/tasks/"} {
			t.Run(sit.name+" via "+prefix, func(t *testing.T) {
				t.Parallel()
				f := setup(t)
				f.deploy("testdata/required_form.bpmn")
				inst, _ := f.start(map[string]any{"definition": "required_form"})
				tk := f.waitTask(inst.ID)
				if sit.prepare != nil {
					sit.prepare(f, inst.ID, "/api/v1/tasks/"+tk.ID)
				}
				resp := f.as(sit.as, http.MethodPost, prefix+tk.ID+"/"+sit.action, sit.body, nil)
				if sit.code == "" {
					require.Equal(t, sit.status, resp.StatusCode)
					return
				}
				e := requireEnvelope(t, resp, sit.status, sit.code)
				if sit.code == "invalid_form_values" {
					require.NotEmpty(t, e.Error.Details, "one detail per field")
					var got task
					f.as(admin, http.MethodGet, "/api/v1/tasks/"+tk.ID, nil, &got)
					require.Equal(t, "open", got.Status, "nothing completed")
				}
			})
		}
	}
}

func claimAs(who map[string]string) func(f *fixture, _, path string) {
	return func(f *fixture, _, path string) {
		require.Equal(f.t, http.StatusOK, f.as(who, http.MethodPost, path+"/claim", nil, nil).StatusCode)
	}
}

func completeAs(who map[string]string, body any) func(f *fixture, _, path string) {
	return func(f *fixture, _, path string) {
		require.Equal(f.t, http.StatusOK, f.as(who, http.MethodPost, path+"/complete", body, nil).StatusCode)
	}
}

func instanceOp(op string) func(f *fixture, instanceID, _ string) {
	return func(f *fixture, instanceID, _ string) {
		require.Equal(f.t, http.StatusOK, f.json(http.MethodPost, "/api/v1/instances/"+instanceID+"/"+op, nil, nil).StatusCode)
	}
}

// TestConcurrentCandidatesComplete: fifty candidates press Complete on the
// same unassigned task at once; exactly one claims and completes it, the
// others get 409.
func TestConcurrentCandidatesComplete(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval"})
	tk := f.waitTask(inst.ID)
	requireOneWinner(t, f.race(50, func(i int) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete", strings.NewReader(`{"variables":{"approved":false}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", fmt.Sprintf("user-%d", i))
		req.Header.Set("X-Groups", "managers")
		return req
	}))
	f.waitStatus(inst.ID, "completed")
}

// race sends n requests at once and returns their statuses.
func (f *fixture) race(n int, request func(i int) *http.Request) []int {
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, err := f.srv.App().Test(request(i), -1)
			if err != nil {
				return
			}
			codes[i] = resp.StatusCode
			_ = resp.Body.Close()
		})
	}
	wg.Wait()
	return codes
}

// requireOneWinner asserts that exactly one status is 200 and the rest 409.
func requireOneWinner(t *testing.T, codes []int) {
	t.Helper()
	ok := 0
	for _, c := range codes {
		if c == http.StatusOK {
			ok++
			continue
		}
		require.Equal(t, http.StatusConflict, c)
	}
	require.Equal(t, 1, ok)
}

// TestTaskHistoryAndComments: the task's history lists who did what, with
// the submitted values, and comments show on the task and in the history.
func TestTaskHistoryAndComments(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	inst, _ := f.start(map[string]any{"definition": "approval"})
	tk := f.waitTask(inst.ID)
	path := "/api/v1/tasks/" + tk.ID
	require.Equal(t, http.StatusOK, f.as(alice, http.MethodPost, path+"/claim", nil, nil).StatusCode)
	require.Equal(t, http.StatusOK, f.as(bob, http.MethodPost, path+"/comments", map[string]any{"text": "receipt attached?"}, nil).StatusCode)
	requireEnvelope(t, f.as(bob, http.MethodPost, path+"/comments", map[string]any{"text": "  "}, nil), http.StatusBadRequest, "invalid_input")
	requireEnvelope(t, f.as(carol, http.MethodPost, path+"/comments", map[string]any{"text": "hi"}, nil), http.StatusNotFound, "not_found")
	require.Equal(t, http.StatusOK, f.as(alice, http.MethodPost, path+"/delegate", map[string]any{"assignee": "bob"}, nil).StatusCode)
	var view struct {
		Assignee       string   `json:"assignee"`
		AllowedActions []string `json:"allowedActions"`
		Comments       []struct {
			User, Text string
		} `json:"comments"`
	}
	f.as(bob, http.MethodGet, path, nil, &view)
	require.Equal(t, "bob", view.Assignee)
	require.Equal(t, []string{"release", "delegate", "complete", "comment"}, view.AllowedActions)
	require.Len(t, view.Comments, 1)
	require.Equal(t, "bob", view.Comments[0].User)
	f.as(alice, http.MethodGet, path, nil, &view)
	require.Equal(t, []string{"comment"}, view.AllowedActions, "alice sees who holds it and may only comment")

	require.Equal(t, http.StatusOK, f.as(bob, http.MethodPost, path+"/complete", map[string]any{"variables": map[string]any{"approved": false}}, nil).StatusCode)
	var done struct {
		History []struct {
			Type, By, Assignee, Text string
			Values                   map[string]any
		} `json:"history"`
	}
	f.as(bob, http.MethodGet, path, nil, &done)
	var types []string
	for _, h := range done.History {
		types = append(types, h.Type)
	}
	require.Equal(t, []string{"created", "claimed", "commented", "delegated", "completed"}, types)
	require.Equal(t, "alice", done.History[1].By)
	require.Equal(t, "receipt attached?", done.History[2].Text)
	require.Equal(t, "bob", done.History[3].Assignee)
	require.Equal(t, map[string]any{"approved": false}, done.History[4].Values)
	f.waitStatus(inst.ID, "completed")
}

// TestPausedInstanceHoldsMessages: a message correlated while the instance
// is paused is accepted and applied when it resumes.
func TestPausedInstanceHoldsMessages(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/message_correlation.bpmn")
	inst, _ := f.start(map[string]any{"definition": "message_correlation", "variables": map[string]any{"orderId": "o-7"}})
	f.waitStatus(inst.ID, "waiting")
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/pause", nil, nil).StatusCode)
	resp := f.json(http.MethodPost, "/api/v1/messages", map[string]any{"name": "payment", "correlationKey": "o-7", "variables": map[string]any{"paid": true}}, nil)
	require.Less(t, resp.StatusCode, 300)
	var got instance
	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got)
	require.Equal(t, "paused", got.Status, "the message waits while the instance is paused")
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/resume", nil, nil).StatusCode)
	done := f.waitStatus(inst.ID, "completed")
	require.Equal(t, true, done.Variables["paid"])
}
