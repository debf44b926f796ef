package cache_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/storetest"
)

func newStepCache(t *testing.T, srv *redistest.Server, prefix string) *cache.StepCache {
	c := srv.Client()
	t.Cleanup(func() { _ = c.Close() })
	sc, err := cache.NewStepCache(cache.StepCacheConfig{Client: c, Prefix: prefix, OpTimeout: testOpTimeout})
	require.NoError(t, err)
	return sc
}

func TestStepCacheConformance(t *testing.T) {
	t.Parallel()
	storetest.StepCache(t, newStepCache(t, redistest.Start(t), redistest.Prefix(t)))
}

// TestStepCacheExpiresInRedis: Redis itself drops an entry once its TTL
// (PX) has passed, whatever time the reader gives.
func TestStepCacheExpiresInRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	sc := newStepCache(t, srv, prefix)
	now := time.Now()
	require.NoError(t, sc.PutCacheEntry(t.Context(), engine.CacheEntry{
		Key: "global:price:a", Scope: "global", Value: []byte(`{}`), Created: now, Expires: now.Add(50 * time.Millisecond),
	}))
	c := srv.Client()
	t.Cleanup(func() { _ = c.Close() })
	ttl, err := c.PTTL(t.Context(), prefix+"global:price:a").Result()
	require.NoError(t, err)
	require.Positive(t, ttl, "the entry is stored with a TTL")
	require.LessOrEqual(t, ttl, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		n, err := c.Exists(t.Context(), prefix+"global:price:a").Result()
		return err == nil && n == 0
	}, 10*time.Second, 10*time.Millisecond)
	_, err = sc.CacheEntry(t.Context(), "global:price:a", now)
	require.ErrorIs(t, err, engine.ErrNotFound)
}
