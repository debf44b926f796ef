package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/workflowpp/wfpp/engine"
)

// TestSignals: a signal reaches every subscription of every instance; a
// signal end event broadcasts it; a signal start event starts an instance.
func TestSignals(t *testing.T) {
	t.Parallel()
	t.Run("catch event and interrupting boundary, in two instances", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		key := h.deploy("signal_catch")
		a, b := h.start(key, nil), h.start(key, nil)

		n, err := h.e.Signal(h.ctx, "go", map[string]any{"from": "ops"})
		require.NoError(t, err)
		require.Equal(t, 2, n, "both instances waited for go")
		h.idle()
		for _, inst := range []*engine.Snapshot{a, b} {
			snap := h.requireStatus(inst.ID, engine.StatusWaiting)
			require.Equal(t, "ops", snap.Variables["from"])
			require.Contains(t, h.elements(inst.ID, engine.EventElementCompleted), "goEnd")
		}

		// A signal end event in another instance stops the work of both.
		h.run("signal_throw", nil)
		h.idle()
		for _, inst := range []*engine.Snapshot{a, b} {
			h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Contains(t, h.elements(inst.ID, engine.EventElementCompleted), "stopEnd")
			require.NotContains(t, h.elements(inst.ID, engine.EventElementCompleted), "workEnd")
			require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "the interrupted task is cancelled")
		}

		n, err = h.e.Signal(h.ctx, "go", nil)
		require.NoError(t, err)
		require.Zero(t, n, "nothing waits any more; not an error")
	})
	t.Run("a throw does not reach a catch that opens after it", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		key := h.deploy("signal_throw_then_catch")
		first := h.start(key, nil)
		h.requireStatus(first.ID, engine.StatusWaiting)
		// The second instance's throw reaches the first one, which waited
		// before it; its own catch opens after its throw and waits.
		second := h.start(key, nil)
		h.idle()
		h.requireStatus(first.ID, engine.StatusCompleted)
		h.requireStatus(second.ID, engine.StatusWaiting)
		require.NotContains(t, h.elements(second.ID, engine.EventElementCompleted), "catch")
	})
	t.Run("start event", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		h.deploy("signal_start")
		n, err := h.e.Signal(h.ctx, "audit", map[string]any{"year": 2026})
		require.NoError(t, err)
		require.Equal(t, 1, n)
		h.idle()
		page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "signal_start"})
		require.NoError(t, err)
		require.Len(t, page, 1)
		require.Equal(t, engine.StatusCompleted, page[0].Status)
		require.EqualValues(t, 2026, h.instance(page[0].ID).Variables["year"])
	})
}
