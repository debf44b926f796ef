package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// The resilience settings of the JSON DAG format (engine/dag) run end to
// end: written in a DAG, converted, and given their meaning by the engine.

// setupResilience registers the job types the DAGs below use: ok completes,
// broken fails for good, down fails (retryably) and counts its calls. Jobs
// of any other type (slow) wait for an external worker that never comes
// unless the test fetches them.
func setupResilience(t *testing.T, opts ...option) (*harness, *atomic.Int32) {
	t.Helper()
	h := setup(t, opts...)
	var down atomic.Int32
	h.e.RegisterHandler("ok", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return map[string]any{}, nil
	}))
	h.e.RegisterHandler("broken", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return nil, engine.Permanent(errors.New("the service is broken"))
	}))
	h.e.RegisterHandler("down", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		down.Add(1)
		return nil, errors.New("the service is down")
	}))
	return h, &down
}

// fanIn is a DAG whose start node leads to one node per branch (ids as
// given, each running the action named after the colon), all of which lead
// to merge, with the join settings join (JSON, or "" for none).
func fanIn(id, join string, branches ...[2]string) []byte {
	edges, nodes := "", ""
	for i, b := range branches {
		if i > 0 {
			edges += ","
		}
		edges += fmt.Sprintf(`{"targetNode": %q}`, b[0])
		nodes += fmt.Sprintf(`{"id": %q, "actionType": %q, "edges": [{"targetNode": "merge"}]},`, b[0], b[1])
	}
	mergeJoin := ""
	if join != "" {
		mergeJoin = `, "join": ` + join
	}
	return fmt.Appendf(nil, `{"id": %q, "startNode": "begin", "nodes": [
		{"id": "begin", "actionType": "ok", "edges": [%s]},
		%s
		{"id": "merge", "actionType": "ok"%s}
	]}`, id, edges, nodes, mergeJoin)
}

// joinResults reads each branch's status from the results variable of the
// join in front of node, by the node the branch's flow comes from.
func joinResults(t *testing.T, snap *engine.Snapshot, node string) map[string]string {
	t.Helper()
	return branchResults(t, snap, node+"__join")
}

func TestDAGJoinAnyGoesOnPastAFailedBranch(t *testing.T) {
	t.Parallel()
	h, _ := setupResilience(t)
	key := h.deploySource(fanIn("any", `{"policy": "any"}`, [2]string{"good", "ok"}, [2]string{"bad", "broken"})).Key
	inst := h.start(key, nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "merge"))
	require.Equal(t, map[string]string{"good__to__merge": "completed", "bad__to__merge": "failed"}, joinResults(t, snap, "merge"))
	require.Zero(t, h.count(inst.ID, engine.EventInstanceFailed, ""), "the failed branch is the join's to count, not fail-fast's")
}

func TestDAGJoinNOfM(t *testing.T) {
	t.Parallel()
	t.Run("two of three complete", func(t *testing.T) {
		t.Parallel()
		h, _ := setupResilience(t)
		key := h.deploySource(fanIn("nofm", `{"policy": "n_of_m", "n": 2}`,
			[2]string{"a", "ok"}, [2]string{"b", "broken"}, [2]string{"c", "ok"})).Key
		inst := h.start(key, nil)
		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "merge"))
		require.Equal(t, map[string]string{"a__to__merge": "completed", "b__to__merge": "failed", "c__to__merge": "completed"},
			joinResults(t, snap, "merge"))
	})
	t.Run("two of three fail", func(t *testing.T) {
		t.Parallel()
		h, _ := setupResilience(t)
		key := h.deploySource(fanIn("nofm", `{"policy": "n_of_m", "n": 2}`,
			[2]string{"a", "ok"}, [2]string{"b", "broken"}, [2]string{"c", "broken"})).Key
		inst := h.start(key, nil)
		h.requireStatus(inst.ID, engine.StatusFailed)
		require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "merge"))
		failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
		require.Len(t, failed, 1)
		require.Equal(t, engine.JoinFailedCode, failed[0].Detail["error"])
		require.Equal(t, "merge__join", failed[0].Detail["elementId"])
	})
}

