package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// deployStateMachine deploys testdata/steps/<name> with the format detected,
// as POST /api/v1/definitions and wfpp run do.
func (h *harness) deployStateMachine(name string) string {
	h.t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "steps", name))
	require.NoError(h.t, err)
	require.Equal(h.t, engine.FormatStateMachine, engine.DetectFormat(src))
	return h.deploySource(src).Key
}

func (h *harness) states(id string) engine.States {
	h.t.Helper()
	s, ok, err := h.e.States(h.ctx, h.instance(id))
	require.NoError(h.t, err)
	require.True(h.t, ok, "a state machine has states")
	return s
}

// orderHandlers serves the order lifecycle's jobs, recording the orders
// reserved.
func (h *harness) orderHandlers() *[]any {
	reserved := &[]any{}
	h.e.RegisterHandler("order.check", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		return map[string]any{"checked": true}, nil
	}))
	h.e.RegisterHandler("order.reserve", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		*reserved = append(*reserved, j.Parameters["orderId"])
		return nil, nil
	}))
	return reserved
}

func TestStateMachineOrderLifecycle(t *testing.T) {
	t.Parallel()
	h := setup(t)
	reserved := h.orderHandlers()
	key := h.deployStateMachine("state-machine-order.yaml")

	snap := h.start(key, map[string]any{"orderId": "o-1", "total": 250})
	require.Equal(t, []any{"o-1"}, *reserved, "approved's action ran with its input mapping")
	s := h.states(snap.ID)
	require.Equal(t, "approved", s.Current, "the condition total <= 1000 held")
	require.Len(t, s.History, 2)
	require.Equal(t, "pending", s.History[0].State)
	require.Equal(t, "condition: total <= 1000", s.History[0].Transition)
	require.Equal(t, "approved", s.History[0].Target)
	require.NotNil(t, s.History[0].Exited)
	require.Nil(t, s.History[1].Exited, "still waiting for the message")

	n, err := h.e.Correlate(h.ctx, engine.Message{Name: "order.shipped", CorrelationKey: "o-1"})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	h.idle()
	s = h.states(snap.ID)
	require.Equal(t, "shipped", s.Current)
	require.Equal(t, "message: order.shipped", s.History[1].Transition)
	require.Equal(t, 1, h.count(snap.ID, engine.EventElementCompleted, "approved__exit__shipped"), "on_exit ran on the way out")
	require.Equal(t, "shipped", h.instance(snap.ID).Variables["status"], "shipped's on_entry ran after approved's on_exit")

	h.advance(3*24*time.Hour - time.Minute)
	require.Equal(t, "shipped", h.states(snap.ID).Current, "the timer has not run out")
	h.advance(time.Minute)
	h.requireStatus(snap.ID, engine.StatusCompleted)
	s = h.states(snap.ID)
	require.Equal(t, "delivered", s.Current, "a terminal state ends the instance")
	require.Equal(t, []string{"pending", "approved", "shipped", "delivered"}, visited(s))
	require.Equal(t, "timer: P3D", s.History[2].Transition)
	require.Equal(t, epoch.Add(3*24*time.Hour), *s.History[2].Exited)
	require.Nil(t, s.History[3].Exited)
}

func TestStateMachineRejectedByCondition(t *testing.T) {
	t.Parallel()
	h := setup(t)
	reserved := h.orderHandlers()
	snap := h.start(h.deployStateMachine("state-machine-order.yaml"), map[string]any{"orderId": "o-2", "total": 5000})
	h.requireStatus(snap.ID, engine.StatusCompleted)
	s := h.states(snap.ID)
	require.Equal(t, "rejected", s.Current)
	require.Equal(t, "condition: total > 1000", s.History[0].Transition)
	require.Empty(t, *reserved, "approved was never entered")
}

