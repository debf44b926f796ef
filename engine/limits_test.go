package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// cappedProcess waits at a user task, in a process with the given limits.
func cappedProcess(id, attrs string) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="%s" isExecutable="true" %s>
    <startEvent id="start"/>
    <userTask id="review"/>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="end"/>
  </process>
</definitions>`, id, attrs)
}

func TestMaxConcurrentRefuse(t *testing.T) {
	t.Parallel()
	h := setup(t)
	key := h.deploySource(cappedProcess("capped", `wf:maxConcurrentInstances="2" wf:overLimit="refuse"`)).Key
	a := h.start(key, nil)
	h.start(key, nil)

	_, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
	require.ErrorIs(t, err, engine.ErrOverLimit)
	var over *engine.OverLimitError
	require.ErrorAs(t, err, &over)
	require.Equal(t, key, over.Definition)
	require.Equal(t, 2, over.Max)
	require.Positive(t, over.RetryAfter)
	require.Contains(t, err.Error(), "wf:maxConcurrentInstances")
	page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: key})
	require.NoError(t, err)
	require.Len(t, page, 2, "a refused start stores nothing")

	h.complete(a.ID, "review", nil)
	h.start(key, nil) // a place is free again
}

func TestMaxConcurrentQueue(t *testing.T) {
	t.Parallel()
	h := setup(t)
	key := h.deploySource(cappedProcess("capped", `wf:maxConcurrentInstances="1" wf:overLimit="queue"`)).Key
	first := h.start(key, nil)
	var queued []string
	for range 3 {
		snap, created, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
		require.NoError(t, err)
		require.True(t, created)
		require.Equal(t, engine.StatusQueued, snap.Status)
		queued = append(queued, snap.ID)
	}
	h.idle()
	for i, id := range queued {
		snap := h.requireStatus(id, engine.StatusQueued)
		require.Empty(t, snap.Tokens)
		ev := h.eventsOf(id, engine.EventInstanceQueued, "")
		require.Len(t, ev, 1)
		require.EqualValues(t, i+1, ev[0].Detail["position"])
		require.Zero(t, h.count(id, engine.EventInstanceStarted, ""))
	}
	_, err := h.e.Pause(h.ctx, queued[0])
	require.ErrorIs(t, err, engine.ErrInvalidState, "a queued instance has nothing to pause yet")

	h.complete(first.ID, "review", nil)
	h.requireStatus(queued[0], engine.StatusWaiting)
	h.requireStatus(queued[1], engine.StatusQueued)
	h.requireStatus(queued[2], engine.StatusQueued)

	_, err = h.e.Cancel(h.ctx, queued[1]) // leaves the queue
	require.NoError(t, err)
	h.requireStatus(queued[1], engine.StatusCancelled)
	h.requireStatus(queued[2], engine.StatusQueued)

	h.complete(queued[0], "review", nil)
	h.requireStatus(queued[2], engine.StatusWaiting)
	h.complete(queued[2], "review", nil)
	h.requireStatus(queued[2], engine.StatusCompleted)
	require.Zero(t, h.count(queued[1], engine.EventInstanceStarted, ""), "the cancelled one never started")
	h.start(key, nil) // nothing waits and nothing runs: the next start runs at once
}

// TestMaxConcurrentUnderLoad starts 50 instances at once with a cap of 3:
// never more than 3 run, every one runs exactly once, and all complete.
func TestMaxConcurrentUnderLoad(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.e.RegisterHandler("work", handlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return nil, nil }))
	src := fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="load" isExecutable="true" wf:maxConcurrentInstances="3">
    <startEvent id="start"/>
    <serviceTask id="a" wf:type="work"/>
    <serviceTask id="b" wf:type="work"/>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="a"/>
    <sequenceFlow id="f2" sourceRef="a" targetRef="b"/>
    <sequenceFlow id="f3" sourceRef="b" targetRef="end"/>
  </process>
</definitions>`)
	key := h.deploySource(src).Key

	var mu sync.Mutex
	running, most := 0, 0
	started := map[string]int{}
	unsubscribe := h.e.Subscribe(engine.ExporterFunc(func(evs []engine.Event) {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range evs {
			switch ev.Type {
			case engine.EventInstanceStarted:
				started[ev.InstanceID]++
				running++
				most = max(most, running)
			case engine.EventInstanceCompleted, engine.EventInstanceFailed, engine.EventInstanceCancelled:
				running--
			}
		}
	}))
	defer unsubscribe()

	const n = 50
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
			if err != nil {
				errs <- err
				return
			}
			ids[i] = snap.ID
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	h.idle()

	mu.Lock()
	defer mu.Unlock()
	require.LessOrEqual(t, most, 3, "never more than the cap run at once")
	require.Zero(t, running)
	require.Len(t, started, n)
	for _, id := range ids {
		require.Equal(t, 1, started[id], "instance %s started once", id)
		h.requireStatus(id, engine.StatusCompleted)
	}
}

