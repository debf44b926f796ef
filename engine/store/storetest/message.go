package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// testBufferedMessages: buffered messages keep their content, list by name
// and correlation key (or all) oldest first and only while they have not
// expired (by the caller's clock), count, expire, and are taken once: of
// concurrent takes of one message exactly one succeeds.
func testBufferedMessages(t *testing.T, s engine.Store) {
	ms, ok := s.(engine.MessageStore)
	require.True(t, ok, "every store keeps buffered messages (engine.MessageStore)")
	c := ctx(t)
	msg := func(id, name, key string, published, ttl time.Duration) engine.BufferedMessage {
		return engine.BufferedMessage{
			ID: id, Name: name, CorrelationKey: key, Variables: map[string]any{"paid": true, "order": map[string]any{"total": 42.5}},
			Published: at(published), Expires: at(published + ttl),
		}
	}
	require.NoError(t, ms.BufferMessage(c, msg("m2", "payment", "o-2", time.Second, time.Hour)))
	require.NoError(t, ms.BufferMessage(c, msg("m1", "payment", "o-1", 0, time.Minute)))
	require.NoError(t, ms.BufferMessage(c, msg("m3", "shipped", "o-1", 2*time.Second, time.Hour)))
	require.NoError(t, ms.BufferMessage(c, msg("m4", "payment", "o-1", 3*time.Second, time.Hour)))
	require.NoError(t, ms.BufferMessage(c, msg("m5", "payment", "", 500*time.Millisecond, time.Hour)))
	require.ErrorIs(t, ms.BufferMessage(c, msg("m1", "payment", "o-9", 0, time.Hour)), engine.ErrDuplicate)

	ids := func(f engine.MessageFilter, now time.Time, limit int) []string {
		list, err := ms.BufferedMessages(c, f, now, limit)
		require.NoError(t, err)
		var out []string
		for _, m := range list {
			out = append(out, m.ID)
		}
		return out
	}
	all := engine.MessageFilter{}
	paidO1 := engine.MessageFilter{Name: "payment", CorrelationKey: "o-1"}
	require.Equal(t, []string{"m1", "m4"}, ids(paidO1, base, 0), "by name and key, oldest first")
	require.Equal(t, []string{"m5"}, ids(engine.MessageFilter{Name: "payment"}, base, 0), "the messages without a key")
	require.Equal(t, []string{"m1", "m5", "m2", "m3", "m4"}, ids(all, base, 0))
	require.Equal(t, []string{"m1"}, ids(all, base, 1))
	require.Equal(t, []string{"m4"}, ids(paidO1, at(time.Minute), 0), "an expired message is not listed")

	list, err := ms.BufferedMessages(c, paidO1, base, 1)
	require.NoError(t, err)
	got := list[0]
	require.Equal(t, "payment", got.Name)
	require.Equal(t, "o-1", got.CorrelationKey)
	require.Equal(t, map[string]any{"paid": true, "order": map[string]any{"total": 42.5}}, got.Variables)
	require.True(t, got.Published.Equal(base), "published %v", got.Published)
	require.True(t, got.Expires.Equal(at(time.Minute)), "expires %v", got.Expires)

	n, err := ms.CountBufferedMessages(c, base)
	require.NoError(t, err)
	require.Equal(t, 5, n)
	n, err = ms.CountBufferedMessages(c, at(time.Minute))
	require.NoError(t, err)
	require.Equal(t, 4, n, "an expired message is not counted")

	n, err = ms.ExpireBufferedMessages(c, at(time.Minute))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"m5", "m2", "m3", "m4"}, ids(all, base, 0), "the expired message is gone")

	require.NoError(t, ms.TakeBufferedMessage(c, "m3"))
	require.ErrorIs(t, ms.TakeBufferedMessage(c, "m3"), engine.ErrNotFound, "taken once")
	require.Equal(t, []string{"m5", "m2", "m4"}, ids(all, base, 0))

	// Replicas racing for one message: exactly one takes it.
	const takers = 8
	var wg sync.WaitGroup
	results := make(chan error, takers)
	for range takers {
		wg.Go(func() { results <- ms.TakeBufferedMessage(c, "m2") })
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, engine.ErrNotFound):
			require.NoError(t, err)
		}
	}
	require.Equal(t, 1, won)
	require.Equal(t, []string{"m5", "m4"}, ids(all, base, 0))

	// A message taken and not delivered is stored again under its id.
	require.NoError(t, ms.BufferMessage(c, msg("m2", "payment", "o-2", time.Second, time.Hour)))
	require.Equal(t, []string{"m2"}, ids(engine.MessageFilter{Name: "payment", CorrelationKey: "o-2"}, base, 0))
}
