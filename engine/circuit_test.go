package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/circuit"
)

// flaky is a handler that fails while failing is set, counting its calls.
type flaky struct {
	calls   atomic.Int32
	failing atomic.Bool
}

func (f *flaky) Handle(context.Context, *engine.Job) (map[string]any, error) {
	f.calls.Add(1)
	if f.failing.Load() {
		return nil, errors.New("service unavailable")
	}
	return map[string]any{"answer": "fresh"}, nil
}

// circuitEvents are the circuit.* events the engine exported, as type:key.
func (h *harness) circuitEvents() []string {
	var out []string
	for _, ev := range h.log.of("") {
		out = append(out, string(ev.Type)+":"+ev.Detail["key"].(string))
	}
	return out
}

func (h *harness) circuit(key string) circuit.Status {
	h.t.Helper()
	all, err := h.e.Circuits(h.ctx)
	require.NoError(h.t, err)
	for _, s := range all {
		if s.Key == key {
			return s
		}
	}
	h.t.Fatalf("no circuit breaker %q in %+v", key, all)
	return circuit.Status{}
}

// TestCircuitBreakerBoundary: failures open the breaker; while open, jobs
// fail fast with CIRCUIT_OPEN without calling the handler and the error
// boundary takes them; after the open timeout one probe runs and its
// success closes the breaker.
func TestCircuitBreakerBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	svc := &flaky{}
	svc.failing.Store(true)
	h.e.RegisterHandler("crm.lookup", svc)
	key := h.deploy("circuit_boundary")

	for range 2 { // the threshold: two failures in a row
		inst := h.start(key, nil)
		h.requireStatus(inst.ID, engine.StatusIncident) // a failure is no CIRCUIT_OPEN: not caught
	}
	require.EqualValues(t, 2, svc.calls.Load())
	require.Equal(t, circuit.Open, h.circuit("crm.lookup").State)
	require.Equal(t, []string{"circuit.opened:crm.lookup"}, h.circuitEvents())

	for range 3 {
		inst := h.start(key, nil)
		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, []string{"start", "lookup", "open", "degraded", "done_degraded"}, h.activated(inst.ID))
		require.Equal(t, "CIRCUIT_OPEN", snap.Variables["errorCode"])
		require.Contains(t, snap.Variables["errorMessage"], `circuit breaker "crm.lookup" is open`)
	}
	require.EqualValues(t, 2, svc.calls.Load(), "an open breaker calls nobody")

	h.advance(59 * time.Second)
	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Contains(t, h.activated(inst.ID), "degraded", "still open before the timeout")
	require.EqualValues(t, 2, svc.calls.Load())

	h.advance(time.Second)
	svc.failing.Store(false)
	inst = h.start(key, nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "lookup", "done"}, h.activated(inst.ID), "the probe ran")
	require.Equal(t, "fresh", snap.Variables["answer"])
	require.EqualValues(t, 3, svc.calls.Load())
	require.Equal(t, circuit.Closed, h.circuit("crm.lookup").State)
	require.Equal(t, []string{"circuit.opened:crm.lookup", "circuit.half_opened:crm.lookup", "circuit.closed:crm.lookup"}, h.circuitEvents())
}

// TestCircuitBreakerFallback: a normal completion never takes the fallback
// flow; once the breaker is open, the failing-fast job takes it.
func TestCircuitBreakerFallback(t *testing.T) {
	t.Parallel()
	h := setup(t)
	svc := &flaky{}
	h.e.RegisterHandler("pricing.quote", svc)
	key := h.deploy("circuit_fallback")

	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "price", "done"}, h.activated(inst.ID), "a completed task leaves by its normal flow only")

	svc.failing.Store(true)
	inst = h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusIncident)
	require.Equal(t, circuit.Open, h.circuit("pricing").State, "the policy's key names the breaker")

	inst = h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "price", "cached", "done_cached"}, h.activated(inst.ID))
	require.Equal(t, []string{"f0", "fallback", "f2"}, h.elementsFlows(inst.ID))
	require.Equal(t, 1, h.count(inst.ID, engine.EventErrorThrown, "price"))
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "price"), "the task did not complete: it fell back")
	require.EqualValues(t, 2, svc.calls.Load())

	require.NoError(t, h.e.ResetCircuit(h.ctx, "pricing"))
	svc.failing.Store(false)
	inst = h.start(key, nil)
	require.Equal(t, []string{"start", "price", "done"}, h.activated(inst.ID), "reset: the job runs again")
	require.Equal(t, []string{"circuit.opened:pricing", "circuit.closed:pricing"}, h.circuitEvents())
	require.ErrorIs(t, h.e.ResetCircuit(h.ctx, "nobody"), engine.ErrNotFound)
}

// TestCircuitBreakerExternalJobs: an external worker's job passes its
// breaker when fetched; the worker's failures count, and once the breaker
// is open a fetch fails the job fast instead of handing it out.
func TestCircuitBreakerExternalJobs(t *testing.T) {
	t.Parallel()
	h := setup(t)
	key := h.deploy("circuit_external")
	for range 2 {
		inst := h.start(key, nil)
		jobs, err := h.e.FetchAndLock(h.ctx, "carrier.book", "w", 10, time.Minute)
		require.NoError(t, err)
		require.Len(t, jobs, 1)
		require.NoError(t, h.e.FailJob(h.ctx, jobs[0].Key, "w", "carrier down", "", 0))
		h.idle()
		h.requireStatus(inst.ID, engine.StatusIncident)
	}
	require.Equal(t, circuit.Open, h.circuit("carrier.book").State)

	inst := h.start(key, nil)
	h.requireStatus(inst.ID, engine.StatusRunning) // nobody fetched the job yet: it waits, as without a breaker
	jobs, err := h.e.FetchAndLock(h.ctx, "carrier.book", "w", 10, time.Minute)
	require.NoError(t, err)
	require.Empty(t, jobs, "the open breaker handed nothing out")
	h.idle()
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "ship", "manual", "done_manual"}, h.activated(inst.ID))
}

// elementsFlows is the ids of the flows the instance took, in order.
func (h *harness) elementsFlows(id string) []string {
	h.t.Helper()
	var out []string
	for _, ev := range h.events(id) {
		if ev.Type == engine.EventFlowTaken {
			out = append(out, ev.FlowID)
		}
	}
	return out
}