// TestMaxConcurrentQueueSurvivesRestart: the queue is the queued instances
// in the store; a restarted engine counts the running ones again and starts
// the queued ones in their order as places free up.
func TestMaxConcurrentQueueSurvivesRestart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := memstore.New()
	e1, err := engine.New(engine.Config{Store: st, Clock: engine.NewVirtualClock(epoch), Partitions: 2})
	require.NoError(t, err)
	require.NoError(t, e1.Run(ctx))
	rec, _, err := e1.Deploy(ctx, engine.DeployRequest{Source: cappedProcess("capped", `wf:maxConcurrentInstances="1"`)})
	require.NoError(t, err)
	var ids []string
	for range 4 {
		snap, _, err := e1.Start(ctx, engine.StartRequest{Definition: rec.Key})
		require.NoError(t, err)
		ids = append(ids, snap.ID)
	}
	require.NoError(t, e1.WaitIdle(ctx))
	e1.Close()

	e2 := engineOn(t, st)
	status := func(id string) engine.Status {
		t.Helper()
		require.NoError(t, e2.WaitIdle(ctx))
		snap, err := st.Instance(ctx, id)
		require.NoError(t, err)
		return snap.Status
	}
	complete := func(id string) {
		t.Helper()
		snap, err := st.Instance(ctx, id)
		require.NoError(t, err)
		require.Len(t, snap.Tasks, 1)
		_, err = e2.CompleteTask(ctx, snap.Tasks[0].ID, "tester", nil)
		require.NoError(t, err)
	}
	require.Equal(t, engine.StatusWaiting, status(ids[0]))
	for _, id := range ids[1:] {
		require.Equal(t, engine.StatusQueued, status(id))
	}
	extra, _, err := e2.Start(ctx, engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	require.Equal(t, engine.StatusQueued, extra.Status, "behind the queued ones")
	ids = append(ids, extra.ID)
	for i, id := range ids {
		require.Equal(t, engine.StatusWaiting, status(id), "instance %d runs", i)
		for _, later := range ids[i+1:] {
			require.Equal(t, engine.StatusQueued, status(later), "instance %d still waits", i)
		}
		complete(id)
		require.Equal(t, engine.StatusCompleted, status(id))
	}
}

// TestQueuedStartsAtRecovery: an end stored just before a crash, whose
// queued start was not: recovery finds the free place and starts it.
func TestQueuedStartsAtRecovery(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := memstore.New()
	e1, err := engine.New(engine.Config{Store: st, Clock: engine.NewVirtualClock(epoch)})
	require.NoError(t, err)
	require.NoError(t, e1.Run(ctx))
	rec, _, err := e1.Deploy(ctx, engine.DeployRequest{Source: cappedProcess("capped", `wf:maxConcurrentInstances="1"`)})
	require.NoError(t, err)
	running, _, err := e1.Start(ctx, engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	queued, _, err := e1.Start(ctx, engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	require.Equal(t, engine.StatusQueued, queued.Status)
	require.NoError(t, e1.WaitIdle(ctx))
	e1.Close()

	// The crash: the running instance's cancellation is stored, nothing after it.
	snap, err := st.Instance(ctx, running.ID)
	require.NoError(t, err)
	ended := *snap
	ended.Seq, ended.Status, ended.Tokens, ended.Tasks, ended.Ended = snap.Seq+1, engine.StatusCancelled, nil, nil, &epoch
	ended.Pending = []engine.Event{{InstanceID: running.ID, Seq: snap.Seq + 1, Type: engine.EventInstanceCancelled, Time: epoch}}
	require.NoError(t, st.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: &ended, PrevSeq: snap.Seq}}}))

	e2 := engineOn(t, st)
	require.NoError(t, e2.WaitIdle(ctx))
	got, err := st.Instance(ctx, queued.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusWaiting, got.Status)
	require.Len(t, got.Tasks, 1)
}

