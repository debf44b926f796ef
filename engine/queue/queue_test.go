package queue

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// waitForSleepers waits until n goroutines are registered in w.
func waitForSleepers(t *testing.T, w *waitSet, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return w.waiters.Load() == n },
		waitLimit, time.Millisecond, "expected %d sleepers", n)
}

func TestQueuePushWaitsWhileFull(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	q := NewQueue[int](2)
	require.NoError(t, q.Push(ctx, 1))
	require.NoError(t, q.Push(ctx, 2))

	pushed := goResult(func() error { return q.Push(ctx, 3) })
	waitForSleepers(t, &q.notFull, 1)
	requireNothing(t, pushed, "Push into a full queue returned")
	require.Equal(t, 2, q.Len())

	v, err := q.Pop(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, v)
	require.NoError(t, receive(t, pushed))
	for _, want := range []int{2, 3} {
		v, err := q.Pop(ctx)
		require.NoError(t, err)
		require.Equal(t, want, v)
	}
}

func TestQueuePopWaitsWhileEmpty(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	q := NewQueue[string](4)
	popped := goResult(func() string { v, _ := q.Pop(ctx); return v })
	waitForSleepers(t, &q.notEmpty, 1)
	requireNothing(t, popped, "Pop from an empty queue returned")
	require.NoError(t, q.Push(ctx, "a"))
	require.Equal(t, "a", receive(t, popped))
}

// TestQueueWakesEverySleeper wakes two sleepers with two quick operations;
// both must return. (When the two wakes merge in the capacity-1 channel the
// first sleeper passes its turn on; that window is narrow, so this test
// covers it only sometimes.)
func TestQueueWakesEverySleeper(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	q := NewQueue[int](2)
	pop := func() error { _, err := q.Pop(ctx); return err }
	popped1, popped2 := goResult(pop), goResult(pop)
	waitForSleepers(t, &q.notEmpty, 2)
	require.NoError(t, q.Push(ctx, 1))
	require.NoError(t, q.Push(ctx, 2))
	require.NoError(t, receive(t, popped1))
	require.NoError(t, receive(t, popped2))

	require.NoError(t, q.Push(ctx, 1))
	require.NoError(t, q.Push(ctx, 2))
	push := func() error { return q.Push(ctx, 3) }
	pushed1, pushed2 := goResult(push), goResult(push)
	waitForSleepers(t, &q.notFull, 2)
	_, err := q.Pop(ctx)
	require.NoError(t, err)
	_, err = q.Pop(ctx)
	require.NoError(t, err)
	require.NoError(t, receive(t, pushed1))
	require.NoError(t, receive(t, pushed2))
}

func TestQueueCloseDrainsThenErrClosed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	q := NewQueue[int](4)
	for i := range 3 {
		require.NoError(t, q.Push(ctx, i))
	}
	q.Close()
	q.Close() // idempotent
	require.ErrorIs(t, q.Push(ctx, 9), ErrClosed)
	for i := range 3 {
		v, err := q.Pop(ctx)
		require.NoError(t, err)
		require.Equal(t, i, v)
	}
	_, err := q.Pop(ctx)
	require.ErrorIs(t, err, ErrClosed)
}

func TestQueueCloseWakesSleepers(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	empty := NewQueue[int](2)
	full := NewQueue[int](2)
	require.NoError(t, full.Push(ctx, 1))
	require.NoError(t, full.Push(ctx, 1))

	popped := goResult(func() error { _, err := empty.Pop(ctx); return err })
	pushed := goResult(func() error { return full.Push(ctx, 2) })
	waitForSleepers(t, &empty.notEmpty, 1)
	waitForSleepers(t, &full.notFull, 1)
	empty.Close()
	full.Close()
	require.ErrorIs(t, receive(t, popped), ErrClosed)
	require.ErrorIs(t, receive(t, pushed), ErrClosed)

	v, err := full.Pop(ctx) // what was in before Close is still delivered
	require.NoError(t, err)
	require.Equal(t, 1, v)
}

func TestQueueContextDone(t *testing.T) {
	t.Parallel()
	q := NewQueue[int](2)
	ctx, cancel := context.WithCancel(t.Context())
	popped := goResult(func() error { _, err := q.Pop(ctx); return err })
	waitForSleepers(t, &q.notEmpty, 1)
	cancel()
	require.ErrorIs(t, receive(t, popped), context.Canceled)

	require.NoError(t, q.Push(t.Context(), 1))
	require.NoError(t, q.Push(t.Context(), 1))
	short, cancelShort := context.WithTimeout(t.Context(), time.Millisecond)
	defer cancelShort()
	require.ErrorIs(t, q.Push(short, 2), context.DeadlineExceeded)
	require.Equal(t, 2, q.Len(), "a timed-out Push must not enqueue")
	require.Zero(t, q.notFull.waiters.Load())
	require.Zero(t, q.notEmpty.waiters.Load())
}

// TestQueueConcurrentWithClose pushes and pops from many goroutines through
// a tiny queue, closes it midway, and checks that exactly the values whose
// Push returned nil came out of Pop — none lost, none invented — and that no
// goroutine stays asleep.
func TestQueueConcurrentWithClose(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	const (
		producers   = 4
		consumers   = 4
		perProducer = 20_000
	)
	q := NewQueue[int](4)

	accepted := make([][]int, producers)
	var pushers sync.WaitGroup
	for p := range producers {
		pushers.Go(func() {
			for i := range perProducer {
				v := p*perProducer + i
				if err := q.Push(ctx, v); err != nil {
					require.ErrorIs(t, err, ErrClosed)
					return
				}
				accepted[p] = append(accepted[p], v)
			}
		})
	}
	got := make([][]int, consumers)
	var popped atomic.Int64
	var poppers sync.WaitGroup
	for c := range consumers {
		poppers.Go(func() {
			for {
				v, err := q.Pop(ctx)
				if err != nil {
					require.ErrorIs(t, err, ErrClosed)
					return
				}
				got[c] = append(got[c], v)
				if popped.Add(1) == producers*perProducer/2 {
					q.Close()
				}
			}
		})
	}
	pushers.Wait()
	poppers.Wait()
	require.NoError(t, ctx.Err(), "producers or consumers got stuck")

	want := map[int]bool{}
	for _, vs := range accepted {
		for _, v := range vs {
			want[v] = true
		}
	}
	n := 0
	for _, vs := range got {
		for _, v := range vs {
			require.True(t, want[v], "popped %d, which was never accepted or was popped twice", v)
			delete(want, v)
			n++
		}
	}
	require.Empty(t, want, "accepted values never popped")
	require.Less(t, n, producers*perProducer, "Close came too late to test anything")
}