// A branch still waiting for its external worker is cancelled when the
// join fires with cancelRemaining: its job is withdrawn and the instance
// completes; without it, the instance waits for the branch.
func TestDAGJoinCancelRemaining(t *testing.T) {
	t.Parallel()
	for _, cancel := range []bool{true, false} {
		t.Run(fmt.Sprint("cancelRemaining ", cancel), func(t *testing.T) {
			t.Parallel()
			h, _ := setupResilience(t)
			join := fmt.Sprintf(`{"policy": "any", "cancelRemaining": %t}`, cancel)
			key := h.deploySource(fanIn("cancel", join, [2]string{"fast", "ok"}, [2]string{"lagging", "slow"})).Key
			inst := h.start(key, nil)
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "merge"), "one branch is enough")
			jobs, err := h.e.FetchAndLock(h.ctx, "slow", "w", 10, time.Minute)
			require.NoError(t, err)
			if cancel {
				snap := h.requireStatus(inst.ID, engine.StatusCompleted)
				require.Empty(t, jobs, "the lagging branch's job is withdrawn")
				require.Equal(t, map[string]string{"fast__to__merge": "completed", "lagging__to__merge": "cancelled"}, joinResults(t, snap, "merge"))
				return
			}
			h.requireStatus(inst.ID, engine.StatusRunning) // a job under way
			require.Len(t, jobs, 1, "the lagging branch goes on")
			require.NoError(t, h.e.CompleteJob(h.ctx, jobs[0].Key, "w", nil))
			h.idle()
			snap := h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "merge"), "a late branch does not fire the join again")
			require.Equal(t, "completed", joinResults(t, snap, "merge")["lagging__to__merge"])
		})
	}
}

// circuitDAG calls crm, whose breaker opens after two failures in a row;
// while it is open the fallback node cached stands in.
const circuitDAG = `{"id": "breaker", "startNode": "call", "nodes": [
	{"id": "call", "actionType": "down",
	 "policies": {"retry": {"maxAttempts": 1}, "fallback": "cached",
	              "circuitBreaker": {"key": "crm", "failureThreshold": 2, "timeoutMs": 60000}}},
	{"id": "cached", "actionType": "ok"}
]}`

func TestDAGCircuitBreakerFallback(t *testing.T) {
	t.Parallel()
	h, down := setupResilience(t)
	key := h.deploySource([]byte(circuitDAG)).Key
	for range 2 {
		inst := h.start(key, nil)
		h.requireStatus(inst.ID, engine.StatusFailed)
		require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "cached"), "a closed breaker's failure is the node's")
	}
	require.Equal(t, "open", h.circuit("crm").State.String())

	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 2, down.Load(), "the open breaker did not call the handler")
	thrown := h.eventsOf(inst.ID, engine.EventErrorThrown, "call")
	require.Len(t, thrown, 1)
	require.Equal(t, "CIRCUIT_OPEN", thrown[0].Detail["code"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "cached"), "the fallback node ran")
}

func TestDAGWorkflowTimeout(t *testing.T) {
	t.Parallel()
	h, _ := setupResilience(t)
	key := h.deploySource([]byte(`{"id": "bounded", "startNode": "wait", "timeoutMs": 60000, "nodes": [
		{"id": "wait", "actionType": "slow"}]}`)).Key
	inst := h.start(key, nil)
	h.advance(59 * time.Second)
	h.requireStatus(inst.ID, engine.StatusRunning)
	h.advance(time.Second)
	h.requireStatus(inst.ID, engine.StatusFailed)
	jobs, err := h.e.FetchAndLock(h.ctx, "slow", "w", 10, time.Minute)
	require.NoError(t, err)
	require.Empty(t, jobs, "the timed-out instance's job is withdrawn")
}

func TestDAGMaxConcurrentRefuse(t *testing.T) {
	t.Parallel()
	h, _ := setupResilience(t)
	key := h.deploySource([]byte(`{"id": "single", "startNode": "wait", "maxConcurrentInstances": 1, "overLimit": "refuse", "nodes": [
		{"id": "wait", "actionType": "slow"}]}`)).Key
	h.start(key, nil)
	_, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
	require.ErrorIs(t, err, engine.ErrOverLimit)
}

// Two nodes, each allowed five retries, share a budget of three: the fourth
// failure is final and fails the instance.
func TestDAGRetryBudget(t *testing.T) {
	t.Parallel()
	h, down := setupResilience(t)
	retry := `"policies": {"retry": {"maxAttempts": 6, "backoff": "fixed", "baseDelayMs": 1000}}`
	key := h.deploySource(fmt.Appendf(nil, `{"id": "budget", "startNode": "begin", "retryBudget": 3, "nodes": [
		{"id": "begin", "actionType": "ok", "edges": [{"targetNode": "a"}, {"targetNode": "b"}]},
		{"id": "a", "actionType": "down", %s},
		{"id": "b", "actionType": "down", %s}]}`, retry, retry)).Key
	inst := h.start(key, nil)
	h.fireAll(20)
	h.requireStatus(inst.ID, engine.StatusFailed)
	require.Equal(t, 3, h.count(inst.ID, engine.EventJobRetrying, ""), "three retries in all, not five per node")
	require.EqualValues(t, 4, down.Load(), "two first attempts and two retries; the third retry, pending when b failed for good, is cancelled")
	failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
	require.Len(t, failed, 1)
	require.Contains(t, failed[0].Detail["message"], "retry budget")
}