// TestMaxConcurrentAcrossReplicas: two replicas of a cluster on one store
// share the cap (the places are in the store): a start over it on either
// replica is queued, a new start queues behind the instances queued on the
// other replica, and a place one replica frees goes to a queued start,
// whichever replica holds it, one at a time.
func TestMaxConcurrentAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := memstore.New()
	ra, rb := startReplica(t, st, "a", time.Second), startReplica(t, st, "b", time.Second)
	waitSpread(t, ra, rb) // each starts in partitions it holds
	a, b := ra.e, rb.e
	rec, _, err := a.Deploy(ctx, engine.DeployRequest{Source: cappedProcess("capped", `wf:maxConcurrentInstances="1"`)})
	require.NoError(t, err)
	start := func(e *engine.Engine) string {
		snap, _, err := e.Start(ctx, engine.StartRequest{Definition: rec.Key})
		require.NoError(t, err)
		return snap.ID
	}
	status := func(id string) engine.Status {
		snap, err := st.Instance(ctx, id)
		require.NoError(t, err)
		return snap.Status
	}
	running := func() (ids []string) {
		places, err := st.Places(ctx)
		require.NoError(t, err)
		return places[rec.Key]
	}
	first := start(a)
	onB := start(b)
	onA := start(a)
	require.Equal(t, engine.StatusQueued, status(onB), "the place a holds counts on b")
	require.Equal(t, engine.StatusQueued, status(onA), "behind the instance queued on b")
	require.Equal(t, []string{first}, running())

	complete := func(e *engine.Engine, id string) {
		require.Eventually(t, func() bool { return status(id) == engine.StatusWaiting }, 10*time.Second, time.Millisecond)
		snap, err := st.Instance(ctx, id)
		require.NoError(t, err)
		require.Len(t, snap.Tasks, 1)
		_, err = e.CompleteTask(ctx, snap.Tasks[0].ID, "tester", nil)
		require.NoError(t, err)
	}
	complete(a, first)
	var next, last string
	var nextOn, lastOn *engine.Engine
	require.Eventually(t, func() bool {
		switch {
		case status(onA) == engine.StatusWaiting:
			next, nextOn, last, lastOn = onA, a, onB, b
		case status(onB) == engine.StatusWaiting:
			next, nextOn, last, lastOn = onB, b, onA, a
		default:
			return false
		}
		return true
	}, 10*time.Second, time.Millisecond, "a queued instance gets the place")
	require.Equal(t, engine.StatusQueued, status(last), "one at a time")
	require.Equal(t, []string{next}, running())
	complete(nextOn, next)
	complete(lastOn, last)
	require.Eventually(t, func() bool { return status(last) == engine.StatusCompleted }, 10*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return len(running()) == 0 }, 10*time.Second, time.Millisecond, "every place is given back")
}

// TestStalePlacesGivenBack: on a replica of a cluster, a place that a crash
// kept from being given back is given back once a start waits for it: at
// once when its instance ended (the end was stored, the release was not),
// after a minute when no instance was ever stored for it (a start that
// crashed between taking its place and its first commit).
func TestStalePlacesGivenBack(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := memstore.New()
	clock := engine.NewVirtualClock(epoch)
	e, err := engine.New(engine.Config{
		Store: st, Clock: clock, Partitions: 2, NodeWorkers: 2,
		Cluster: &engine.ClusterConfig{ReplicaID: "a", Address: "127.0.0.1:0"},
	})
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))
	t.Cleanup(e.Close)
	rec, _, err := e.Deploy(ctx, engine.DeployRequest{Source: cappedProcess("capped", `wf:maxConcurrentInstances="1"`)})
	require.NoError(t, err)
	status := func(id string) engine.Status {
		require.NoError(t, e.WaitIdle(ctx))
		snap, err := st.Instance(ctx, id)
		require.NoError(t, err)
		return snap.Status
	}
	complete := func(id string) {
		snap, err := st.Instance(ctx, id)
		require.NoError(t, err)
		_, err = e.CompleteTask(ctx, snap.Tasks[0].ID, "tester", nil)
		require.NoError(t, err)
		require.Equal(t, engine.StatusCompleted, status(id))
	}
	for _, stale := range []string{"ended", "never stored"} {
		first, _, err := e.Start(ctx, engine.StartRequest{Definition: rec.Key})
		require.NoError(t, err)
		require.Equal(t, engine.StatusWaiting, status(first.ID))
		complete(first.ID)
		holder := first.ID
		if stale == "never stored" {
			holder = "a-start-that-crashed"
		}
		ok, err := st.TakePlace(ctx, rec.Key, holder, 1)
		require.NoError(t, err)
		require.True(t, ok)

		next, _, err := e.Start(ctx, engine.StartRequest{Definition: rec.Key})
		require.NoError(t, err)
		require.Equal(t, engine.StatusQueued, status(next.ID), "%s: the stale place counts until it is found", stale)
		began := clock.Now()
		for status(next.ID) == engine.StatusQueued {
			require.Less(t, clock.Now().Sub(began), 5*time.Minute, "%s: the place is never given back", stale)
			clock.Advance(time.Second)
		}
		waited := clock.Now().Sub(began)
		if stale == "ended" {
			require.LessOrEqual(t, waited, 2*time.Second, "an ended instance's place goes at the first look")
		} else {
			require.GreaterOrEqual(t, waited, time.Minute, "a start may still be storing its instance")
		}
		require.Equal(t, engine.StatusWaiting, status(next.ID))
		complete(next.ID)
	}
}
