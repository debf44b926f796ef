package server_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTaskListeners: Camunda 7 JavaScript task listeners route the task on
// create, refuse an assignment, and deny a completion with a message the
// user gets; Java listeners are refused at deploy by name.
func TestTaskListeners(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/listeners.bpmn")
	directors := user("dora", "directors")
	mallory := user("mallory", "managers,directors")

	big, _ := f.start(map[string]any{"definition": "listeners", "variables": map[string]any{"amount": 5000}})
	tk := f.waitTask(big.ID)
	require.Equal(t, []string{"directors"}, tk.CandidateGroups, "the create listener routed it")
	path := "/api/v1/tasks/" + tk.ID
	requireEnvelope(t, f.as(alice, http.MethodPost, path+"/claim", nil, nil), http.StatusNotFound, "not_found")
	e := requireEnvelope(t, f.as(mallory, http.MethodPost, path+"/claim", nil, nil), http.StatusConflict, "assignment_denied")
	require.Equal(t, "mallory may not take approvals", e.Error.Message)

	require.Equal(t, http.StatusOK, f.as(directors, http.MethodPost, path+"/claim", nil, nil).StatusCode)
	e = requireEnvelope(t, f.as(directors, http.MethodPost, path+"/complete", map[string]any{"variables": map[string]any{"approved": true}}, nil),
		http.StatusConflict, "completion_denied")
	require.Equal(t, "say why you approve: a comment is required", e.Error.Message)
	var open task
	f.as(directors, http.MethodGet, path, nil, &open)
	require.Equal(t, "open", open.Status, "a denied completion changes nothing")

	resp := f.as(directors, http.MethodPost, path+"/complete", map[string]any{"variables": map[string]any{"approved": true, "comment": "budgeted"}}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	done := f.waitStatus(big.ID, "completed")
	require.Equal(t, "dora", done.Variables["checkedBy"])
	require.Equal(t, "create", done.Variables["routedAt"])

	small, _ := f.start(map[string]any{"definition": "listeners", "variables": map[string]any{"amount": 50}})
	require.Equal(t, []string{"managers"}, f.waitTask(small.ID).CandidateGroups)

	src, err := os.ReadFile("testdata/listeners.bpmn")
	require.NoError(t, err)
	java := strings.Replace(string(src), `<camunda:taskListener event="create">`, `<camunda:taskListener event="create" class="org.acme.Router">`, 1)
	var env envelope
	resp = f.do(http.MethodPost, "/api/v1/definitions", "application/xml", []byte(java), &env)
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, env.Error.Message, `approve: camunda:taskListener class "org.acme.Router" is Java`)
}
