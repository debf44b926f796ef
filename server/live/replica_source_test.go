package live_test

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server/live"
)

// pushSource hands batches to its subscriber when the test says: Redis
// losing a message, or delivering one twice, on demand.
type pushSource struct {
	mu sync.Mutex
	fn func([]engine.Event)
}

func (p *pushSource) Subscribe(fn func([]engine.Event)) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fn = fn
	return func() {}
}

func (p *pushSource) push(evs []engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fn(evs)
}

// ran runs parallel_50.bpmn to its end on an engine of store and returns the
// instance's logged events.
func ran(t *testing.T, store engine.Store) []engine.Event {
	t.Helper()
	return runParallel(t, newEngine(t, store, engine.RealClock{}), store)
}

func newEngine(t *testing.T, store engine.Store, clock engine.Clock) *engine.Engine {
	t.Helper()
	eng, err := engine.New(engine.Config{Store: store, Clock: clock, Partitions: 1, NodeWorkers: 1, Unhandled: engine.JobsNoop})
	require.NoError(t, err)
	require.NoError(t, eng.Run(t.Context()))
	t.Cleanup(eng.Close)
	return eng
}

// runParallel runs parallel_50.bpmn to its end on eng and returns the
// instance's events logged in store.
func runParallel(t *testing.T, eng *engine.Engine, store engine.Store) []engine.Event {
	t.Helper()
	completed := make(chan string, 1)
	t.Cleanup(eng.Subscribe(engine.ExporterFunc(func(evs []engine.Event) {
		for _, ev := range evs {
			if ev.Type == engine.EventInstanceCompleted {
				completed <- ev.InstanceID
			}
		}
	})))
	src, err := os.ReadFile("../../engine/testdata/parallel_50.bpmn")
	require.NoError(t, err)
	rec, _, err := eng.Deploy(t.Context(), engine.DeployRequest{Source: src})
	require.NoError(t, err)
	snap, _, err := eng.Start(t.Context(), engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	select {
	case id := <-completed:
		require.Equal(t, snap.ID, id)
	case <-time.After(10 * time.Second):
		t.Fatal("the instance did not complete")
	}
	evs, err := store.Events(t.Context(), snap.ID, 0, 0)
	require.NoError(t, err)
	require.Greater(t, len(evs), 4)
	return evs
}

// TestReplicaSourceFillsGapsAndDropsDuplicates: events that skip some of an
// instance's sequence wait for the missing ones, read from the log; events
// delivered again are dropped; transient events pass.
func TestReplicaSourceFillsGapsAndDropsDuplicates(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	logged := ran(t, store)
	push := &pushSource{}
	rs, err := live.NewReplicaSource(live.ReplicaConfig{Events: push, Log: store, PollInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(rs.Close)
	got := make(chan []engine.Event, 16)
	rs.Subscribe(func(evs []engine.Event) { got <- evs })

	progress := engine.Event{InstanceID: logged[0].InstanceID, Type: "job.progress"}
	push.push(logged[:1])
	push.push(logged[3:]) // 2 and 3 lost on the way
	push.push(logged[:2]) // a late copy
	push.push([]engine.Event{progress})

	var seqs []uint64
	deadline := time.After(10 * time.Second)
	for len(seqs) < len(logged)+1 {
		select {
		case evs := <-got:
			for _, ev := range evs {
				seqs = append(seqs, ev.Seq)
			}
		case <-deadline:
			t.Fatalf("got only %v", seqs)
		}
	}
	want := make([]uint64, 0, len(logged)+1)
	for _, ev := range logged {
		want = append(want, ev.Seq)
	}
	require.Equal(t, append(want, 0), seqs, "every event once, in order, then the transient one")

	late := engine.Event{InstanceID: logged[0].InstanceID, Type: "job.progress", Time: time.Now().Add(-time.Hour)}
	push.push([]engine.Event{late})
	<-got
	require.GreaterOrEqual(t, rs.Lag(), time.Hour, "an event an hour old came")
}

// TestReplicaSourcePollsTheLog: with nothing pushed, the poll brings an
// instance's events from the log.
func TestReplicaSourcePollsTheLog(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	rs, err := live.NewReplicaSource(live.ReplicaConfig{Events: &pushSource{}, Log: store, PollInterval: 5 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(rs.Close)
	got := make(chan []engine.Event, 64)
	rs.Subscribe(func(evs []engine.Event) { got <- evs })
	logged := ran(t, store)

	var seqs []uint64
	deadline := time.After(10 * time.Second)
	for len(seqs) < len(logged) {
		select {
		case evs := <-got:
			for _, ev := range evs {
				require.Equal(t, logged[0].InstanceID, ev.InstanceID)
				seqs = append(seqs, ev.Seq)
			}
		case <-deadline:
			t.Fatalf("got only %v", seqs)
		}
	}
	want := make([]uint64, 0, len(logged))
	for _, ev := range logged {
		want = append(want, ev.Seq)
	}
	require.Equal(t, want, seqs)
}

// digestReplicas starts the live sources of two replicas on store: a,
// which publishes what eng commits, and b, whose subscriber (all events, or
// task changes only) gets what it reads of a's digest.
func digestReplicas(t *testing.T, store *memstore.Store, eng *engine.Engine, tasksOnly bool) <-chan []engine.Event {
	t.Helper()
	a, err := live.NewReplicaSource(live.ReplicaConfig{
		Events: live.EngineSource{Engine: eng}, Log: store, PollInterval: 5 * time.Millisecond, FanoutPollInterval: time.Hour,
		Digests: store, Replica: "a", Own: live.EngineSource{Engine: eng},
	})
	require.NoError(t, err)
	t.Cleanup(a.Close)
	a.Subscribe(func([]engine.Event) {})
	b, err := live.NewReplicaSource(live.ReplicaConfig{
		Events: &pushSource{}, Log: store, PollInterval: 5 * time.Millisecond, FanoutPollInterval: time.Hour,
		Digests: store, Replica: "b", Own: &pushSource{},
	})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	got := make(chan []engine.Event, 64)
	subscribe := b.Subscribe
	if tasksOnly {
		subscribe = b.SubscribeTasks
	}
	subscribe(func(evs []engine.Event) { got <- evs })
	return got
}

// TestReplicaSourceReadsDigests: a replica publishes which instances its
// engine committed; another reads that digest and brings their events from
// the log, every one once and in order. The instance was updated an hour
// ago by its engine's clock: querying the instances updated lately cannot
// find it.
func TestReplicaSourceReadsDigests(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	eng := newEngine(t, store, engine.NewVirtualClock(time.Now().Add(-time.Hour)))
	got := digestReplicas(t, store, eng, false)
	logged := runParallel(t, eng, store)

	var seqs []uint64
	deadline := time.After(10 * time.Second)
	for len(seqs) < len(logged) {
		select {
		case evs := <-got:
			for _, ev := range evs {
				require.Equal(t, logged[0].InstanceID, ev.InstanceID)
				seqs = append(seqs, ev.Seq)
			}
		case <-deadline:
			t.Fatalf("got only %v", seqs)
		}
	}
	want := make([]uint64, 0, len(logged))
	for _, ev := range logged {
		want = append(want, ev.Seq)
	}
	require.Equal(t, want, seqs)

	ds, err := store.Digests(t.Context(), "")
	require.NoError(t, err)
	var a *engine.ChangeDigest
	for i, d := range ds {
		if d.Replica == "a" {
			a = &ds[i]
			continue
		}
		require.Empty(t, d.Changes, "b's engine committed nothing: its digest only says it is alive")
	}
	require.NotNil(t, a, "a published its digest")
	require.Len(t, a.Changes, 1)
	require.Equal(t, logged[0].InstanceID, a.Changes[0].InstanceID)
	require.LessOrEqual(t, a.Changes[0].Seq, logged[len(logged)-1].Seq, "a sequence of the instance (the last one once published again)")
	require.Positive(t, a.Changes[0].Seq)
}

const reviewBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs_review" targetNamespace="https://workflowpp.dev/test">
  <bpmn:process id="review" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:userTask id="check" name="Check" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="check" />
    <bpmn:sequenceFlow id="f2" sourceRef="check" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`

// TestReplicaSourceTasksOnly: a source whose only subscriber follows task
// changes reads from the log the instances whose digests show one, and not
// the others: of an instance without a task, committed before, nothing
// comes.
func TestReplicaSourceTasksOnly(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	eng := newEngine(t, store, engine.NewVirtualClock(time.Now().Add(-time.Hour)))
	got := digestReplicas(t, store, eng, true)
	runParallel(t, eng, store)
	rec, _, err := eng.Deploy(t.Context(), engine.DeployRequest{Source: []byte(reviewBPMN)})
	require.NoError(t, err)
	snap, _, err := eng.Start(t.Context(), engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)

	deadline := time.After(10 * time.Second)
	for {
		select {
		case evs := <-got:
			for _, ev := range evs {
				require.Equal(t, snap.ID, ev.InstanceID, "the instance without a task is not read")
				if _, ok := ev.Task(); ok {
					return
				}
			}
		case <-deadline:
			t.Fatal("the task's creation did not come")
		}
	}
}

// TestReplicaSourceQueriesAfterSilence: a replica that stops publishing its
// digest may have committed changes no digest names. Once its digest is
// silent, the others query the instances updated lately, and bring them.
func TestReplicaSourceQueriesAfterSilence(t *testing.T) {
	t.Parallel()
	store := memstore.New()
	eng := newEngine(t, store, engine.RealClock{})
	before := runParallel(t, eng, store)
	require.NoError(t, store.PublishDigest(t.Context(), engine.ChangeDigest{Replica: "a", Published: time.Now()}))
	b, err := live.NewReplicaSource(live.ReplicaConfig{
		Events: &pushSource{}, Log: store, PollInterval: 5 * time.Millisecond, FanoutPollInterval: time.Hour,
		Digests: store, Replica: "b", Own: &pushSource{},
	})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	got := make(chan []engine.Event, 64)
	b.Subscribe(func(evs []engine.Event) { got <- evs })
	receive(t, got, before) // by the first poll, a query: digests come after

	after := runParallel(t, eng, store) // in no digest
	receive(t, got, after)
}

// receive waits until got brings the events logged, once each and in order.
func receive(t *testing.T, got <-chan []engine.Event, logged []engine.Event) {
	t.Helper()
	var seqs []uint64
	deadline := time.After(10 * time.Second)
	for len(seqs) < len(logged) {
		select {
		case evs := <-got:
			for _, ev := range evs {
				require.Equal(t, logged[0].InstanceID, ev.InstanceID)
				seqs = append(seqs, ev.Seq)
			}
		case <-deadline:
			t.Fatalf("got only %v", seqs)
		}
	}
	want := make([]uint64, 0, len(logged))
	for _, ev := range logged {
		want = append(want, ev.Seq)
	}
	require.Equal(t, want, seqs)
}

func TestReplicaSourceConfig(t *testing.T) {
	t.Parallel()
	_, err := live.NewReplicaSource(live.ReplicaConfig{})
	require.ErrorContains(t, err, "Events is required")
	_, err = live.NewReplicaSource(live.ReplicaConfig{Events: &pushSource{}, PollInterval: -time.Second})
	require.ErrorContains(t, err, "must not be negative")
	_, err = live.NewReplicaSource(live.ReplicaConfig{Events: &pushSource{}, Digests: memstore.New()})
	require.ErrorContains(t, err, "Digests needs Log, Replica and Own")
	rs, err := live.NewReplicaSource(live.ReplicaConfig{Events: &pushSource{}})
	require.NoError(t, err)
	rs.Close() // never started: nothing to stop
}

// countedDigests counts the reads of the other replicas' digests.
type countedDigests struct {
	engine.ChangeDigests
	reads atomic.Int64
}

func (c *countedDigests) Digests(ctx context.Context, except string) ([]engine.ChangeDigest, error) {
	c.reads.Add(1)
	return c.ChangeDigests.Digests(ctx, except)
}

// TestReplicaSourceReadsDigestsOnTheirBeatWhileRedisCarriesEvents: the
// digests are a safety net while Redis brings the other replicas' events:
// a source reads them every beat (two poll intervals), as they are
// published, not at every poll; without Redis, at every poll.
func TestReplicaSourceReadsDigestsOnTheirBeatWhileRedisCarriesEvents(t *testing.T) {
	t.Parallel()
	const poll = 20 * time.Millisecond
	reads := func(fanout bool) int64 {
		store := memstore.New()
		d := &countedDigests{ChangeDigests: store}
		src, err := live.NewReplicaSource(live.ReplicaConfig{
			Events: &pushSource{}, Log: store, PollInterval: poll, FanoutPollInterval: time.Hour,
			Fanout: func() bool { return fanout }, Digests: d, Replica: "b", Own: &pushSource{},
		})
		require.NoError(t, err)
		src.Subscribe(func([]engine.Event) {})
		time.Sleep(50 * poll)
		src.Close()
		return d.reads.Load()
	}
	withRedis, without := reads(true), reads(false)
	require.Greater(t, without, int64(20), "about one read every poll (50 polls)")
	require.Less(t, withRedis, without*3/4, "about one every beat: %d reads with Redis, %d without", withRedis, without)
	require.Greater(t, withRedis, int64(8), "still read every beat (25 beats)")
}
