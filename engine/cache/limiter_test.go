package cache_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

func TestLimiterSharedAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	la, err := open(t, srv, cache.Config{Prefix: prefix}).Limiter(0.001, 3)
	require.NoError(t, err)
	lb, err := open(t, srv, cache.Config{Prefix: prefix}).Limiter(0.001, 3)
	require.NoError(t, err)
	ctx := t.Context()

	allowed := 0
	for _, l := range []*cache.Limiter{la, lb, la, lb, la, lb} {
		if ok, _ := l.Allow(ctx, "mail"); ok {
			allowed++
		}
	}
	require.Equal(t, 3, allowed, "one bucket for both replicas")
	ok, wait := la.Allow(ctx, "mail")
	require.False(t, ok)
	require.Positive(t, wait)
	ok, _ = la.Allow(ctx, "sms")
	require.True(t, ok, "buckets are per key")

	// Without Redis each replica has a bucket of its own.
	srv.Stop()
	allowed = 0
	for range 5 {
		if ok, _ := la.Allow(ctx, "mail"); ok {
			allowed++
		}
	}
	require.Equal(t, 3, allowed)
}

func TestLimiterRejectsBadInput(t *testing.T) {
	t.Parallel()
	c := open(t, redistest.Start(t), cache.Config{})
	_, err := c.Limiter(0, 1)
	require.Error(t, err)
	_, err = c.Limiter(1, 0)
	require.Error(t, err)
}
