package engine_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

func TestIntermediateTimer(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("timer_intermediate", nil)

	h.requireStatus(inst.ID, engine.StatusWaiting)
	scheduled := h.eventsOf(inst.ID, engine.EventTimerScheduled, "wait")
	require.Len(t, scheduled, 1)
	require.Equal(t, epoch.Add(5*time.Minute), scheduled[0].Detail["due"])

	h.advance(5*time.Minute - time.Second)
	h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Zero(t, h.count(inst.ID, engine.EventTimerFired, ""))

	h.advance(time.Second)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "wait", "after", "end"}, h.activated(inst.ID))
	require.Equal(t, 1, h.count(inst.ID, engine.EventTimerFired, "wait"))
}

func TestInterruptingTimerBoundary(t *testing.T) {
	t.Parallel()
	t.Run("timer fires", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.run("timer_boundary_interrupting", nil)
		task := h.openTask(inst.ID, "work")

		h.advance(time.Hour)

		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, []string{"start", "work", "late", "escalate", "escalated"}, h.activated(inst.ID))
		require.Equal(t, engine.TaskCancelled, h.task(task.ID).Status, "the interrupted task is cancelled")
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, "work"))
		require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "work"))
		trig := h.eventsOf(inst.ID, engine.EventBoundaryTriggered, "late")
		require.Len(t, trig, 1)
		require.Equal(t, true, trig[0].Detail["interrupting"])
		_, err := h.e.CompleteTask(h.ctx, task.ID, "late-user", nil)
		require.ErrorIs(t, err, engine.ErrTaskNotOpen)
	})
	t.Run("task done first", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.run("timer_boundary_interrupting", nil)
		h.complete(inst.ID, "work", nil)

		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Equal(t, []string{"start", "work", "end"}, h.activated(inst.ID))
		require.Zero(t, h.clock.Pending(), "the boundary timer is disarmed")
	})
}

func TestNonInterruptingTimerBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("timer_boundary_noninterrupting", nil)
	task := h.openTask(inst.ID, "work")

	h.advance(10 * time.Minute)

	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Equal(t, []string{"start", "work", "late", "escalate", "escalated"}, h.activated(inst.ID))
	require.Equal(t, engine.TaskOpen, h.task(task.ID).Status, "the task goes on")
	require.Len(t, snap.Tokens, 1)
	require.Equal(t, "work", snap.Tokens[0].ElementID)
	require.Zero(t, h.count(inst.ID, engine.EventElementTerminated, "work"))
	trig := h.eventsOf(inst.ID, engine.EventBoundaryTriggered, "late")
	require.Len(t, trig, 1)
	require.Equal(t, false, trig[0].Detail["interrupting"])

	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []string{"start", "work", "late", "escalate", "escalated", "end"}, h.activated(inst.ID))
}

func TestTimerCycleBoundaryFiresTwice(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("timer_boundary_cycle", nil)

	h.advance(time.Minute)
	require.Equal(t, 1, h.count(inst.ID, engine.EventBoundaryTriggered, "late"))
	h.advance(time.Minute)
	require.Equal(t, 2, h.count(inst.ID, engine.EventBoundaryTriggered, "late"))
	h.advance(10 * time.Minute)
	require.Equal(t, 2, h.count(inst.ID, engine.EventBoundaryTriggered, "late"), "R2: two firings only")
	require.Zero(t, h.clock.Pending())
	require.Equal(t, 2, h.count(inst.ID, engine.EventElementActivated, "escalate"))
	h.requireStatus(inst.ID, engine.StatusWaiting)

	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

// TestInterruptingTimerOnSubProcess: the timer interrupts the sub-process (its
// inner task is cancelled) and the token waits at the timeout path's user task.
func TestInterruptingTimerOnSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("timer_boundary_subprocess", nil)
	inner := h.openTask(inst.ID, "inner")

	h.advance(time.Hour)

	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Equal(t, []string{"start", "sp", "sp_start", "inner", "too_late", "handle_timeout"}, h.activated(inst.ID))
	require.Equal(t, engine.TaskCancelled, h.task(inner.ID).Status)
	require.Empty(t, snap.Scopes)
	require.Len(t, snap.Tokens, 1)
	require.Equal(t, "handle_timeout", snap.Tokens[0].ElementID)
	require.Zero(t, h.count(inst.ID, engine.EventSubProcessCompleted, "sp"), "an interrupted sub-process does not complete")
	h.openTask(inst.ID, "handle_timeout")

	h.complete(inst.ID, "handle_timeout", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "end_timeout"))
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "end"))
}

func TestPreviewTimer(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 25, 8, 30, 0, 0, time.UTC)
	got, err := engine.PreviewTimer(&model.Timer{Kind: model.TimerCycle, Expr: "R3/PT1H"}, from, 5)
	require.NoError(t, err)
	require.Equal(t, []time.Time{from.Add(time.Hour), from.Add(2 * time.Hour), from.Add(3 * time.Hour)}, got, "R3: three times, not five")

	got, err = engine.PreviewTimer(&model.Timer{Kind: model.TimerCycle, Expr: "0 9 * * MON-FRI", TimeZone: "Europe/Berlin"}, from, 2)
	require.NoError(t, err)
	require.Equal(t, []time.Time{time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC), time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)}, got,
		"9:00 in Berlin (UTC+1 in November), weekdays; 9:00 on the 25th has passed")

	got, err = engine.PreviewTimer(&model.Timer{Kind: model.TimerDuration, Expr: "PT90M"}, from, 5)
	require.NoError(t, err)
	require.Equal(t, []time.Time{from.Add(90 * time.Minute)}, got)

	_, err = engine.PreviewTimer(&model.Timer{Kind: model.TimerCycle, Expr: "every day"}, from, 5)
	require.ErrorIs(t, err, engine.ErrInvalidInput)
	_, err = engine.PreviewTimer(&model.Timer{Kind: model.TimerCycle, Expr: "R/PT1H", TimeZone: "Mars/Olympus"}, from, 5)
	require.ErrorContains(t, err, "not an IANA time zone")
	_, err = engine.PreviewTimer(&model.Timer{Kind: model.TimerDuration, Expr: "=wait"}, from, 5)
	require.ErrorContains(t, err, "depends on the instance's variables")
}
