package queue

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type deadLetter struct {
	item   Item[string]
	reason error
}

type fixture struct {
	q     *NodeQueue[string]
	clock *fakeClock

	mu   sync.Mutex
	dead []deadLetter
}

func (f *fixture) deadLetters() []deadLetter {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]deadLetter(nil), f.dead...)
}

// setup returns a NodeQueue on a fake clock that records dead letters;
// cfg's zero fields get test-friendly values.
func setup(t *testing.T, cfg Config[string]) *fixture {
	t.Helper()
	f := &fixture{clock: newFakeClock()}
	cfg.Clock = f.clock
	cfg.DeadLetter = func(item Item[string], reason error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.dead = append(f.dead, deadLetter{item, reason})
	}
	if cfg.Backoff == nil {
		cfg.Backoff = func(attempt int) time.Duration { return time.Duration(attempt) * 10 * time.Second }
	}
	q, err := NewNodeQueue(cfg)
	require.NoError(t, err)
	f.q = q
	return f
}

func (f *fixture) enqueue(t *testing.T, items ...Item[string]) {
	t.Helper()
	for _, item := range items {
		require.NoError(t, f.q.Enqueue(t.Context(), item))
	}
}

// leaseNow leases a ready item without waiting.
func (f *fixture) leaseNow(t *testing.T) Lease[string] {
	t.Helper()
	l, err := f.q.Lease(doneContext())
	require.NoError(t, err)
	return l
}

// requireNoLease checks that Lease would have to wait.
func (f *fixture) requireNoLease(t *testing.T, waitingFor string) {
	t.Helper()
	l, err := f.q.Lease(doneContext())
	require.ErrorIs(t, err, context.Canceled, "leased %+v", l)
	require.ErrorContains(t, err, waitingFor)
}

func doneContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	_, err := NewNodeQueue(Config[int]{})
	require.ErrorContains(t, err, "DeadLetter is required")

	_, err = NewNodeQueue(Config[int]{
		Capacity: -1, RateLimit: -2, MaxAttempts: -1,
		DeadLetter: func(Item[int], error) {},
	})
	require.ErrorContains(t, err, "Capacity must be")
	require.ErrorContains(t, err, "RateLimit must be")
	require.ErrorContains(t, err, "MaxAttempts must be")

	cfg := Config[int]{}.WithDefaults()
	require.Equal(t, CapacityDefault, cfg.Capacity)
	require.Equal(t, VisibilityTimeoutDefault, cfg.VisibilityTimeout)
	require.Equal(t, ConcurrencyDefault, cfg.Concurrency)
	require.Equal(t, 4*time.Second, cfg.Backoff(3))
	require.Equal(t, 10*time.Minute, cfg.Backoff(1000))
}

func TestNodeQueueAck(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{})
	f.enqueue(t, Item[string]{ID: 7, Payload: "a"})
	require.Equal(t, 1, f.q.Stats().Depth[PriorityNormal])

	l := f.leaseNow(t)
	require.Equal(t, uint64(7), l.Item.ID)
	require.Equal(t, "a", l.Item.Payload)
	require.Equal(t, 1, l.Item.Attempts)
	require.Equal(t, f.clock.Now().Add(VisibilityTimeoutDefault), l.Deadline)
	require.Equal(t, Stats{Leased: 1}, f.q.Stats())

	require.NoError(t, f.q.Ack(l))
	require.Equal(t, Stats{}, f.q.Stats())
	require.ErrorIs(t, f.q.Ack(l), ErrLeaseNotFound)
	require.ErrorIs(t, f.q.Nack(l, nil), ErrLeaseNotFound)
	f.requireNoLease(t, "waiting for an item")
}

