package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHugeAttributeRefused: a BPMN whose name attribute is 9 MiB is refused
// with 413 naming the attribute, and nothing is stored.
func TestHugeAttributeRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t"><process id="huge" name="` +
		strings.Repeat("x", 9<<20) + `" isExecutable="true"><startEvent id="s"/></process></definitions>`
	e := requireEnvelope(t, f.do(http.MethodPost, "/api/v1/definitions", "application/xml", []byte(src), nil), http.StatusRequestEntityTooLarge, "payload_too_large")
	require.Contains(t, e.Error.Message, `attribute "name" of <process id="huge">`)
	requireEnvelope(t, f.json(http.MethodGet, "/api/v1/definitions/huge", nil, nil), http.StatusNotFound, "not_found")
}

// TestUnknownQueryParameters: lists refuse what they do not take, naming it.
func TestUnknownQueryParameters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, path := range []string{
		"/api/v1/tasks?assignee%5B%24ne%5D=", "/api/v1/tasks?asignee=ada", "/api/v1/instances?defintion=x", //nolint:misspell // the typo is the case
		"/api/v1/incidents?status=open", "/api/v1/dead-letters?type=x", "/api/v1/definitions?q=x",
	} {
		e := requireEnvelope(t, f.json(http.MethodGet, path, nil, nil), http.StatusBadRequest, "invalid_input")
		require.Contains(t, e.Error.Message, "unknown query parameter", path)
	}
	require.Equal(t, http.StatusOK, f.json(http.MethodGet, "/api/v1/tasks?status=open&limit=5", nil, nil).StatusCode)
}

// TestMalformedQueryValues: a cursor the server did not make, a bad limit or
// a bad date is a 400 naming the parameter on every list, not an empty page.
func TestMalformedQueryValues(t *testing.T) {
	t.Parallel()
	f := setup(t)
	lists := []string{
		"/api/v1/tasks", "/api/v1/instances", "/api/v1/incidents", "/api/v1/dead-letters",
		"/api/v1/definitions", "/api/v1/definitions/approval/versions",
	}
	for _, list := range lists {
		for _, q := range []string{"cursor=garbage", "cursor=%25%25%25", "cursor=d2ZwcDE6", "limit=x", "limit=-1", "limit=501"} {
			e := requireEnvelope(t, f.json(http.MethodGet, list+"?"+q, nil, nil), http.StatusBadRequest, "invalid_input")
			require.Contains(t, e.Error.Message, strings.SplitN(q, "=", 2)[0], list+"?"+q)
		}
	}
	for _, q := range []string{"startedAfter=yesterday", "startedBefore=2026-13-01"} {
		e := requireEnvelope(t, f.json(http.MethodGet, "/api/v1/instances?"+q, nil, nil), http.StatusBadRequest, "invalid_input")
		require.Contains(t, e.Error.Message, strings.SplitN(q, "=", 2)[0])
	}
}

// TestVariableSizeCaps: a variable over 1 MiB, or variables that would take
// an instance over 4 MiB, are a 413 naming the variable, wherever they come
// from, and nothing changes.
func TestVariableSizeCaps(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deployApproval()
	big := strings.Repeat("x", 1<<20+10)
	part := strings.Repeat("y", 900<<10)

	// a start: refused before anything is stored, with or without a request id
	for _, body := range []map[string]any{
		{"definition": "approval", "variables": map[string]any{"amount": 1, "attachment": big}},
		{"definition": "approval", "requestId": "r-1", "variables": map[string]any{"attachment": big}},
		{"definition": "approval", "variables": map[string]any{"a": part, "b": part, "c": part, "d": part, "e": part}},
	} {
		_, resp := f.start(body)
		e := requireEnvelope(t, resp, http.StatusRequestEntityTooLarge, "payload_too_large")
		require.Contains(t, e.Error.Message, "the limit is")
		require.NotEmpty(t, e.Error.Details[0]["variable"])
	}
	var list struct{ Items []instance }
	f.json(http.MethodGet, "/api/v1/instances", nil, &list)
	require.Empty(t, list.Items, "a refused start stores nothing")

	inst, resp := f.start(map[string]any{"definition": "approval", "variables": map[string]any{"amount": 1, "a": part}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	// set variables: one too large, then a total too large
	e := requireEnvelope(t, f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/variables",
		map[string]any{"variables": map[string]any{"attachment": big}}, nil), http.StatusRequestEntityTooLarge, "payload_too_large")
	require.Contains(t, e.Error.Message, `variable "attachment" is 1048588 bytes, the limit is 1048576`)
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/variables",
		map[string]any{"variables": map[string]any{"b": part, "c": part}}, nil).StatusCode)
	e = requireEnvelope(t, f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/variables",
		map[string]any{"variables": map[string]any{"d": part, "e": part}}, nil), http.StatusRequestEntityTooLarge, "payload_too_large")
	require.Contains(t, e.Error.Message, "variables of the instance would be")
	require.Equal(t, true, e.Error.Details[0]["instanceTotal"])
	// replacing a variable counts its new size only
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/instances/"+inst.ID+"/variables",
		map[string]any{"variables": map[string]any{"c": "small", "d": part}}, nil).StatusCode)

	// a task completion (the inbox form's submission) is refused and the task stays open
	tk := f.waitTask(inst.ID)
	e = requireEnvelope(t, f.json(http.MethodPost, "/api/v1/tasks/"+tk.ID+"/complete",
		map[string]any{"variables": map[string]any{"approved": true, "note": big}}, nil), http.StatusRequestEntityTooLarge, "payload_too_large")
	require.Equal(t, "note", e.Error.Details[0]["variable"])
	require.Equal(t, "open", f.waitTask(inst.ID).Status)

	var got struct{ Variables map[string]any }
	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got)
	require.NotContains(t, got.Variables, "attachment")
	require.NotContains(t, got.Variables, "e")
	require.NotContains(t, got.Variables, "note")
	require.Equal(t, "small", got.Variables["c"])

	// a message
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/messages",
		map[string]any{"name": "anything", "variables": map[string]any{"blob": big}}, nil), http.StatusRequestEntityTooLarge, "payload_too_large")
}
