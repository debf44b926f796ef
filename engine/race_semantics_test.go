package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestParallelJoinRace: 20 instances at once, each splitting into 50 service
// tasks whose handler completes concurrently on the real clock. Every join
// fires exactly once, every instance completes, every log has no gap.
func TestParallelJoinRace(t *testing.T) {
	t.Parallel()
	const instances, branches = 20, 50
	h := setup(t, withRealClock, withConfig(func(c *engine.Config) {
		c.NodeWorkers = 8
		c.Partitions = 4
	}))
	h.e.RegisterHandler("work", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		runtime.Gosched()
		return map[string]any{j.ElementID: j.Attempt}, nil
	}))
	key := h.deploy("parallel_50")

	ids := make([]string, instances)
	errs := make([]error, instances)
	var wg sync.WaitGroup
	for i := range instances {
		wg.Go(func() {
			snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key, Variables: map[string]any{"n": i}})
			if err == nil {
				ids[i] = snap.ID
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	ctx, cancel := context.WithTimeout(h.ctx, 40*time.Second)
	defer cancel()
	require.NoError(t, h.e.WaitIdle(ctx))

	for i, id := range ids {
		snap := h.requireStatus(id, engine.StatusCompleted)
		require.EqualValues(t, i, snap.Variables["n"])
		evs := h.events(id)
		requireContiguous(t, evs)
		require.Equal(t, snap.Seq, uint64(len(evs)))
		require.Equal(t, 1, h.count(id, engine.EventElementCompleted, "join"), "instance %d: join firings", i)
		require.Equal(t, branches, h.count(id, engine.EventElementActivated, "join"))
		require.Equal(t, 1, h.count(id, engine.EventElementActivated, "end"))
		require.Equal(t, 1, h.count(id, engine.EventInstanceCompleted, ""))
		for b := 1; b <= branches; b++ {
			el := fmt.Sprintf("t%02d", b)
			require.Equal(t, 1, h.count(id, engine.EventElementCompleted, el), el)
			require.EqualValues(t, 1, snap.Variables[el], "result of %s merged", el)
		}
		require.Empty(t, snap.Tokens)
	}
}

// TestEventSequenceNumbers: across several rounds (a job, a user task, a
// timer) the events of an instance are numbered 1..N without gaps, and the
// exporter sees exactly what the store holds, in the same order.
func TestEventSequenceNumbers(t *testing.T) {
	t.Parallel()
	h := setup(t)
	sub := &eventLog{byInstance: map[string][]engine.Event{}}
	h.e.Subscribe(sub)
	h.e.RegisterHandler("work", noop)

	inst := h.run("sequence", nil)
	h.complete(inst.ID, "review", nil)
	h.advance(time.Minute)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)

	stored := h.events(inst.ID)
	require.NotEmpty(t, stored)
	requireContiguous(t, stored)
	require.Equal(t, snap.Seq, uint64(len(stored)))
	require.Equal(t, engine.EventInstanceStarted, stored[0].Type)
	require.Equal(t, engine.EventInstanceCompleted, stored[len(stored)-1].Type)

	exported := sub.of(inst.ID)
	require.Equal(t, len(stored), len(exported))
	for i := range stored {
		require.Equal(t, stored[i].Seq, exported[i].Seq)
		require.Equal(t, stored[i].Type, exported[i].Type)
		require.Equal(t, stored[i].ElementID, exported[i].ElementID)
		require.Equal(t, inst.ID, exported[i].InstanceID)
	}
	require.Equal(t, len(stored), len(h.log.of(inst.ID)), "Config.Exporter saw them too")

	page, err := h.store.Events(h.ctx, inst.ID, 3, 2)
	require.NoError(t, err)
	require.Len(t, page, 2)
	require.EqualValues(t, 4, page[0].Seq)
	require.EqualValues(t, 5, page[1].Seq)
}

// TestUnsubscribe: an exporter removed with the func Subscribe returned sees
// no further events; exporters are often plain funcs (ExporterFunc).
func TestUnsubscribe(t *testing.T) {
	t.Parallel()
	h := setup(t)
	var mu sync.Mutex
	var got []engine.Event
	unsubscribe := h.e.Subscribe(engine.ExporterFunc(func(evs []engine.Event) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, evs...)
	}))
	key := h.deploy("timer_intermediate")
	first := h.start(key, nil)
	mu.Lock()
	require.Len(t, got, len(h.events(first.ID)))
	mu.Unlock()

	require.NotPanics(t, func() { unsubscribe() })
	second := h.start(key, nil)
	require.NotEmpty(t, h.events(second.ID))
	mu.Lock()
	defer mu.Unlock()
	for _, ev := range got {
		require.NotEqual(t, second.ID, ev.InstanceID, "an unsubscribed exporter got an event")
	}
}