func TestNodeQueueNackRetriesAfterBackoff(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{}) // backoff: attempt × 10s
	f.enqueue(t, Item[string]{ID: 1})

	require.NoError(t, f.q.Nack(f.leaseNow(t), errors.New("boom")))
	require.Equal(t, Stats{Delayed: 1}, f.q.Stats())
	f.q.Reap(f.clock.Now())
	f.requireNoLease(t, "waiting for an item")

	f.clock.Advance(10*time.Second - 1)
	f.q.Reap(f.clock.Now())
	f.requireNoLease(t, "waiting for an item")

	f.clock.Advance(1)
	f.q.Reap(f.clock.Now())
	l := f.leaseNow(t)
	require.Equal(t, 2, l.Item.Attempts)

	require.NoError(t, f.q.Nack(l, errors.New("boom")))
	f.clock.Advance(20*time.Second - 1) // second backoff is longer
	f.q.Reap(f.clock.Now())
	f.requireNoLease(t, "waiting for an item")
	f.clock.Advance(1)
	f.q.Reap(f.clock.Now())
	require.Equal(t, 3, f.leaseNow(t).Item.Attempts)
	require.Empty(t, f.deadLetters())
}

func TestNodeQueueDeadLetterAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{MaxAttempts: 2})
	f.enqueue(t, Item[string]{ID: 1, Payload: "poison"})
	cause := errors.New("bad input")

	require.NoError(t, f.q.Nack(f.leaseNow(t), cause))
	f.clock.Advance(time.Hour)
	f.q.Reap(f.clock.Now())
	require.NoError(t, f.q.Nack(f.leaseNow(t), cause))

	dead := f.deadLetters()
	require.Len(t, dead, 1)
	require.Equal(t, "poison", dead[0].item.Payload)
	require.Equal(t, 2, dead[0].item.Attempts)
	require.ErrorIs(t, dead[0].reason, ErrMaxAttempts)
	require.ErrorIs(t, dead[0].reason, cause)
	require.Equal(t, Stats{DeadLettered: 1}, f.q.Stats())
	f.clock.Advance(time.Hour)
	f.q.Reap(f.clock.Now())
	f.requireNoLease(t, "waiting for an item")
}

func TestNodeQueueExpiredLeaseIsRequeued(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{VisibilityTimeout: 30 * time.Second, MaxAttempts: 2})
	f.enqueue(t, Item[string]{ID: 1})
	first := f.leaseNow(t)

	f.clock.Advance(29 * time.Second)
	require.Equal(t, first.Deadline, f.q.Reap(f.clock.Now()), "Reap reports the next deadline")
	f.requireNoLease(t, "waiting for an item")

	first, err := f.q.Extend(first, 10*time.Second) // now due at 39s
	require.NoError(t, err)
	f.clock.Advance(2 * time.Second)
	f.q.Reap(f.clock.Now())
	require.Equal(t, 1, f.q.Stats().Leased)

	f.clock.Advance(8 * time.Second) // 39s: expired
	require.True(t, f.q.Reap(f.clock.Now()).IsZero())
	second := f.leaseNow(t)
	require.Equal(t, uint64(1), second.Item.ID)
	require.Equal(t, 2, second.Item.Attempts)
	require.ErrorIs(t, f.q.Ack(first), ErrLeaseNotFound, "the expired lease is gone")
	_, err = f.q.Extend(first, time.Second)
	require.ErrorIs(t, err, ErrLeaseNotFound)

	// The last attempt expiring dead-letters the item.
	f.clock.Advance(30 * time.Second)
	f.q.Reap(f.clock.Now())
	dead := f.deadLetters()
	require.Len(t, dead, 1)
	require.ErrorIs(t, dead[0].reason, ErrLeaseExpired)
	require.ErrorIs(t, dead[0].reason, ErrMaxAttempts)
	require.Equal(t, Stats{DeadLettered: 1}, f.q.Stats())
}

