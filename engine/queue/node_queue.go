package queue

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workflowpp/wfpp/engine/clock"
)

// NodeQueue holds the work of one executable node: a ring per priority, a
// lease table with visibility timeouts, retries with backoff, dead-lettering,
// and a concurrency and rate limit on leasing.
type NodeQueue[T any] struct {
	cfg   Config[T]
	clock clock.Clock

	rings [NumPriorities]*Ring[Item[T]]
	ready waitSet                // Lease sleepers: some ring is not empty
	space [NumPriorities]waitSet // Enqueue sleepers: ring p is not full

	slots  chan struct{} // one token per outstanding lease
	bucket *tokenBucket  // nil without RateLimit

	kick         chan struct{} // wakes Run early
	runAt        atomic.Int64  // when Run next reaps, unix ns; 0 when not running, idle when nothing is leased or delayed
	reapTimer    clock.Timer   // Run's pending wake-up, under mu; nil when idle
	retryBlocked atomic.Bool   // a due retry found its ring full at the last Reap

	mu           sync.Mutex
	leases       map[uint64]leaseEntry[T]
	lastToken    uint64
	retries      []retry[T]
	deadLettered uint64
}

// NewNodeQueue returns an empty queue. Call Run to have expired leases and
// due retries re-queued in the background, or call Reap yourself.
func NewNodeQueue[T any](cfg Config[T]) (*NodeQueue[T], error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	q := &NodeQueue[T]{
		cfg:    cfg,
		clock:  cfg.Clock,
		ready:  newWaitSet(),
		slots:  make(chan struct{}, cfg.Concurrency),
		kick:   make(chan struct{}, 1),
		leases: make(map[uint64]leaseEntry[T]),
	}
	for p := range q.rings {
		q.rings[p] = NewRing[Item[T]](cfg.Capacity)
		q.space[p] = newWaitSet()
	}
	if cfg.RateLimit > 0 {
		q.bucket = newTokenBucket(cfg.RateLimit, cfg.Burst, q.clock.Now())
	}
	return q, nil
}

