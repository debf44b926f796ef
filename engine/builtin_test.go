package engine_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/workflowpp/wfpp/engine"
)

// TestHTTPTask runs the built-in http job type against a real local server:
// the response lands in `response`, a 5xx is retried, a slow answer times out.
func TestHTTPTask(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch r.URL.Path {
		case "/orders/flaky":
			if n == 1 {
				http.Error(w, "try again", http.StatusBadGateway)
				return
			}
		case "/orders/busy":
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
		case "/orders/gone":
			http.Error(w, "no such order", http.StatusNotFound)
			return
		case "/orders/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"path": r.URL.Path, "method": r.Method,
			"qty": body["qty"], "key": r.Header.Get("Idempotency-Key"),
		})
	}))
	t.Cleanup(srv.Close)

	for _, tc := range []struct {
		name, order, timeout string
		status               engine.Status
		calls                int32
	}{
		{"answers", "42", "5s", engine.StatusCompleted, 1},
		{"5xx is retried", "flaky", "5s", engine.StatusCompleted, 2},
		{"429 is retried after Retry-After", "busy", "5s", engine.StatusCompleted, 2},
		{"404 is not retried", "gone", "5s", engine.StatusIncident, 1},
		{"times out, then incident", "slow", "50ms", engine.StatusIncident, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			h := setup(t, withRealClock)
			inst := h.start(h.deploy("http_task"), map[string]any{"base": srv.URL, "orderId": tc.order, "qty": 3, "timeout": tc.timeout})
			snap := h.waitStatus(inst.ID, tc.status)
			require.Equal(t, tc.calls, calls.Load())
			if tc.order == "busy" {
				retrying := h.eventsOf(inst.ID, engine.EventJobRetrying, "call")
				require.Len(t, retrying, 1)
				require.EqualValues(t, 1000, retrying[0].Detail["delayMs"], "the server's Retry-After, not the policy's delay")
			}
			if tc.status != engine.StatusCompleted {
				return
			}
			resp := snap.Variables["response"].(map[string]any)
			require.EqualValues(t, 200, resp["status"])
			body := resp["body"].(map[string]any)
			require.Equal(t, "/orders/"+tc.order, body["path"])
			require.Equal(t, "POST", body["method"])
			require.EqualValues(t, 3, body["qty"])
			require.Contains(t, body["key"], inst.ID+"/call/", "the idempotency key names instance, element and attempt")
		})
	}
}

// waitStatus waits (real clock) until the instance has status want.
func (h *harness) waitStatus(id string, want engine.Status) *engine.Snapshot {
	h.t.Helper()
	var snap *engine.Snapshot
	require.Eventually(h.t, func() bool {
		snap = h.instance(id)
		return snap.Status == want
	}, 10*time.Second, 5*time.Millisecond, "instance %s never reached %s", id, want)
	return snap
}