func TestNodeQueueLeasesHigherPriorityFirst(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{})
	f.enqueue(t,
		Item[string]{Payload: "low1", Priority: PriorityLow},
		Item[string]{Payload: "normal1"},
		Item[string]{Payload: "high1", Priority: PriorityHigh},
		Item[string]{Payload: "low2", Priority: PriorityLow},
		Item[string]{Payload: "high2", Priority: PriorityHigh},
		Item[string]{Payload: "normal2", Priority: PriorityNormal},
	)
	require.Equal(t, [NumPriorities]int{PriorityHigh: 2, PriorityNormal: 2, PriorityLow: 2}, f.q.Stats().Depth)
	var got []string
	for range 6 {
		got = append(got, f.leaseNow(t).Item.Payload)
	}
	require.Equal(t, []string{"high1", "high2", "normal1", "normal2", "low1", "low2"}, got)

	err := f.q.Enqueue(t.Context(), Item[string]{Priority: 7})
	require.ErrorContains(t, err, "unknown Priority(7)")
}

func TestNodeQueueConcurrencyLimit(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{Concurrency: 2})
	f.enqueue(t, Item[string]{ID: 1}, Item[string]{ID: 2}, Item[string]{ID: 3}, Item[string]{ID: 4})
	a, b := f.leaseNow(t), f.leaseNow(t)
	f.requireNoLease(t, "waiting for a concurrency slot")

	third := goResult(func() error { _, err := f.q.Lease(t.Context()); return err })
	requireNothing(t, third, "Lease beyond the concurrency limit returned")
	require.NoError(t, f.q.Ack(a))
	require.NoError(t, receive(t, third))
	f.requireNoLease(t, "waiting for a concurrency slot")

	require.NoError(t, f.q.Nack(b, nil)) // a nack frees the slot too
	require.Equal(t, uint64(4), f.leaseNow(t).Item.ID)
	require.Equal(t, 2, f.q.Stats().Leased)
}

func TestNodeQueueRateLimit(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{RateLimit: 2, Burst: 2}) // one token per 500ms
	for i := range 5 {
		f.enqueue(t, Item[string]{ID: uint64(i)})
	}
	f.leaseNow(t)
	f.leaseNow(t) // the burst
	f.requireNoLease(t, "waiting for the rate limit")

	leased := goResult(func() error { _, err := f.q.Lease(t.Context()); return err })
	f.clock.waitForTimer(t, f.clock.Now().Add(500*time.Millisecond))
	f.clock.Advance(499 * time.Millisecond)
	requireNothing(t, leased, "Lease returned before a token was due")
	f.clock.Advance(time.Millisecond)
	require.NoError(t, receive(t, leased))
	f.requireNoLease(t, "waiting for the rate limit")

	f.clock.Advance(time.Hour) // refills up to Burst only
	f.leaseNow(t)
	f.leaseNow(t)
	f.requireNoLease(t, "waiting for the rate limit")

	f.clock.Advance(time.Hour)
	f.requireNoLease(t, "waiting for an item") // the token taken is refunded...
	f.enqueue(t, Item[string]{ID: 8}, Item[string]{ID: 9})
	f.leaseNow(t)
	f.leaseNow(t) // ...so the full burst is still there
	require.Equal(t, 7, f.q.Stats().Leased)
}

func TestNodeQueueEnqueueWaitsWhileFull(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{Capacity: 2})
	f.enqueue(t, Item[string]{ID: 1}, Item[string]{ID: 2})
	err := f.q.Enqueue(doneContext(), Item[string]{ID: 3})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "queue full")
	f.enqueue(t, Item[string]{ID: 4, Priority: PriorityHigh}) // other rings have room

	enqueued := goResult(func() error { return f.q.Enqueue(t.Context(), Item[string]{ID: 5}) })
	waitForSleepers(t, &f.q.space[PriorityNormal], 1)
	requireNothing(t, enqueued, "Enqueue into a full ring returned")
	require.Equal(t, uint64(4), f.leaseNow(t).Item.ID) // frees no normal slot
	requireNothing(t, enqueued, "Enqueue into a full ring returned")
	require.Equal(t, uint64(1), f.leaseNow(t).Item.ID)
	require.NoError(t, receive(t, enqueued))
	require.Equal(t, uint64(2), f.leaseNow(t).Item.ID)
	require.Equal(t, uint64(5), f.leaseNow(t).Item.ID)
}