// Enqueue adds item to the ring of its priority, waiting while that ring is
// full (backpressure: an item is never dropped). It fails only if ctx is done
// first or the priority is unknown; the item is then not enqueued.
func (q *NodeQueue[T]) Enqueue(ctx context.Context, item Item[T]) error {
	if item.Priority >= NumPriorities {
		return fmt.Errorf("enqueueing item %d: unknown %v, use PriorityHigh, PriorityNormal or PriorityLow", item.ID, item.Priority)
	}
	ring, space := q.rings[item.Priority], &q.space[item.Priority]
	if ring.TryPush(item) {
		q.ready.wake()
		return nil
	}
	for {
		space.register()
		ok := ring.TryPush(item) // re-check after registering: see waitSet
		var err error
		if !ok {
			select {
			case <-space.ch:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		space.unregister()
		if ok {
			q.ready.wake()
			space.wake() // pass on a merged wake
			return nil
		}
		if err != nil {
			return fmt.Errorf("enqueueing item %d: queue full: %w", item.ID, err)
		}
	}
}

// Lease waits for a free concurrency slot, a rate-limit token and a ready
// item, highest priority first, and leases the item until
// now+VisibilityTimeout. It fails only if ctx is done first.
func (q *NodeQueue[T]) Lease(ctx context.Context) (Lease[T], error) {
	select {
	case q.slots <- struct{}{}: // fast path: a ready item is leased even if ctx is done
	default:
		select {
		case q.slots <- struct{}{}:
		case <-ctx.Done():
			return Lease[T]{}, fmt.Errorf("leasing: waiting for a concurrency slot: %w", ctx.Err())
		}
	}
	if err := q.waitRate(ctx); err != nil {
		<-q.slots
		return Lease[T]{}, fmt.Errorf("leasing: waiting for the rate limit: %w", err)
	}
	item, err := q.take(ctx)
	if err != nil {
		if q.bucket != nil {
			q.bucket.refund(q.clock.Now())
		}
		<-q.slots
		return Lease[T]{}, fmt.Errorf("leasing: waiting for an item: %w", err)
	}

	item.Attempts++
	deadline := q.clock.Now().Add(q.cfg.VisibilityTimeout)
	q.mu.Lock()
	q.lastToken++
	token := q.lastToken
	q.leases[token] = leaseEntry[T]{item: item, deadline: deadline}
	q.mu.Unlock()
	q.kickIfBefore(deadline)
	return Lease[T]{Item: item, Deadline: deadline, token: token}, nil
}

// waitRate takes a token from the rate limiter, waiting on the clock.
func (q *NodeQueue[T]) waitRate(ctx context.Context) error {
	if q.bucket == nil {
		return nil
	}
	for {
		wait := q.bucket.take(q.clock.Now())
		if wait == 0 {
			return nil
		}
		due := make(chan struct{})
		t := q.clock.AfterFunc(wait, func() { close(due) })
		select {
		case <-due:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}

// take pops the oldest item of the highest non-empty priority, waiting while
// all rings are empty.
func (q *NodeQueue[T]) take(ctx context.Context) (Item[T], error) {
	if item, ok := q.tryTake(); ok {
		return item, nil
	}
	for {
		q.ready.register()
		item, ok := q.tryTake() // re-check after registering: see waitSet
		var err error
		if !ok {
			select {
			case <-q.ready.ch:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		q.ready.unregister()
		if ok {
			q.ready.wake() // pass on a merged wake
			return item, nil
		}
		if err != nil {
			return Item[T]{}, err
		}
	}
}

func (q *NodeQueue[T]) tryTake() (Item[T], bool) {
	for _, p := range leaseOrder {
		if item, ok := q.rings[p].TryPop(); ok {
			q.space[p].wake()
			if q.retryBlocked.Load() {
				q.wakeRun()
			}
			return item, true
		}
	}
	return Item[T]{}, false
}

// Ack ends a lease successfully: the item is done and leaves the queue.
func (q *NodeQueue[T]) Ack(l Lease[T]) error {
	if err := q.endLease(l); err != nil {
		return fmt.Errorf("acking item %d: %w", l.Item.ID, err)
	}
	return nil
}

// Nack ends a lease unsuccessfully. The item is ready again after
// Backoff(attempts) or, if it has had MaxAttempts leases, goes to DeadLetter
// with a reason wrapping ErrMaxAttempts and reason.
func (q *NodeQueue[T]) Nack(l Lease[T], reason error) error {
	if reason == nil {
		reason = errNoReason
	}
	q.mu.Lock()
	e, ok := q.leases[l.token]
	if !ok {
		q.mu.Unlock()
		return fmt.Errorf("nacking item %d: %w", l.Item.ID, ErrLeaseNotFound)
	}
	delete(q.leases, l.token)
	if e.item.Attempts >= q.cfg.MaxAttempts {
		q.deadLettered++
		q.mu.Unlock()
		<-q.slots
		q.cfg.DeadLetter(e.item, outOfAttempts(e.item, reason))
		return nil
	}
	due := q.clock.Now().Add(q.cfg.Backoff(e.item.Attempts))
	q.retries = append(q.retries, retry[T]{item: e.item, due: due})
	q.mu.Unlock()
	<-q.slots
	q.kickIfBefore(due)
	return nil
}

// Extend moves the lease's deadline to now+d and returns the updated lease.
func (q *NodeQueue[T]) Extend(l Lease[T], d time.Duration) (Lease[T], error) {
	if d <= 0 {
		return l, fmt.Errorf("extending lease of item %d: duration must be positive, got %s", l.Item.ID, d)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.leases[l.token]
	if !ok {
		return l, fmt.Errorf("extending lease of item %d: %w", l.Item.ID, ErrLeaseNotFound)
	}
	e.deadline = q.clock.Now().Add(d)
	q.leases[l.token] = e
	l.Deadline = e.deadline
	return l, nil
}

// endLease removes l from the lease table and frees its concurrency slot.
func (q *NodeQueue[T]) endLease(l Lease[T]) error {
	q.mu.Lock()
	_, ok := q.leases[l.token]
	delete(q.leases, l.token)
	q.idleLocked()
	q.mu.Unlock()
	if !ok {
		return ErrLeaseNotFound
	}
	<-q.slots
	return nil
}

// idleLocked stops Run's wake-up once nothing is leased or delayed: on a
// virtual clock a pending wake-up would otherwise be the next thing to
// happen, and move time for nothing. The next Lease or Nack wakes Run.
func (q *NodeQueue[T]) idleLocked() {
	if len(q.leases) > 0 || len(q.retries) > 0 || q.reapTimer == nil {
		return
	}
	q.reapTimer.Stop()
	q.reapTimer = nil
	q.runAt.Store(idle)
}

// idle is runAt while Run waits for work with no wake-up: any deadline is
// before it, so the first Lease or Nack kicks Run.
const idle = math.MaxInt64

func outOfAttempts[T any](item Item[T], cause error) error {
	return fmt.Errorf("%w after %d attempts: %w", ErrMaxAttempts, item.Attempts, cause)
}
