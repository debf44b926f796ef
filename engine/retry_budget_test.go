package engine_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// budgetProcess runs two failing service tasks in parallel, each allowed
// five retries, in a process with a retry budget of three.
const budgetProcess = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="budget" isExecutable="true" wf:retryBudget="3">
    <startEvent id="start"/>
    <parallelGateway id="fork"/>
    <serviceTask id="a" wf:type="flaky" wf:retries="5" wf:backoff="fixed" wf:retryDelay="PT1S"/>
    <serviceTask id="b" wf:type="flaky" wf:retries="5" wf:backoff="fixed" wf:retryDelay="PT1S"/>
    <parallelGateway id="join"/>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="fork"/>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="a"/>
    <sequenceFlow id="f3" sourceRef="fork" targetRef="b"/>
    <sequenceFlow id="f4" sourceRef="a" targetRef="join"/>
    <sequenceFlow id="f5" sourceRef="b" targetRef="join"/>
    <sequenceFlow id="f6" sourceRef="join" targetRef="end"/>
  </process>
</definitions>`

// TestRetryBudget: the instance's jobs share three retries; once spent, the
// next failure of either job is an incident at once.
func TestRetryBudget(t *testing.T) {
	t.Parallel()
	h := setup(t)
	var calls atomic.Int32
	h.e.RegisterHandler("flaky", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		calls.Add(1)
		return nil, errors.New("service down")
	}))
	rec := h.deploySource([]byte(budgetProcess))
	inst := h.start(rec.Key, nil)
	h.fireAll(20)

	snap := h.requireStatus(inst.ID, engine.StatusIncident)
	require.Equal(t, 3, h.count(inst.ID, engine.EventJobRetrying, ""), "three retries in all, not five per task")
	require.EqualValues(t, 5, calls.Load(), "two first attempts and three retries")
	require.Equal(t, 3, snap.RetriesUsed)
	incs := h.openIncidents(inst.ID)
	require.Len(t, incs, 2, "both tasks end with an incident")
	for _, inc := range incs {
		require.Contains(t, inc.Message, "retry budget of 3 retries")
	}
}

// TestRetryBudgetSurvivesRestart: the retries taken are stored with the
// instance; a restarted engine goes on counting from them.
func TestRetryBudgetSurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx := context.Background()
	fail := handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, engine.RetryAfter(0, errors.New("service down")) // at once: the real clock need not wait
	})
	src := strings.Replace(string(retryProcess("budget", `wf:retries="10" wf:backoff="immediate"`)), `isExecutable="true"`, `isExecutable="true" wf:retryBudget="2"`, 1)

	e1, err := engine.New(engine.Config{Store: st, Clock: engine.RealClock{}})
	require.NoError(t, err)
	e1.RegisterHandler("flaky", fail)
	require.NoError(t, e1.Run(ctx))
	rec, _, err := e1.Deploy(ctx, engine.DeployRequest{Source: []byte(src)})
	require.NoError(t, err)
	inst, _, err := e1.Start(ctx, engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	require.NoError(t, e1.WaitIdle(ctx))
	snap, err := st.Instance(ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusIncident, snap.Status)
	require.Equal(t, 2, snap.RetriesUsed)
	e1.Close()

	// After a restart, an operator's retry runs the job again once: the
	// budget stays spent, so its failure is an incident again, with no retry.
	e2 := engineOn(t, st)
	e2.RegisterHandler("flaky", fail)
	_, err = e2.ResolveIncident(ctx, inst.ID, snap.Incidents[0].ID, nil)
	require.NoError(t, err)
	require.NoError(t, e2.WaitIdle(ctx))
	snap, err = st.Instance(ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusIncident, snap.Status)
	require.Equal(t, 2, snap.RetriesUsed)
	evs, err := st.Events(ctx, inst.ID, 0, 0)
	require.NoError(t, err)
	retries := 0
	for _, ev := range evs {
		if ev.Type == engine.EventJobRetrying {
			retries++
		}
	}
	require.Equal(t, 2, retries, "no retry after the restart")
}

// TestHTTPRetryOnStatus: wf:retryOnStatus names the statuses the http task
// retries; any other error status fails for good, 503 included.
func TestHTTPRetryOnStatus(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case r.URL.Path == "/conflict" && n == 1:
			http.Error(w, "busy", http.StatusConflict)
		case r.URL.Path == "/unavailable":
			http.Error(w, "down", http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte(`{"ok": true}`))
		}
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		path   string
		status engine.Status
		calls  int32
	}{
		{"/conflict", engine.StatusCompleted, 2},
		{"/unavailable", engine.StatusIncident, 1},
	} {
		t.Run(tc.path, func(t *testing.T) {
			calls.Store(0)
			h := setup(t)
			src := `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="status" isExecutable="true">
    <startEvent id="start"/>
    <serviceTask id="call" wf:type="http" wf:retries="2" wf:backoff="fixed" wf:retryDelay="PT1S" wf:retryOnStatus="409, 429"/>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
    <sequenceFlow id="f2" sourceRef="call" targetRef="end"/>
  </process>
</definitions>`
			inst := h.start(h.deploySource([]byte(src)).Key, map[string]any{"url": srv.URL + tc.path})
			h.fireAll(5)
			h.requireStatus(inst.ID, tc.status)
			require.Equal(t, tc.calls, calls.Load())
		})
	}
}