func TestNodeQueueRetryWaitsForRoom(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{Capacity: 2, Concurrency: 3})
	f.enqueue(t, Item[string]{ID: 1})
	l := f.leaseNow(t)
	f.enqueue(t, Item[string]{ID: 2}, Item[string]{ID: 3}) // ring full
	require.NoError(t, f.q.Nack(l, nil))
	f.clock.Advance(time.Hour)
	f.q.Reap(f.clock.Now())
	require.Equal(t, 1, f.q.Stats().Delayed, "a due retry must wait, not be dropped")

	require.Equal(t, uint64(2), f.leaseNow(t).Item.ID)
	f.q.Reap(f.clock.Now())
	require.Equal(t, uint64(3), f.leaseNow(t).Item.ID)
	require.Equal(t, uint64(1), f.leaseNow(t).Item.ID)
}

func TestNodeQueueRunReapsInBackground(t *testing.T) {
	t.Parallel()
	f := setup(t, Config[string]{ReapInterval: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	stopped := goResult(func() struct{} { f.q.Run(ctx); return struct{}{} })

	f.enqueue(t, Item[string]{ID: 1})
	l := f.leaseNow(t) // a lease wakes Run for its deadline
	f.clock.waitForTimer(t, l.Deadline)
	require.NoError(t, f.q.Nack(l, nil)) // due in 10s: wakes Run
	f.clock.waitForTimer(t, f.clock.Now().Add(10*time.Second))

	leased := goResult(func() Lease[string] { l, err := f.q.Lease(t.Context()); require.NoError(t, err); return l })
	requireNothing(t, leased, "leased before the backoff passed")
	f.clock.Advance(10 * time.Second)
	require.NoError(t, f.q.Ack(receive(t, leased)))
	f.clock.waitForNoTimer(t) // nothing leased or delayed: Run sets no timer

	cancel()
	receive(t, stopped)
}

// TestNodeQueueConcurrentWorkers runs producers and workers on the real clock
// with Run in the background; every item must end exactly once, acked or
// dead-lettered, whatever the interleaving.
func TestNodeQueueConcurrentWorkers(t *testing.T) {
	t.Parallel()
	const (
		producers   = 4
		workers     = 4
		perProducer = 2_000
		total       = producers * perProducer
	)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	var mu sync.Mutex
	ended := make(map[uint64]int, total)
	end := func(id uint64) {
		mu.Lock()
		defer mu.Unlock()
		ended[id]++
		if len(ended) == total {
			cancel() // all done: stop workers and Run
		}
	}
	q, err := NewNodeQueue(Config[int]{
		Capacity:    8,
		Concurrency: 3,
		MaxAttempts: 3,
		Backoff:     func(int) time.Duration { return time.Microsecond },
		DeadLetter:  func(item Item[int], _ error) { end(item.ID) },
	})
	require.NoError(t, err)

	var wg sync.WaitGroup
	wg.Go(func() { q.Run(ctx) })
	for p := range producers {
		wg.Go(func() {
			for i := range perProducer {
				id := uint64(p*perProducer + i)
				item := Item[int]{ID: id, Priority: Priority(id % NumPriorities)}
				if q.Enqueue(ctx, item) != nil {
					return
				}
			}
		})
	}
	for range workers {
		wg.Go(func() {
			for {
				l, err := q.Lease(ctx)
				if err != nil {
					return
				}
				if l.Item.ID%4 == 0 { // fails every time: dead-lettered
					require.NoError(t, q.Nack(l, errors.New("boom")))
					continue
				}
				require.NoError(t, q.Ack(l))
				end(l.Item.ID)
			}
		})
	}
	wg.Wait()

	require.Equal(t, total, len(ended), "items neither acked nor dead-lettered before the deadline; %+v", q.Stats())
	for id, n := range ended {
		require.Equal(t, 1, n, "item %d ended %d times", id, n)
	}
	s := q.Stats()
	require.Equal(t, uint64(total/4), s.DeadLettered)
	require.Zero(t, s.Leased)
}
