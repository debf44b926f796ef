package cache_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

// received collects the events a Source delivers, by instance.
type received struct {
	mu   sync.Mutex
	seqs map[string][]uint64
}

func (r *received) add(evs []engine.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range evs {
		r.seqs[e.InstanceID] = append(r.seqs[e.InstanceID], e.Seq)
	}
}

func (r *received) of(id string) []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), r.seqs[id]...)
}

// replica is one engine with its cache, publisher and source.
type replica struct {
	*steps
	cache *cache.Cache
	src   *cache.Source
	got   *received
}

func newReplica(t *testing.T, srv *redistest.Server, prefix string) *replica {
	t.Helper()
	c := open(t, srv, cache.Config{Prefix: prefix})
	r := &replica{cache: c, steps: newSteps(t, c, 4), got: &received{seqs: map[string][]uint64{}}}
	close(r.gateB)
	close(r.gateC)
	t.Cleanup(r.eng.Subscribe(c.Publisher()))
	r.src = c.Source(r.eng)
	t.Cleanup(func() { require.NoError(t, r.src.Close()) })
	t.Cleanup(r.src.Subscribe(r.got.add))
	return r
}

// complete waits until the replica's source delivered every event of id,
// 1 to the instance's last sequence, each once.
func (r *replica) complete(t *testing.T, id string, store engine.Store) {
	t.Helper()
	snap, err := store.Instance(t.Context(), id)
	require.NoError(t, err)
	want := make([]uint64, snap.Seq)
	for i := range want {
		want[i] = uint64(i + 1)
	}
	eventually(t, "the source delivered every event of "+id, func() bool { return len(r.got.of(id)) >= len(want) })
	require.Equal(t, want, r.got.of(id))
}

func TestSourceAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	a, b := newReplica(t, srv, prefix), newReplica(t, srv, prefix)

	ida := a.start(t, 1)[0]
	eventually(t, "the instance on a completed", func() bool { return a.completed.Load() == 1 })
	a.complete(t, ida, a.inner) // local, once
	b.complete(t, ida, a.inner) // through Redis, once

	idb := b.start(t, 1)[0]
	eventually(t, "the instance on b completed", func() bool { return b.completed.Load() == 1 })
	b.complete(t, idb, b.inner)
	a.complete(t, idb, b.inner)

	// Without Redis each replica still gets its own events, in-process.
	srv.Stop()
	idb2 := b.start(t, 1)[0]
	eventually(t, "the second instance on b completed", func() bool { return b.completed.Load() == 2 })
	b.complete(t, idb2, b.inner)
	require.Empty(t, a.got.of(idb2), "nothing crosses without Redis")
	eventually(t, "health says degraded", func() bool { ok, _ := b.cache.Health(); return !ok })

	// With Redis back, fan-out resumes.
	srv.Start()
	eventually(t, "health is ok again", func() bool { ok, _ := a.cache.Health(); ok2, _ := b.cache.Health(); return ok && ok2 })
	rc := srv.Client()
	defer rc.Close()
	eventually(t, "both sources subscribed again", func() bool {
		n, err := rc.PubSubNumSub(t.Context(), a.cache.Channel()).Result()
		return err == nil && n[a.cache.Channel()] == 2
	})
	ida2 := a.start(t, 1)[0]
	eventually(t, "the second instance on a completed", func() bool { return a.completed.Load() == 2 })
	a.complete(t, ida2, a.inner)
	b.complete(t, ida2, a.inner)
	_, dropped := b.cache.Publisher().Stats()
	require.Positive(t, dropped, "events of the outage were dropped from fan-out only")
}

// TestSourceTasksOnly: a source whose subscribers follow task changes only
// receives, of the other replicas' event batches, only those that change a
// task; told they want every event again, it receives all again.
func TestSourceTasksOnly(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	a, b := newReplica(t, srv, prefix), newReplica(t, srv, prefix)
	rc := srv.Client()
	defer rc.Close()
	subscribers := func(channel string) int64 {
		n, err := rc.PubSubNumSub(t.Context(), channel).Result()
		require.NoError(t, err)
		return n[channel]
	}
	eventually(t, "both sources receive every channel", func() bool {
		return subscribers(a.cache.Channel()) == 2 && subscribers(a.cache.OtherChannel()) == 2
	})
	// publish sends one batch from a and waits until it went out, so that
	// batches are published one by one, in this order.
	publish := func(ev engine.Event) {
		before, _ := a.cache.Publisher().Stats()
		a.cache.Publisher().Export([]engine.Event{ev})
		eventually(t, "a published "+ev.InstanceID, func() bool { n, _ := a.cache.Publisher().Stats(); return n > before })
	}
	plain := func(id string) engine.Event {
		return engine.Event{InstanceID: id, Seq: 1, Type: engine.EventInstanceStarted, Time: time.Now()}
	}

	b.src.SetTasksOnly(true)
	eventually(t, "b left the channel of the other batches", func() bool { return subscribers(a.cache.OtherChannel()) == 1 })
	require.EqualValues(t, 2, subscribers(a.cache.Channel()))
	publish(plain("plain"))
	publish(engine.Event{InstanceID: "task", Seq: 1, Type: engine.EventTaskCreated, Time: time.Now(), Detail: map[string]any{"taskId": "t1"}})
	eventually(t, "b received the task change", func() bool { return len(b.got.of("task")) == 1 })
	// Redis delivers in the order of publication: b would have received the
	// plain batch first.
	require.Empty(t, b.got.of("plain"), "a batch that changes no task")

	b.src.SetTasksOnly(false)
	eventually(t, "b receives the other batches again", func() bool { return subscribers(a.cache.OtherChannel()) == 2 })
	publish(plain("plain2"))
	eventually(t, "b received the plain batch", func() bool { return len(b.got.of("plain2")) == 1 })
}
