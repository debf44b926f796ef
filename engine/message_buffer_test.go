package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// TestPublishKeepsMessages: a message published with a TTL that finds no
// subscriber waits for the first instance that subscribes, once; at its TTL
// on the engine's (here virtual) clock it is dropped; a full buffer refuses.
func TestPublishKeepsMessages(t *testing.T) {
	t.Parallel()
	h := setup(t, withConfig(func(c *engine.Config) { c.MessageBuffer = 2 }))
	key := h.deploy("message_correlation")
	paid := engine.Message{Name: "payment", CorrelationKey: "o-1", Variables: map[string]any{"paid": true}}

	pub, err := h.e.Publish(h.ctx, paid, time.Minute)
	require.NoError(t, err)
	require.True(t, pub.Buffered)
	require.Equal(t, epoch.Add(time.Minute), pub.Expires, "expiry on the engine's clock")

	first := h.start(key, map[string]any{"orderId": "o-1"})
	require.Eventually(t, func() bool { return h.instance(first.ID).Status == engine.StatusCompleted }, 10*time.Second, time.Millisecond,
		"the kept message reaches the instance that subscribes")
	require.Equal(t, true, h.instance(first.ID).Variables["paid"])
	second := h.start(key, map[string]any{"orderId": "o-1"})
	require.Equal(t, engine.StatusWaiting, h.instance(second.ID).Status, "delivered once")

	late := engine.Message{Name: "payment", CorrelationKey: "o-2"}
	_, err = h.e.Publish(h.ctx, late, time.Minute)
	require.NoError(t, err)
	_, err = h.e.Publish(h.ctx, engine.Message{Name: "payment", CorrelationKey: "o-3"}, time.Minute)
	require.NoError(t, err)
	_, err = h.e.Publish(h.ctx, engine.Message{Name: "payment", CorrelationKey: "o-4"}, time.Minute)
	require.ErrorIs(t, err, engine.ErrBufferFull)
	require.ErrorIs(t, err, engine.ErrUnavailable)

	h.advance(2 * time.Minute) // both expire
	third := h.start(key, map[string]any{"orderId": "o-2"})
	require.Equal(t, engine.StatusWaiting, h.instance(third.ID).Status, "an expired message is gone")
	pub, err = h.e.Publish(h.ctx, engine.Message{Name: "payment", CorrelationKey: "o-5"}, time.Minute)
	require.NoError(t, err, "expired messages make room")
	require.True(t, pub.Buffered)

	pub, err = h.e.Publish(h.ctx, engine.Message{Name: "payment", CorrelationKey: "o-2"}, 0)
	require.NoError(t, err)
	require.Equal(t, 1, pub.Correlated, "a waiting instance gets it at once")
}

// TestPublishedMessagesSurviveRestart: buffered messages are kept in the
// store: an engine started again on it delivers one to the instance that
// subscribes, once, and drops the one that expired meanwhile.
func TestPublishedMessagesSurviveRestart(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := memstore.New()
	clock := engine.NewVirtualClock(epoch)
	on := func() *engine.Engine {
		e, err := engine.New(engine.Config{Store: st, Clock: clock, Partitions: 2, NodeWorkers: 2})
		require.NoError(t, err)
		require.NoError(t, e.Run(context.Background()))
		t.Cleanup(e.Close)
		return e
	}
	first := on()
	src, err := os.ReadFile(filepath.Join("testdata", "message_correlation.bpmn"))
	require.NoError(t, err)
	rec, _, err := first.Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	for key, ttl := range map[string]time.Duration{"o-1": time.Hour, "o-2": time.Minute} {
		pub, err := first.Publish(ctx, engine.Message{Name: "payment", CorrelationKey: key, Variables: map[string]any{"paid": key}}, ttl)
		require.NoError(t, err)
		require.True(t, pub.Buffered)
	}
	first.Close()
	clock.Advance(10 * time.Minute) // o-2 expires while no engine runs

	second := on()
	start := func(order string) string {
		snap, _, err := second.Start(ctx, engine.StartRequest{Definition: rec.Key, Variables: map[string]any{"orderId": order}})
		require.NoError(t, err)
		require.NoError(t, second.WaitIdle(ctx))
		return snap.ID
	}
	status := func(id string) engine.Status {
		snap, err := second.Instance(ctx, id)
		require.NoError(t, err)
		return snap.Status
	}
	got := start("o-1")
	require.Eventually(t, func() bool { return status(got) == engine.StatusCompleted }, 10*time.Second, time.Millisecond,
		"the message kept before the restart reaches the instance that subscribes")
	snap, err := second.Instance(ctx, got)
	require.NoError(t, err)
	require.Equal(t, "o-1", snap.Variables["paid"])
	again := start("o-1")
	late := start("o-2")
	require.NoError(t, second.WaitIdle(ctx))
	require.Equal(t, engine.StatusWaiting, status(again), "delivered once")
	require.Equal(t, engine.StatusWaiting, status(late), "an expired message is not delivered")
	require.Eventually(t, func() bool {
		left, err := st.BufferedMessages(ctx, engine.MessageFilter{}, epoch, 0)
		require.NoError(t, err)
		return len(left) == 0
	}, 10*time.Second, time.Millisecond, "the expired message is deleted from the store")
}

