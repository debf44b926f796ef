package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// The resilience settings of the graph format (engine/graph) run end to
// end; the job types are those of setupResilience.

// vote forks at a Parallel with the given join configuration into a (ok)
// and b and c (slow: an external worker's), which all lead to after.
func vote(config string) []byte {
	return fmt.Appendf(nil, `
graphId: vote
nodes:
  - {nodeId: fork, type: Parallel, configuration: %s}
  - {nodeId: a, type: Task, configuration: {actionType: ok}}
  - {nodeId: b, type: Task, configuration: {actionType: slow}}
  - {nodeId: c, type: Task, configuration: {actionType: slow}}
  - {nodeId: after, type: Task, configuration: {actionType: ok}}
edges:
  - {sourceNodeId: fork, targetNodeId: a}
  - {sourceNodeId: fork, targetNodeId: b}
  - {sourceNodeId: fork, targetNodeId: c}
  - {sourceNodeId: a, targetNodeId: after}
  - {sourceNodeId: b, targetNodeId: after}
  - {sourceNodeId: c, targetNodeId: after}
`, config)
}

// TestGraphParallelMajority: two of three branches are a majority; with
// only one in by branchTimeoutMs, the others time out and the join fails,
// which fails the instance (the graph's default onFailure).
func TestGraphParallelMajority(t *testing.T) {
	t.Parallel()
	const config = `{joinPolicy: majority, branchTimeoutMs: 60000}`

	t.Run("two of three arrive", func(t *testing.T) {
		t.Parallel()
		h, _ := setupResilience(t)
		inst := h.start(h.deploySource(vote(config)).Key, nil)
		jobs, err := h.e.FetchAndLock(h.ctx, "slow", "w", 10, time.Hour)
		require.NoError(t, err)
		require.Len(t, jobs, 2)
		require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"), "one of three is no majority")

		require.NoError(t, h.e.CompleteJob(h.ctx, jobs[0].Key, "w", nil))
		h.idle()
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "after"), "two of three are")
		h.advance(time.Minute)
		require.Zero(t, h.count(inst.ID, engine.EventInstanceFailed, ""), "the fired join's branch timeout is disarmed")

		require.NoError(t, h.e.CompleteJob(h.ctx, jobs[1].Key, "w", nil))
		h.idle()
		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "after"), "the late branch is absorbed")
		require.Equal(t, map[string]string{"a__to__after": "completed", "b__to__after": "completed", "c__to__after": "completed"},
			branchResults(t, snap, "after__join"))
	})

	t.Run("branches time out", func(t *testing.T) {
		t.Parallel()
		h, _ := setupResilience(t)
		inst := h.start(h.deploySource(vote(config)).Key, nil)
		h.advance(59 * time.Second)
		h.requireStatus(inst.ID, engine.StatusRunning)
		h.advance(time.Second)
		snap := h.requireStatus(inst.ID, engine.StatusFailed)
		require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"))
		require.Equal(t, map[string]string{"a__to__after": "completed", "b__to__after": "timedOut", "c__to__after": "timedOut"},
			branchResults(t, snap, "after__join"))
		failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
		require.Len(t, failed, 1)
		require.Equal(t, engine.JoinFailedCode, failed[0].Detail["error"])
		jobs, err := h.e.FetchAndLock(h.ctx, "slow", "w", 10, time.Hour)
		require.NoError(t, err)
		require.Empty(t, jobs, "the timed-out branches' jobs are withdrawn")
	})
}

func TestGraphCircuitBreakerFallback(t *testing.T) {
	t.Parallel()
	h, down := setupResilience(t)
	key := h.deploySource([]byte(`
graphId: breaker
nodes:
  - nodeId: call
    type: Task
    configuration:
      actionType: down
      retry: {maxAttempts: 1}
      circuitBreaker: {failureThreshold: 2, timeoutMs: 60000}
      fallbackNodeId: cached
  - {nodeId: cached, type: Task, configuration: {actionType: ok}}
edges: []
`)).Key
	for range 2 {
		inst := h.start(key, nil)
		h.requireStatus(inst.ID, engine.StatusFailed)
		require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "cached"))
	}
	require.Equal(t, "open", h.circuit("down").State.String(), "the breaker's key is the actionType")

	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 2, down.Load(), "the open breaker did not call the handler")
	thrown := h.eventsOf(inst.ID, engine.EventErrorThrown, "call")
	require.Len(t, thrown, 1)
	require.Equal(t, "CIRCUIT_OPEN", thrown[0].Detail["code"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "cached"))
}

