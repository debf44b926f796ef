package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// listenedProcess runs a script task with Camunda 8 execution listeners:
// two on start (audit, then stamp) and one on end (notify).
const listenedProcess = `<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <scriptTask id="work" scriptFormat="javascript">
      <extensionElements><zeebe:executionListeners>
        <zeebe:executionListener eventType="start" type="audit"/>
        <zeebe:executionListener eventType="start" type="stamp"/>
        <zeebe:executionListener eventType="end" type="notify"/>
      </zeebe:executionListeners></extensionElements>
      <script>return {worked: stamp + 1}</script>
    </scriptTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`

func TestZeebeExecutionListenersRunAsJobs(t *testing.T) {
	t.Parallel()
	h := setup(t)
	var mu sync.Mutex
	var calls []string
	record := func(vars map[string]any) engine.HandlerFunc {
		return func(_ context.Context, job *engine.Job) (map[string]any, error) {
			mu.Lock()
			calls = append(calls, job.Type+":"+job.Headers["eventType"])
			mu.Unlock()
			return vars, nil
		}
	}
	h.e.RegisterHandler("audit", record(nil))
	h.e.RegisterHandler("stamp", record(map[string]any{"stamp": 41}))
	h.deploySource(callBPMN(listenedProcess))
	inst := h.start("p", nil)
	h.idle()
	// notify has no handler: an external worker serves it.
	jobs, err := h.e.FetchAndLock(h.ctx, "notify", "w1", 5, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Equal(t, "end", jobs[0].Headers["eventType"])
	require.EqualValues(t, 42, jobs[0].Variables["worked"], "the end listener runs after the task's work")
	err = h.e.CompleteJob(h.ctx, jobs[0].Key, "w1", map[string]any{"notified": true})
	require.NoError(t, err)
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, true, snap.Variables["notified"])
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"audit:start", "stamp:start"}, calls, "start listeners in order, before the work that reads stamp")
}

func TestZeebeExecutionListenerFailureIsAnIncident(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.e.RegisterHandler("audit", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, engine.Permanent(context.DeadlineExceeded)
	}))
	h.e.RegisterHandler("stamp", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return map[string]any{"stamp": 1}, nil }))
	h.e.RegisterHandler("notify", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return nil, nil }))
	h.deploySource(callBPMN(listenedProcess))
	inst := h.start("p", nil)
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusIncident)
	require.Equal(t, "work", snap.Incidents[0].ElementID)
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "work"), "the task's work did not start")
}
