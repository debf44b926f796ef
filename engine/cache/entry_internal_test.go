package cache

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

func openInternal(t *testing.T, clock engine.Clock) *Cache {
	t.Helper()
	srv := redistest.Start(t)
	c, err := Open(t.Context(), Config{
		URL: srv.URL(), Prefix: redistest.Prefix(t), Clock: clock, ProbeInterval: 10 * time.Millisecond,
		OpTimeout: 2 * time.Second,
	}) // see testOpTimeout
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

func TestFillAfterInvalidationIsDropped(t *testing.T) {
	t.Parallel()
	c := openInternal(t, nil)
	ctx := t.Context()
	k := stale{c.key("inst", "i-1"), time.Minute}

	l := c.get(ctx, k.key, k.ttl) // a reader misses and goes to the store...
	require.False(t, l.hit)
	c.invalidate(ctx, k)                          // ...a commit changes the instance meanwhile...
	c.fill(ctx, k.key, l, []byte(`"old"`), k.ttl) // ...and the reader's fill comes late
	require.False(t, c.get(ctx, k.key, k.ttl).hit, "a late fill never overwrites an invalidation")

	l = c.get(ctx, k.key, k.ttl)
	c.fill(ctx, k.key, l, []byte(`"new"`), k.ttl)
	got := c.get(ctx, k.key, k.ttl)
	require.True(t, got.hit)
	require.Equal(t, `"new"`, string(got.data))
}

func TestEntryOlderThanTTLIsIgnored(t *testing.T) {
	t.Parallel()
	clock := engine.NewVirtualClock(time.Now())
	c := openInternal(t, clock)
	ctx := t.Context()
	k := stale{c.key("inst", "i-1"), time.Minute}
	c.fill(ctx, k.key, c.get(ctx, k.key, k.ttl), []byte(`"v"`), k.ttl)
	require.True(t, c.get(ctx, k.key, k.ttl).hit)

	// An entry restored from an old RDB file, or kept by a Redis that missed
	// invalidations, still expires by the time its read started.
	clock.Advance(k.ttl + time.Second)
	require.False(t, c.get(ctx, k.key, k.ttl).hit)
}

func TestForeignValueIsReplaced(t *testing.T) {
	t.Parallel()
	c := openInternal(t, nil)
	ctx := t.Context()
	k := stale{c.key("inst", "i-1"), time.Minute}
	require.NoError(t, c.rdb.Set(ctx, k.key, "not an entry", 0).Err())
	require.False(t, c.get(ctx, k.key, k.ttl).hit)
	ok, _ := c.Health()
	require.True(t, ok, "a wrong value is no Redis failure")
	l := c.get(ctx, k.key, k.ttl)
	c.fill(ctx, k.key, l, []byte(`"v"`), k.ttl)
	require.True(t, c.get(ctx, k.key, k.ttl).hit)
}