// TestBufferedMessageReachesOneReplica: two engines on one store each open
// a subscription the one buffered message matches: exactly one instance
// gets it.
func TestBufferedMessageReachesOneReplica(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := memstore.New()
	replicas := []*engine.Engine{engineOn(t, st), engineOn(t, st)}
	src, err := os.ReadFile(filepath.Join("testdata", "message_correlation.bpmn"))
	require.NoError(t, err)
	rec, _, err := replicas[0].Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	pub, err := replicas[0].Publish(ctx, engine.Message{Name: "payment", CorrelationKey: "o-1"}, time.Hour)
	require.NoError(t, err)
	require.True(t, pub.Buffered)

	ids := make([]string, len(replicas))
	errs := make([]error, len(replicas))
	var wg sync.WaitGroup
	for i, e := range replicas {
		wg.Go(func() {
			var snap *engine.Snapshot
			if snap, _, errs[i] = e.Start(ctx, engine.StartRequest{Definition: rec.Key, Variables: map[string]any{"orderId": "o-1"}}); errs[i] == nil {
				ids[i] = snap.ID
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	completed := func() (n int) {
		for i, e := range replicas {
			snap, err := e.Instance(ctx, ids[i])
			require.NoError(t, err)
			if snap.Status == engine.StatusCompleted {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return completed() == 1 }, 10*time.Second, time.Millisecond)
	left, err := st.BufferedMessages(ctx, engine.MessageFilter{}, epoch, 0)
	require.NoError(t, err)
	require.Empty(t, left, "taken out of the store")
	for _, e := range replicas {
		require.NoError(t, e.WaitIdle(ctx))
	}
	require.Equal(t, 1, completed(), "one instance, on one replica, got it")
}

// TestBufferedMessageSweptAcrossReplicas: in a cluster, a message buffered
// on one replica reaches an instance that waits on another through the
// store: when the instance subscribes after it was buffered, and when it
// waited already (a publication that did not reach it: here, replicas
// without Peers), at the other replica's next sweep.
func TestBufferedMessageSweptAcrossReplicas(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := memstore.New()
	ra, rb := startReplica(t, st, "a", time.Second), startReplica(t, st, "b", time.Second)
	waitSpread(t, ra, rb) // each starts in partitions it holds
	a, b := ra.e, rb.e
	src, err := os.ReadFile(filepath.Join("testdata", "message_correlation.bpmn"))
	require.NoError(t, err)
	rec, _, err := a.Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	start := func(order string) string {
		snap, _, err := b.Start(ctx, engine.StartRequest{Definition: rec.Key, Variables: map[string]any{"orderId": order}})
		require.NoError(t, err)
		return snap.ID
	}
	completed := func(id string) bool {
		snap, err := st.Instance(ctx, id)
		require.NoError(t, err)
		return snap.Status == engine.StatusCompleted
	}
	publish := func(order string) {
		pub, err := a.Publish(ctx, engine.Message{Name: "payment", CorrelationKey: order}, time.Hour)
		require.NoError(t, err)
		require.True(t, pub.Buffered)
	}

	waiting := start("o-1") // b has looked into the store already
	require.NoError(t, b.WaitIdle(ctx))
	publish("o-2")
	later := start("o-2")
	require.Eventually(t, func() bool { return completed(later) }, 10*time.Second, time.Millisecond, "subscribed after the message was buffered")

	publish("o-1")
	require.Eventually(t, func() bool { return completed(waiting) }, 10*time.Second, time.Millisecond, "waited before: b's sweep finds it")
	left, err := st.BufferedMessages(ctx, engine.MessageFilter{}, time.Now(), 0)
	require.NoError(t, err)
	require.Empty(t, left)
}
