package server_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func TestMessageBuffered(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/message_correlation.bpmn")

	var out map[string]any
	resp := f.json(http.MethodPost, "/api/v1/messages", map[string]any{
		"name": "payment", "correlationKey": "o-9",
		"variables": map[string]any{"paid": true}, "ttlMs": 60_000,
	}, &out)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, true, out["buffered"])
	require.NotEmpty(t, out["expiresAt"])

	// an instance that subscribes later gets the buffered message
	inst, resp := f.start(map[string]any{"definition": "message_correlation", "variables": map[string]any{"orderId": "o-9"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	final := f.waitStatus(inst.ID, "completed")
	require.Equal(t, true, final.Variables["paid"])

	// delivered once: the next instance waits
	second, _ := f.start(map[string]any{"definition": "message_correlation", "variables": map[string]any{"orderId": "o-9"}})
	got := f.waitStatus(second.ID, "waiting")
	require.Nil(t, got.Variables["paid"])
}

func TestMessageErrors(t *testing.T) {
	t.Parallel()
	f := setupEngine(t, func(c *engine.Config) { c.MessageBuffer = 1 })
	f.deploy("testdata/message_correlation.bpmn")
	resp := f.json(http.MethodPost, "/api/v1/messages", map[string]any{"name": "a", "correlationKey": "k", "ttlMs": 60_000}, nil)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		code   string
	}{
		{"no name", "/api/v1/messages", map[string]any{"correlationKey": "k"}, http.StatusBadRequest, "invalid_input"},
		{"negative ttl", "/api/v1/messages", map[string]any{"name": "a", "ttlMs": -1}, http.StatusBadRequest, "invalid_input"},
		{"ttl too long", "/api/v1/messages", map[string]any{"name": "a", "ttlMs": 90_000_000}, http.StatusBadRequest, "invalid_input"},
		{"ttl for one instance", "/api/v1/messages", map[string]any{"name": "a", "ttlMs": 5, "instanceId": "x"}, http.StatusBadRequest, "invalid_input"},
		{"buffer full", "/api/v1/messages", map[string]any{"name": "b", "ttlMs": 60_000}, http.StatusServiceUnavailable, "unavailable"},
		{"nobody waits, no ttl", "/api/v1/messages", map[string]any{"name": "b"}, http.StatusNotFound, "not_found"},
		{"$ key in variables", "/api/v1/messages", map[string]any{"name": "a", "variables": map[string]any{"x": map[string]any{"$ne": 1}}}, http.StatusBadRequest, "invalid_input"},
		{"signal without name", "/api/v1/signals", map[string]any{}, http.StatusBadRequest, "invalid_input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := requireEnvelope(t, f.json(http.MethodPost, tc.path, tc.body, nil), tc.status, tc.code)
			if tc.name == "$ key in variables" {
				require.Contains(t, env.Error.Message, "variables.x.$ne")
			}
			if tc.name == "signal" {
				require.Contains(t, env.Error.Message, "signal")
			}
		})
	}
}

// TestSignalBroadcast: POST /api/v1/signals reaches every instance waiting for
// the signal; a signal nobody waits for is answered with 0, not an error.
func TestSignalBroadcast(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/signal_catch.bpmn")
	a, _ := f.start(map[string]any{"definition": "signal_catch"})
	b, _ := f.start(map[string]any{"definition": "signal_catch"})
	f.waitStatus(a.ID, "waiting")
	f.waitStatus(b.ID, "waiting")

	var out map[string]any
	resp := f.json(http.MethodPost, "/api/v1/signals", map[string]any{"name": "stop-all", "variables": map[string]any{"why": "audit"}}, &out)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.EqualValues(t, 2, out["received"])
	for _, id := range []string{a.ID, b.ID} {
		got := f.waitStatus(id, "waiting") // still waiting for "go"
		require.Equal(t, "audit", got.Variables["why"])
	}

	resp = f.json(http.MethodPost, "/api/v1/signals", map[string]any{"name": "nobody-listens"}, &out)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.EqualValues(t, 0, out["received"])
}
