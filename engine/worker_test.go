package engine_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/workflowpp/wfpp/engine"
)

// TestNodeConcurrencyLimit: wf:concurrency="1" lets one job of the node run
// at a time, however many instances reach it and however many workers the
// engine has by default.
func TestNodeConcurrencyLimit(t *testing.T) {
	t.Parallel()
	h := setup(t, withConfig(func(c *engine.Config) { c.NodeWorkers = 8 }))
	var running, most atomic.Int32
	h.e.RegisterHandler("slow", engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		// Hold the job until a second one runs beside it, or 20 ms pass: with
		// the limit working, none ever does.
		deadline := time.Now().Add(20 * time.Millisecond)
		for running.Load() < 2 && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		running.Add(-1)
		return nil, nil
	}))
	key := h.deploy("node_concurrency")
	var ids []string
	for range 20 {
		snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
		require.NoError(t, err)
		ids = append(ids, snap.ID)
	}
	h.idle()
	for _, id := range ids {
		h.requireStatus(id, engine.StatusCompleted)
	}
	require.EqualValues(t, 1, most.Load(), "at most one job of the node ran at once")
}
