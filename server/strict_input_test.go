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
	for _, path := range []string{"/api/v1/tasks?assignee%5B%24ne%5D=", "/api/v1/tasks?asignee=ada", "/api/v1/instances?defintion=x",
		"/api/v1/incidents?status=open", "/api/v1/dead-letters?type=x", "/api/v1/definitions?q=x"} {
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
	lists := []string{"/api/v1/tasks", "/api/v1/instances", "/api/v1/incidents", "/api/v1/dead-letters",
		"/api/v1/definitions", "/api/v1/definitions/approval/versions"}
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
