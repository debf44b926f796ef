package circuit_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/circuit"
	"github.com/workflowpp/wfpp/engine/clock"
)

func TestRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	testStore(t, func(t *testing.T, clk clock.Clock) circuit.Store {
		c := srv.Client()
		t.Cleanup(func() { _ = c.Close() })
		st, err := circuit.NewRedis(circuit.RedisConfig{Client: c, Clock: clk, Prefix: redistest.Prefix(t), OpTimeout: 2 * time.Second})
		require.NoError(t, err)
		return st
	})
}

// TestRedisShared: what one replica's calls did, another replica sees.
func TestRedisShared(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c1, c2 := srv.Client(), srv.Client()
	t.Cleanup(func() { _ = c1.Close(); _ = c2.Close() })
	prefix := redistest.Prefix(t)
	clk := newClock()
	one, err := circuit.NewRedis(circuit.RedisConfig{Client: c1, Clock: clk, Prefix: prefix, OpTimeout: 2 * time.Second})
	require.NoError(t, err)
	two, err := circuit.NewRedis(circuit.RedisConfig{Client: c2, Clock: clk, Prefix: prefix, OpTimeout: 2 * time.Second})
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 3 {
		st := []*circuit.Redis{one, two}[i%2]
		d, err := st.Allow(ctx, "shared", policy)
		require.NoError(t, err)
		_, err = st.Record(ctx, d.Ticket, policy, true)
		require.NoError(t, err)
	}
	d, err := two.Allow(ctx, "shared", policy)
	require.NoError(t, err)
	require.False(t, d.Allowed, "three failures across two replicas open the shared breaker")
	s := stateOf(t, one, "shared")
	require.Equal(t, circuit.Open, s.State)
	require.Equal(t, policy, s.Policy)
}

// TestRedisDown: while Redis does not answer, a replica judges by its own
// breakers; once it answers again, the shared state counts.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, DialerRetries: 1, DisableIdentity: true})
	t.Cleanup(func() { _ = c.Close() })
	st, err := circuit.NewRedis(circuit.RedisConfig{Client: c, Clock: newClock(), Prefix: redistest.Prefix(t), OpTimeout: 2 * time.Second, RetryAfter: time.Hour})
	require.NoError(t, err)
	ctx := context.Background()
	srv.Stop()
	for range 3 {
		d, err := st.Allow(ctx, "down", policy)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		_, err = st.Record(ctx, d.Ticket, policy, true)
		require.NoError(t, err)
	}
	d, err := st.Allow(ctx, "down", policy)
	require.NoError(t, err)
	require.False(t, d.Allowed, "the replica's own breaker opened")
	_, err = st.Statuses(ctx)
	require.Error(t, err, "the shared list needs Redis")
}