// baseDelayMs, backoffFactor and jitter false give the delays as written,
// with a random source that would jitter them, and retryOnStatusCodes
// reaches the http handler: 418, which it does not retry by default, is
// retried.
func TestDAGRetryDelaysAndStatusCodes(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) < 3 {
			http.Error(w, "I'm a teapot", http.StatusTeapot)
			return
		}
		_, _ = w.Write([]byte(`{"brewed": true}`))
	}))
	t.Cleanup(srv.Close)
	h, _ := setupResilience(t, withConfig(func(c *engine.Config) { c.Random = func() float64 { return 0.99 } }))
	key := h.deploySource(fmt.Appendf(nil, `{"id": "teapot", "startNode": "brew", "nodes": [
		{"id": "brew", "actionType": "http", "parameters": {"url": %q},
		 "policies": {"retry": {"maxAttempts": 4, "baseDelayMs": 1000, "backoffFactor": 3, "jitter": false,
		                        "retryOnStatusCodes": [418]}}}]}`, srv.URL)).Key
	inst := h.start(key, nil)
	h.fireAll(5)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 3, calls.Load())
	var delays []any
	for _, ev := range h.eventsOf(inst.ID, engine.EventJobRetrying, "brew") {
		delays = append(delays, ev.Detail["delayMs"])
	}
	require.EqualValues(t, []any{int64(1000), int64(3000)}, delays)
	require.Equal(t, map[string]any{"brewed": true}, snap.Variables["response"].(map[string]any)["body"])
}

// Fail-fast: one branch fails for good, the other waits for its worker;
// the instance fails naming the node, and the waiting job is withdrawn.
func TestDAGFailFastCancelsTheOtherBranch(t *testing.T) {
	t.Parallel()
	h, _ := setupResilience(t)
	key := h.deploySource(fanIn("failfast", "", [2]string{"bad", "broken"}, [2]string{"lagging", "slow"})).Key
	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusFailed)
	failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
	require.Len(t, failed, 1)
	require.Equal(t, "bad", failed[0].Detail["elementId"])
	require.Contains(t, failed[0].Detail["message"], "the service is broken")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, "lagging"))
	jobs, err := h.e.FetchAndLock(h.ctx, "slow", "w", 10, time.Minute)
	require.NoError(t, err)
	require.Empty(t, jobs, "the waiting branch's job is withdrawn")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "merge"))
}

// A node with a failure route and a fallback: a failure of the call takes
// the failure edge, an open breaker the fallback, though the failure
// edge's catch-all error boundary would catch CIRCUIT_OPEN too.
func TestDAGFallbackBeatsTheFailureEdge(t *testing.T) {
	t.Parallel()
	h, down := setupResilience(t)
	key := h.deploySource([]byte(`{"id": "both", "startNode": "call", "nodes": [
	{"id": "call", "actionType": "down", "edges": [{"targetNode": "report", "when": "failure"}],
	 "policies": {"retry": {"maxAttempts": 1}, "fallback": "cached",
	              "circuitBreaker": {"key": "crm", "failureThreshold": 1, "timeoutMs": 60000}}},
	{"id": "report", "actionType": "ok"},
	{"id": "cached", "actionType": "ok"}
]}`)).Key
	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "report"), "the call failed: its failure edge")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "cached"))

	inst = h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, down.Load())
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "cached"), "the breaker is open: the fallback")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "report"))
}

// A branch whose in-process handler is still running when the join fires
// with cancelRemaining is cancelled: the instance goes on without it, and
// the handler's late result is dropped.
func TestDAGJoinCancelsARunningHandler(t *testing.T) {
	t.Parallel()
	h, _ := setupResilience(t)
	started, release := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the engine stops (cleanups run last first)
	h.e.RegisterHandler("stuck", handlerFunc(func(ctx context.Context, _ *engine.Job) (map[string]any, error) {
		close(started)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"late": true}, nil
	}))
	key := h.deploySource(fanIn("running", `{"policy": "any", "cancelRemaining": true}`, [2]string{"fast", "ok"}, [2]string{"lagging", "stuck"})).Key
	inst, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
	require.NoError(t, err)
	<-started
	h.waitStatus(inst.ID, engine.StatusCompleted)
	release <- struct{}{}
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "cancelled", joinResults(t, snap, "merge")["lagging__to__merge"])
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "lagging"))
	require.NotContains(t, snap.Variables, "late", "the cancelled handler's result is dropped")
}