func TestStateMachineNoTransitionHoldsIsAnIncident(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.orderHandlers()
	snap := h.start(h.deployStateMachine("state-machine-order.yaml"), map[string]any{"orderId": "o-3", "total": "unknown"})
	incs := h.openIncidents(snap.ID)
	require.Len(t, incs, 1)
	require.Equal(t, "pending__choice", incs[0].ElementID, "the incident is at the state's choice")
	require.Contains(t, incs[0].Message, "pending__choice")
	require.Equal(t, "pending", h.states(snap.ID).Current)
}

func TestStateMachineEventsRaceAfterConditions(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.e.RegisterHandler("ticket.triage", noop)
	h.e.RegisterHandler("ticket.page", noop)
	key := h.deployStateMachine("state-machine-support.json")

	closed := h.start(key, map[string]any{"priority": "low"})
	require.Equal(t, "open", h.states(closed.ID).Current, "no condition held: it waits for its events")
	n, err := h.e.Signal(h.ctx, "ticket.closed", nil)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	h.idle()
	h.requireStatus(closed.ID, engine.StatusCompleted)
	s := h.states(closed.ID)
	require.Equal(t, []string{"open", "closed"}, visited(s))
	require.Equal(t, "signal: ticket.closed", s.History[0].Transition)

	waited := h.start(key, map[string]any{"priority": "low"})
	h.advance(4 * time.Hour)
	h.requireStatus(waited.ID, engine.StatusCompleted)
	s = h.states(waited.ID)
	require.Equal(t, []string{"open", "escalated", "closed"}, visited(s))
	require.Equal(t, []string{"timer: PT4H", "always", ""}, transitions(s))

	urgent := h.start(key, map[string]any{"priority": "high"})
	h.requireStatus(urgent.ID, engine.StatusCompleted)
	require.Equal(t, []string{"condition: priority == 'high'", "always", ""}, transitions(h.states(urgent.ID)))
}

func TestStatesOfOtherFormats(t *testing.T) {
	t.Parallel()
	h := setup(t)
	snap := h.run("sequence", nil)
	_, ok, err := h.e.States(h.ctx, snap)
	require.NoError(t, err)
	require.False(t, ok, "a BPMN process has no states")
}

func visited(s engine.States) []string {
	var out []string
	for _, v := range s.History {
		out = append(out, v.State)
	}
	return out
}

func transitions(s engine.States) []string {
	var out []string
	for _, v := range s.History {
		out = append(out, v.Transition)
	}
	return out
}

// TestStateHistorySurvivesRestart: the state history is read from the
// stored event log, so an engine started on the same store reports it and
// goes on from the state the machine was in.
func TestStateHistorySurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "state-machine-order.yaml"))
	require.NoError(t, err)
	first := engineOn(t, st)
	first.RegisterHandler("order.check", noop)
	first.RegisterHandler("order.reserve", noop)
	_, _, err = first.Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	inst, _, err := first.Start(ctx, engine.StartRequest{Definition: "order_lifecycle", Variables: map[string]any{"orderId": "o-5", "total": 10}})
	require.NoError(t, err)
	require.NoError(t, first.WaitIdle(ctx))
	first.Close()

	second := engineOn(t, st)
	require.NoError(t, second.WaitIdle(ctx), "the instance is loaded again, its subscription re-armed")
	snap, err := second.Instance(ctx, inst.ID)
	require.NoError(t, err)
	s, ok, err := second.States(ctx, snap)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "approved", s.Current)
	require.Equal(t, "condition: total <= 1000", s.History[0].Transition)

	n, err := second.Correlate(ctx, engine.Message{Name: "order.shipped", CorrelationKey: "o-5"})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.NoError(t, second.WaitIdle(ctx))
	snap, err = second.Instance(ctx, inst.ID)
	require.NoError(t, err)
	s, _, err = second.States(ctx, snap)
	require.NoError(t, err)
	require.Equal(t, []string{"pending", "approved", "shipped"}, visited(s))
}