// TestGraphOnFailure: a Task that fails with no OnFail edge fails the
// instance, unless the graph says onFailure: incident.
func TestGraphOnFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		onFailure string
		status    engine.Status
	}{
		{"", engine.StatusFailed},
		{"onFailure: incident", engine.StatusIncident},
	} {
		t.Run(fmt.Sprintf("%q", tc.onFailure), func(t *testing.T) {
			t.Parallel()
			h, _ := setupResilience(t)
			key := h.deploySource(fmt.Appendf(nil, `
graphId: failing
%s
nodes:
  - {nodeId: work, type: Task, configuration: {actionType: broken}}
edges: []
`, tc.onFailure)).Key
			inst := h.start(key, nil)
			h.requireStatus(inst.ID, tc.status)
			if tc.status == engine.StatusIncident {
				incs := h.openIncidents(inst.ID)
				require.Len(t, incs, 1)
				require.Equal(t, "work", incs[0].ElementID)
				require.Zero(t, h.count(inst.ID, engine.EventInstanceFailed, ""))
				return
			}
			require.Empty(t, h.openIncidents(inst.ID))
			failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
			require.Len(t, failed, 1)
			require.Equal(t, "work", failed[0].Detail["elementId"])
		})
	}
}

// TestGraphFallbackBeatsOnFail: as in the DAG, fallbackNodeId is taken
// while the circuit is open, the OnFail edge when the Task fails.
func TestGraphFallbackBeatsOnFail(t *testing.T) {
	t.Parallel()
	h, down := setupResilience(t)
	key := h.deploySource([]byte(`
graphId: both
nodes:
  - nodeId: call
    type: Task
    configuration:
      actionType: down
      retry: {maxAttempts: 1}
      circuitBreaker: {failureThreshold: 1}
      fallbackNodeId: cached
  - {nodeId: report, type: Task, configuration: {actionType: ok}}
  - {nodeId: cached, type: Task, configuration: {actionType: ok}}
edges:
  - {sourceNodeId: call, targetNodeId: report, type: OnFail}
`)).Key
	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "report"))

	inst = h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, down.Load())
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "cached"), "the circuit is open: the fallback")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "report"))
}

// TestGraphLimits: the graph's maxConcurrentInstances with overLimit
// refuse, retryBudget and timeoutMs reach the engine.
func TestGraphLimits(t *testing.T) {
	t.Parallel()
	h, down := setupResilience(t)
	key := h.deploySource([]byte(`
graphId: limited
maxConcurrentInstances: 1
overLimit: refuse
retryBudget: 2
nodes:
  - {nodeId: wait, type: Task, configuration: {actionType: slow}}
  - nodeId: flaky
    type: Task
    configuration: {actionType: down, retry: {maxAttempts: 5, backoff: fixed, baseDelayMs: 1000}}
edges: []
`)).Key
	inst := h.start(key, nil)
	_, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
	require.ErrorIs(t, err, engine.ErrOverLimit)

	h.fireAll(10)
	h.requireStatus(inst.ID, engine.StatusFailed)
	require.Equal(t, 2, h.count(inst.ID, engine.EventJobRetrying, "flaky"), "the budget, not maxAttempts")
	require.EqualValues(t, 3, down.Load())
	require.Contains(t, h.eventsOf(inst.ID, engine.EventInstanceFailed, "")[0].Detail["message"], "retry budget")
	h.start(key, nil) // the failed instance freed its place

	bounded := h.deploySource([]byte(`
graphId: bounded
timeoutMs: 60000
nodes:
  - {nodeId: wait, type: Task, configuration: {actionType: slow}}
edges: []
`)).Key
	inst = h.start(bounded, nil)
	h.advance(59 * time.Second)
	h.requireStatus(inst.ID, engine.StatusRunning)
	h.advance(time.Second)
	h.requireStatus(inst.ID, engine.StatusFailed)
	require.Equal(t, engine.TimeoutCode, h.eventsOf(inst.ID, engine.EventInstanceFailed, "")[0].Detail["error"])
}
