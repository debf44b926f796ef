package cache_test

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

// replicaLimiters returns the limiters of two replicas sharing srv.
func replicaLimiters(t *testing.T, srv *redistest.Server, rate float64, burst int) (la, lb *cache.Limiter) {
	t.Helper()
	prefix := redistest.Prefix(t)
	la, err := open(t, srv, cache.Config{Prefix: prefix}).Limiter(rate, burst)
	require.NoError(t, err)
	lb, err = open(t, srv, cache.Config{Prefix: prefix}).Limiter(rate, burst)
	require.NoError(t, err)
	return la, lb
}

func TestLimiterSharedAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	la, lb := replicaLimiters(t, srv, 0.001, 3)
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

	// Without Redis each replica has a bucket of its own. (A key Redis
	// said is empty stays refused here until its next token is due.)
	srv.Stop()
	allowed = 0
	for range 5 {
		if ok, _ := la.Allow(ctx, "fax"); ok {
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

// A busy key takes its tokens from Redis a reservation at a time: one
// round trip serves many calls, and the replicas together still get no
// more than the shared bucket holds.
func TestLimiterReservesTokensOfABusyKey(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	// 500 tokens a second, burst 40: reservations of 4 (a tenth of the burst).
	la, lb := replicaLimiters(t, srv, 500, 40)
	ctx := t.Context()
	before := scriptCalls(t, srv)

	begin := time.Now()
	allowed, calls := 0, 0
	for range 200 {
		for _, l := range []*cache.Limiter{la, lb} {
			calls++
			if ok, _ := l.Allow(ctx, "hook"); ok {
				allowed++
			}
		}
	}
	elapsed := time.Since(begin)
	// The bucket held 40 and refilled at 500/s; reservations add nothing.
	require.LessOrEqual(t, float64(allowed), 40+500*elapsed.Seconds()+1, "allowed %d in %s", allowed, elapsed)
	require.GreaterOrEqual(t, allowed, 30, "most of the burst is spent, not lost in reservations")
	roundTrips := scriptCalls(t, srv) - before
	require.Less(t, roundTrips, calls/2, "%d Redis calls for %d Allow calls", roundTrips, calls)
}

// scriptCalls is how many scripts srv has run (EVALSHA and EVAL).
func scriptCalls(t *testing.T, srv *redistest.Server) int {
	t.Helper()
	opt, err := redis.ParseURL(srv.URL())
	require.NoError(t, err)
	rdb := redis.NewClient(opt)
	defer func() { _ = rdb.Close() }()
	info, err := rdb.Info(t.Context(), "commandstats").Result()
	require.NoError(t, err)
	n := 0
	for line := range strings.Lines(info) {
		for _, cmd := range []string{"cmdstat_evalsha:", "cmdstat_eval:"} {
			if rest, ok := strings.CutPrefix(line, cmd); ok {
				calls, _, _ := strings.Cut(strings.TrimPrefix(rest, "calls="), ",")
				v, err := strconv.Atoi(calls)
				require.NoError(t, err, "commandstats line %q", line)
				n += v
			}
		}
	}
	return n
}

// Calls of one key arriving together on a replica share one round trip:
// they do not each take a reservation (which would empty the bucket).
func TestLimiterConcurrentCallsShareAReservation(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	l, err := open(t, srv, cache.Config{}).Limiter(1_000_000, 100_000)
	require.NoError(t, err)
	before := scriptCalls(t, srv)
	var refused atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 500 {
				if ok, _ := l.Allow(t.Context(), "client"); !ok {
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	require.Zero(t, refused.Load(), "8,000 calls under a limit of a million a second (burst 100,000)")
	require.Less(t, scriptCalls(t, srv)-before, 8000/4)
}
