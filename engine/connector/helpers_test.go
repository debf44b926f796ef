package connector_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/runner"
)

// call is a request a stub received.
type call struct {
	Method, Path string
	Header       http.Header
	Body         map[string]any
}

// stub stands in for a service's HTTP API: it records what it receives
// and answers with respond (n counts the calls, from 1).
type stub struct {
	URL   string
	mu    sync.Mutex
	calls []call
}

func newStub(t *testing.T, respond func(w http.ResponseWriter, c call, n int)) *stub {
	t.Helper()
	s := &stub{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c := call{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone()}
		if len(data) > 0 {
			if err := json.Unmarshal(data, &c.Body); err != nil {
				http.Error(w, "not JSON: "+err.Error(), http.StatusBadRequest)
				return
			}
		}
		s.mu.Lock()
		s.calls = append(s.calls, c)
		n := len(s.calls)
		s.mu.Unlock()
		respond(w, c, n)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *stub) received() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]call(nil), s.calls...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// handle runs a connector's handler once on a job with params.
func handle(t *testing.T, h engine.Handler, params map[string]any) (map[string]any, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	return h.Handle(ctx, &engine.Job{Key: "inst-1/task/1", InstanceID: "inst-1", ElementID: "task", Attempt: 1, Parameters: params})
}

// runTask runs a one-task JSON DAG of actionType with params on an engine
// with the handlers hs, as wfpp run does (time between attempts is
// virtual): three attempts at most, then the failure route to "failed",
// which gets the failure's errorCode and errorMessage variables.
func runTask(t *testing.T, hs map[string]engine.Handler, actionType string, params map[string]any) *runner.Result {
	t.Helper()
	dag, err := json.Marshal(map[string]any{
		"id": "connector-test", "startNode": "task",
		"nodes": []any{
			map[string]any{
				"id": "task", "actionType": actionType, "parameters": params,
				"policies": map[string]any{"retry": map[string]any{"maxAttempts": 3}},
				"edges":    []any{map[string]any{"targetNode": "failed", "when": "failure"}},
			},
			map[string]any{"id": "failed", "actionType": engine.JobTypeEcho},
		},
	})
	require.NoError(t, err)
	res, err := runner.Run(t.Context(), dag, runner.Options{Handlers: hs, Strict: true, Timeout: 20 * time.Second})
	require.NoError(t, err)
	return res
}

// failedWith says the task failed for good with an error coded code,
// after attempts attempts.
func failedWith(t *testing.T, res *runner.Result, code string, attempts int) {
	t.Helper()
	require.Equal(t, "completed", res.Status, "incidents: %v", res.Incidents)
	require.Contains(t, res.Visited, "failed", "the failure route is taken")
	require.Equal(t, code, res.Variables["errorCode"], "errorMessage: %v", res.Variables["errorMessage"])
	require.EqualValues(t, attempts, res.Variables["attempt"])
}

// retryDelays are the delays (ms) of the task's retries, in order.
func retryDelays(res *runner.Result) []int64 {
	var out []int64
	for _, ev := range res.Events {
		if ev.Type == engine.EventJobRetrying {
			out = append(out, ev.Detail["delayMs"].(int64))
		}
	}
	return out
}

// noSecret says secret shows nowhere in what the run recorded: variables,
// events (job failures, incidents) and incidents.
func noSecret(t *testing.T, res *runner.Result, secret string) {
	t.Helper()
	recorded, err := json.Marshal(map[string]any{"variables": res.Variables, "events": res.Events, "incidents": res.Incidents})
	require.NoError(t, err)
	if i := strings.Index(string(recorded), secret); i >= 0 {
		t.Fatalf("the secret shows in what the run recorded: …%s…", recorded[max(0, i-200):i+len(secret)])
	}
}
