package engine_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
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
