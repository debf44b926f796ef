package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestJobProgressRoute: the worker holding an external job reports how far
// it is; the instance's GET shows the report on the element and an
// estimate; bad input is a 400 naming the field, another worker's report
// a 409, an unknown or finished job a 404.
func TestJobProgressRoute(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/external.bpmn")
	inst, _ := f.start(map[string]any{"definition": "external"})
	j := f.fetch(inst.ID, "w1")
	path := "/api/v1/jobs/" + url.PathEscape(j.Key) + "/progress"

	var ok map[string]any
	resp := f.json(http.MethodPost, path, map[string]any{"worker": "w1", "percent": 40, "message": "copied 4 of 10 files"}, &ok)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 40.0, ok["percent"])

	var got struct {
		Progress struct {
			Percent  float64                           `json:"percent"`
			ETA      *time.Time                        `json:"eta"`
			Basis    string                            `json:"basis"`
			Elements map[string]engine.ElementProgress `json:"elements"`
		} `json:"progress"`
	}
	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got)
	require.Equal(t, "copied 4 of 10 files", got.Progress.Elements["work"].Message)
	require.Equal(t, 40.0, got.Progress.Elements["work"].Percent)
	require.Equal(t, engine.ProgressByCounts, got.Progress.Basis, "no instance of the version completed yet")
	require.Nil(t, got.Progress.ETA)
	require.InDelta(t, 100*(1+0.4)/3, got.Progress.Percent, 0.1, "the start event and 40 % of the work, of three elements")

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		code   string
		names  string
	}{
		{"without worker", path, map[string]any{"percent": 10}, http.StatusBadRequest, "invalid_input", `"worker"`},
		{"without percent", path, map[string]any{"worker": "w1"}, http.StatusBadRequest, "invalid_input", `"percent"`},
		{"percent above 100", path, map[string]any{"worker": "w1", "percent": 101}, http.StatusBadRequest, "invalid_input", `"percent"`},
		{"negative percent", path, map[string]any{"worker": "w1", "percent": -5}, http.StatusBadRequest, "invalid_input", `"percent"`},
		{"percent not a number", path, map[string]any{"worker": "w1", "percent": "half"}, http.StatusBadRequest, "invalid_input", `percent`},
		{"message too long", path, map[string]any{"worker": "w1", "percent": 5, "message": strings.Repeat("x", engine.ProgressMessageMax+1)}, http.StatusBadRequest, "invalid_input", `"message"`},
		{"unknown field", path, map[string]any{"worker": "w1", "percent": 5, "pct": 5}, http.StatusBadRequest, "invalid_input", `pct`},
		{"another worker", path, map[string]any{"worker": "w2", "percent": 5}, http.StatusConflict, "conflict", "w1"},
		{"unknown job", "/api/v1/jobs/nope:1/progress", map[string]any{"worker": "w1", "percent": 5}, http.StatusNotFound, "not_found", "nope:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := requireEnvelope(t, f.json(http.MethodPost, tc.path, tc.body, nil), tc.status, tc.code)
			require.Contains(t, env.Error.Message, tc.names)
		})
	}

	resp = f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/complete", map[string]any{"worker": "w1"}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	f.waitStatus(inst.ID, "completed")
	requireEnvelope(t, f.json(http.MethodPost, path, map[string]any{"worker": "w1", "percent": 100}, nil), http.StatusNotFound, "not_found")
	got.Progress.Elements = nil // decoding merges into a map
	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got)
	require.Equal(t, 100.0, got.Progress.Percent)
	require.Equal(t, engine.ProgressEnded, got.Progress.Basis)
	require.Empty(t, got.Progress.Elements, "a finished job's report is gone")
}
