package server_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLinkedForms: forms deploy as versions; a definition linking a form
// that is not deployed is refused naming the element; the task gets the
// version its binding picks, and keeps it when a new one is deployed.
func TestLinkedForms(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bpmn, err := os.ReadFile("testdata/browser_linked.bpmn")
	require.NoError(t, err)
	var env envelope
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", bpmn, &env)
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, env.Error.Message, `decide: linked form "expense-decision" cannot be resolved`)

	form, err := os.ReadFile("testdata/browser_linked.form")
	require.NoError(t, err)
	var v1 struct {
		ID      string `json:"id"`
		Version int    `json:"version"`
	}
	require.Equal(t, http.StatusCreated, f.do(http.MethodPost, "/api/v1/forms", "application/json", form, &v1).StatusCode)
	require.Equal(t, 1, v1.Version)
	require.Equal(t, http.StatusOK, f.do(http.MethodPost, "/api/v1/forms", "application/json", form, nil).StatusCode, "same content: same version")
	requireEnvelope(t, f.do(http.MethodPost, "/api/v1/forms", "application/json", []byte(`{"components":[]}`), nil), http.StatusBadRequest, "invalid_input")
	f.deploySource(bpmn)

	inst, _ := f.start(map[string]any{"definition": "browser_linked"})
	tk := f.waitTask(inst.ID)
	// version 2, deployed through the definitions endpoint (a .form body)
	v2 := strings.Replace(string(form), `"OK to pay"`, `"Pay it"`, 1)
	require.Equal(t, http.StatusCreated, f.do(http.MethodPost, "/api/v1/definitions", "application/json", []byte(v2), nil).StatusCode)

	var got struct {
		Schema struct {
			Components []struct{ Label string } `json:"components"`
		} `json:"schema"`
		Source  string `json:"source"`
		Version int    `json:"version"`
	}
	f.as(alice, http.MethodGet, "/api/v1/tasks/"+tk.ID+"/form", nil, &got)
	require.Equal(t, "linked", got.Source)
	require.Equal(t, 1, got.Version, "the version current when the task was created")
	require.Equal(t, "OK to pay", got.Schema.Components[1].Label)

	next, _ := f.start(map[string]any{"definition": "browser_linked"})
	f.as(alice, http.MethodGet, "/api/v1/tasks/"+f.waitTask(next.ID).ID+"/form", nil, &got)
	require.Equal(t, 2, got.Version, "a task created later gets the latest")

	var list struct {
		Items []struct {
			ID      string `json:"id"`
			Version int    `json:"version"`
		} `json:"items"`
	}
	f.json(http.MethodGet, "/api/v1/forms", nil, &list)
	require.Len(t, list.Items, 1)
	require.Equal(t, 2, list.Items[0].Version)
	requireEnvelope(t, f.json(http.MethodGet, "/api/v1/forms/expense-decision/versions/9", nil, nil), http.StatusNotFound, "not_found")
}

// TestStartForm: the sample's start form, and 404 for a definition without one.
func TestStartForm(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	var got struct {
		Schema struct {
			Components []struct{ Key string } `json:"components"`
		} `json:"schema"`
		Source string `json:"source"`
	}
	require.Equal(t, http.StatusOK, f.json(http.MethodGet, "/api/v1/definitions/approval/start-form", nil, &got).StatusCode)
	require.Equal(t, "embedded", got.Source)
	require.Equal(t, "amount", got.Schema.Components[0].Key)
	f.deploy("testdata/required_form.bpmn")
	requireEnvelope(t, f.json(http.MethodGet, "/api/v1/definitions/required_form/start-form", nil, nil), http.StatusNotFound, "no_start_form")
	requireEnvelope(t, f.json(http.MethodGet, "/api/v1/definitions/approval/start-form?version=x", nil, nil), http.StatusBadRequest, "invalid_input")
}
