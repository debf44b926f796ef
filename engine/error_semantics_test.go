package engine_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func TestErrorBoundaryCatchesHandlerError(t *testing.T) {
	t.Parallel()
	t.Run("caught by code", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.e.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
			return nil, engine.ThrowError("E1", "card declined")
		}))
		inst := h.run("error_boundary", nil)

		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, []string{"start", "charge", "declined", "notify", "failed"}, h.activated(inst.ID))
		require.Equal(t, "E1", snap.Variables["errorCode"])
		require.Equal(t, "card declined", snap.Variables["errorMessage"])
		require.Equal(t, 1, h.count(inst.ID, engine.EventErrorThrown, "charge"))
		require.Zero(t, h.count(inst.ID, engine.EventJobRetrying, ""), "a BPMN error is not retried")
		require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "charge"))
	})
	t.Run("uncaught code is an incident", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.e.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
			return nil, engine.ThrowError("E9", "unknown")
		}))
		inst := h.run("error_boundary", nil)

		h.requireStatus(inst.ID, engine.StatusIncident)
		require.Equal(t, []string{"start", "charge"}, h.activated(inst.ID))
		incs := h.openIncidents(inst.ID)
		require.Len(t, incs, 1)
		require.Equal(t, "charge", incs[0].ElementID)
		require.Equal(t, "error", incs[0].Kind)
		require.Contains(t, incs[0].Message, "E9")
	})
}

// TestErrorEndEventInSubProcess: the error end event inside the sub-process is
// caught by the sub-process's boundary; the recovery path waits at a user task
// and the sub-process must not complete normally afterwards.
func TestErrorEndEventInSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("error_end_subprocess", nil)
	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Len(t, snap.Scopes, 1)

	h.complete(inst.ID, "inner", nil)

	snap = h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Equal(t, []string{"start", "sp", "sp_start", "inner", "sp_fail", "caught", "recover"}, h.activated(inst.ID))
	require.Equal(t, "E2", snap.Variables["errorCode"])
	require.Empty(t, snap.Scopes, "the sub-process scope is gone")
	require.Len(t, snap.Tokens, 1)
	require.Equal(t, "recover", snap.Tokens[0].ElementID)
	require.Zero(t, h.count(inst.ID, engine.EventSubProcessCompleted, "sp"), "an interrupted sub-process does not complete")
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "sp"))
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"))
	h.openTask(inst.ID, "recover")

	h.complete(inst.ID, "recover", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "sp", "sp_start", "inner", "sp_fail", "caught", "recover", "end_recovered"}, h.activated(inst.ID))
}

func TestRetries(t *testing.T) {
	t.Parallel()
	errDown := errors.New("payment service down")
	t.Run("fails twice then succeeds", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		var mu sync.Mutex
		var attempts []int
		h.e.RegisterHandler("charge", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
			mu.Lock()
			attempts = append(attempts, j.Attempt)
			mu.Unlock()
			if j.Attempt <= 2 {
				return nil, errDown
			}
			return map[string]any{"charged": true}, nil
		}))
		inst := h.run("retries", nil)
		h.requireStatus(inst.ID, engine.StatusRunning) // waiting for the backoff
		h.fireAll(10)

		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, true, snap.Variables["charged"])
		mu.Lock()
		require.Equal(t, []int{1, 2, 3}, attempts)
		mu.Unlock()
		retrying := h.eventsOf(inst.ID, engine.EventJobRetrying, "charge")
		require.Len(t, retrying, 2)
		for i, ev := range retrying {
			require.EqualValues(t, i+2, ev.Detail["attempt"])
			require.EqualValues(t, 1000, ev.Detail["delayMs"], "fixed backoff of one second")
		}
		require.Equal(t, 2, h.count(inst.ID, engine.EventJobFailed, "charge"))
		require.Equal(t, 3, h.count(inst.ID, engine.EventJobCreated, "charge"))
		require.Equal(t, epoch.Add(2*time.Second), h.clock.Now(), "two backoffs of one second")
		dls, err := h.store.DeadLetters(h.ctx, engine.DeadLetterFilter{InstanceID: inst.ID})
		require.NoError(t, err)
		require.Empty(t, dls)
	})
	t.Run("always fails: incident and dead letter, then resolved", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		var fixed atomic.Bool
		var calls atomic.Int32
		h.e.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
			calls.Add(1)
			if !fixed.Load() {
				return nil, errDown
			}
			return map[string]any{"charged": true}, nil
		}))
		inst := h.run("retries", nil)
		h.fireAll(10)

		h.requireStatus(inst.ID, engine.StatusIncident)
		require.EqualValues(t, 3, calls.Load(), "one attempt and two retries")
		require.Equal(t, 2, h.count(inst.ID, engine.EventJobRetrying, "charge"))
		incs := h.openIncidents(inst.ID)
		require.Len(t, incs, 1)
		require.Equal(t, "job", incs[0].Kind)
		require.Equal(t, 3, incs[0].Attempts)
		require.Contains(t, incs[0].Message, errDown.Error())
		dls, err := h.store.DeadLetters(h.ctx, engine.DeadLetterFilter{InstanceID: inst.ID})
		require.NoError(t, err)
		require.Len(t, dls, 1)
		require.Equal(t, "charge", dls[0].ElementID)
		require.Equal(t, "charge", dls[0].JobType)
		require.Equal(t, 3, dls[0].Attempts)
		require.Contains(t, dls[0].LastError, errDown.Error())
		require.Equal(t, incs[0].ID, dls[0].IncidentID)
		require.Equal(t, 1, h.count(inst.ID, engine.EventDeadLettered, "charge"))

		fixed.Store(true)
		_, err = h.e.ResolveIncident(h.ctx, inst.ID, incs[0].ID, nil)
		require.NoError(t, err)
		h.idle()

		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, true, snap.Variables["charged"])
		require.EqualValues(t, 4, calls.Load())
		require.Empty(t, h.openIncidents(inst.ID))
	})
	t.Run("permanent error: incident at once", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		var calls atomic.Int32
		h.e.RegisterHandler("charge", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
			calls.Add(1)
			return nil, engine.Permanent(errors.New("card number invalid"))
		}))
		inst := h.run("retries", nil)

		h.requireStatus(inst.ID, engine.StatusIncident)
		require.EqualValues(t, 1, calls.Load())
		require.Zero(t, h.count(inst.ID, engine.EventJobRetrying, ""))
		require.Zero(t, h.clock.Pending(), "no retry is scheduled")
		incs := h.openIncidents(inst.ID)
		require.Len(t, incs, 1)
		require.Equal(t, 1, incs[0].Attempts)
		require.Contains(t, incs[0].Message, "card number invalid")
	})
}
