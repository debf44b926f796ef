package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func TestMessageCorrelationByKey(t *testing.T) {
	t.Parallel()
	h := setup(t)
	key := h.deploy("message_correlation")
	a := h.start(key, map[string]any{"orderId": "A"})
	b := h.start(key, map[string]any{"orderId": "B"})
	for _, inst := range []*engine.Snapshot{a, b} {
		h.requireStatus(inst.ID, engine.StatusWaiting)
		subs := h.eventsOf(inst.ID, engine.EventMessageSubscribed, "wait_payment")
		require.Len(t, subs, 1)
		require.Equal(t, inst.Variables["orderId"], subs[0].Detail["correlationKey"])
	}

	_, err := h.e.Correlate(h.ctx, engine.Message{Name: "payment", CorrelationKey: "C"})
	require.ErrorIs(t, err, engine.ErrNotFound, "nobody waits for key C")

	steps := []struct {
		key, paidBy string
		done, open  *engine.Snapshot
	}{
		{"B", "bob", b, a},
		{"A", "alice", a, nil},
	}
	for _, s := range steps {
		n, err := h.e.Correlate(h.ctx, engine.Message{Name: "payment", CorrelationKey: s.key, Variables: map[string]any{"paidBy": s.paidBy}})
		require.NoError(t, err)
		require.Equal(t, 1, n)
		h.idle()
		snap := h.requireStatus(s.done.ID, engine.StatusCompleted)
		require.Equal(t, s.paidBy, snap.Variables["paidBy"])
		require.Equal(t, []string{"start", "wait_payment", "ship", "end"}, h.activated(s.done.ID))
		if s.open != nil {
			snap := h.requireStatus(s.open.ID, engine.StatusWaiting)
			require.NotContains(t, snap.Variables, "paidBy")
		}
	}
	_, err = h.e.Correlate(h.ctx, engine.Message{Name: "payment", CorrelationKey: "A"})
	require.ErrorIs(t, err, engine.ErrNotFound, "the subscription closed with the first message")
}

func TestMessageStartEvent(t *testing.T) {
	t.Parallel()
	h := setup(t)
	key := h.deploy("message_start")

	for i, orderID := range []string{"o-1", "o-2"} {
		n, err := h.e.Correlate(h.ctx, engine.Message{Name: "orderPlaced", CorrelationKey: orderID, Variables: map[string]any{"orderId": orderID}})
		require.NoError(t, err)
		require.Equal(t, 1, n)
		h.idle()
		page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: key})
		require.NoError(t, err)
		require.Len(t, page, i+1, "each message starts an instance")
		page, _, err = h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: key, BusinessKey: orderID})
		require.NoError(t, err)
		require.Len(t, page, 1)
		inst := page[0]
		require.Equal(t, engine.StatusWaiting, inst.Status)
		require.Equal(t, orderID, h.instance(inst.ID).Variables["orderId"])
		require.Equal(t, []string{"order_placed", "handle"}, h.activated(inst.ID))
	}
	_, err := h.e.Correlate(h.ctx, engine.Message{Name: "orderCancelled"})
	require.ErrorIs(t, err, engine.ErrNotFound)
}

func TestPauseHoldsJobResult(t *testing.T) {
	t.Parallel()
	h := setup(t)
	entered := make(chan struct{})
	release := make(chan struct{})
	h.e.RegisterHandler("slow", handlerFunc(func(ctx context.Context, _ *engine.Job) (map[string]any, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return map[string]any{"result": "done"}, nil
	}))
	key := h.deploy("pause_job")
	inst, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
	require.NoError(t, err)
	select {
	case <-entered:
	case <-h.ctx.Done():
		t.Fatal("the handler never ran")
	}

	paused, err := h.e.Pause(h.ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusPaused, paused.Status)
	close(release)
	h.idle()

	snap := h.requireStatus(inst.ID, engine.StatusPaused)
	require.NotContains(t, snap.Variables, "result", "the result waits for Resume")
	require.Len(t, snap.Tokens, 1)
	require.Equal(t, "work", snap.Tokens[0].ElementID)
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "work"))

	_, err = h.e.Resume(h.ctx, inst.ID)
	require.NoError(t, err)
	h.idle()

	snap = h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "done", snap.Variables["result"])
	require.Equal(t, []string{"start", "work", "after", "end"}, h.activated(inst.ID))
	require.Greater(t, h.firstIndex(inst.ID, engine.EventElementCompleted, "work"),
		h.firstIndex(inst.ID, engine.EventInstanceResumed, ""))
}

func TestPauseHoldsDueTimer(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("pause_timer", nil)
	_, err := h.e.Pause(h.ctx, inst.ID)
	require.NoError(t, err)
	h.idle()

	h.advance(5 * time.Minute) // the timer came due while paused
	h.requireStatus(inst.ID, engine.StatusPaused)
	require.Zero(t, h.count(inst.ID, engine.EventTimerFired, ""))

	_, err = h.e.Resume(h.ctx, inst.ID)
	require.NoError(t, err)
	h.idle()
	h.advance(0) // the overdue timer fires at once: no time needs to pass

	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventTimerFired, "wait"))
	require.Equal(t, []string{"start", "wait", "end"}, h.activated(inst.ID))
	require.Greater(t, h.firstIndex(inst.ID, engine.EventTimerFired, "wait"),
		h.firstIndex(inst.ID, engine.EventInstanceResumed, ""))
}

func TestCancel(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("cancel", map[string]any{"key": "k-1"})
	h.requireStatus(inst.ID, engine.StatusWaiting)
	task := h.openTask(inst.ID, "review")
	require.Equal(t, 1, h.clock.Pending())

	snap, err := h.e.Cancel(h.ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusCancelled, snap.Status)
	h.idle()

	snap = h.requireStatus(inst.ID, engine.StatusCancelled)
	require.Empty(t, snap.Tokens)
	require.Empty(t, snap.Subscriptions)
	require.NotNil(t, snap.Ended)
	require.Equal(t, engine.TaskCancelled, h.task(task.ID).Status)
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen))
	require.Zero(t, h.clock.Pending(), "the timer is disarmed")
	for _, el := range []string{"review", "wait", "receive"} {
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, el), el)
	}
	require.Equal(t, 1, h.count(inst.ID, engine.EventInstanceCancelled, ""))

	_, err = h.e.Correlate(h.ctx, engine.Message{Name: "ping", CorrelationKey: "k-1"})
	require.ErrorIs(t, err, engine.ErrNotFound, "the message subscription is closed")
	_, err = h.e.CompleteTask(h.ctx, task.ID, "tester", nil)
	require.ErrorIs(t, err, engine.ErrTaskNotOpen)
	_, err = h.e.Cancel(h.ctx, inst.ID)
	require.ErrorIs(t, err, engine.ErrInstanceEnded)
	h.advance(2 * time.Hour)
	require.Zero(t, h.count(inst.ID, engine.EventTimerFired, ""))
}
