package queue

import (
	"context"
	"time"
)

// Reap re-queues the items whose lease expired at now (or dead-letters them
// if that was their last attempt) and moves retries that are due into their
// rings. A due retry whose ring is full stays delayed until a later Reap (Run
// reaps again as soon as a Lease makes room). It returns when the next lease
// expires or retry falls due, zero if none.
func (q *NodeQueue[T]) Reap(now time.Time) (next time.Time) {
	var dead []Item[T]
	expired := 0
	pushed := false
	sooner := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}

	q.mu.Lock()
	for token, e := range q.leases {
		if now.Before(e.deadline) {
			sooner(e.deadline)
			continue
		}
		delete(q.leases, token)
		expired++
		if e.item.Attempts >= q.cfg.MaxAttempts {
			q.deadLettered++
			dead = append(dead, e.item)
			continue
		}
		q.retries = append(q.retries, retry[T]{item: e.item, due: now})
	}
	kept := q.retries[:0]
	blocked := false
	for _, r := range q.retries {
		switch {
		case now.Before(r.due):
			sooner(r.due)
		case q.rings[r.item.Priority].TryPush(r.item):
			pushed = true
			continue
		default:
			blocked = true
		}
		kept = append(kept, r)
	}
	q.retryBlocked.Store(blocked)
	clear(q.retries[len(kept):]) // let the GC have the payloads
	q.retries = kept
	q.mu.Unlock()

	for range expired {
		<-q.slots
	}
	if pushed {
		q.ready.wake()
	}
	for _, item := range dead {
		q.cfg.DeadLetter(item, outOfAttempts(item, ErrLeaseExpired))
	}
	return next
}

// Run calls Reap until ctx is done: when the next lease expires or retry is
// due, when a Lease makes room for a retry that found its ring full, and at
// least every ReapInterval while anything is leased or delayed. With nothing
// leased or delayed it sets no timer and waits to be kicked.
func (q *NodeQueue[T]) Run(ctx context.Context) {
	defer q.runAt.Store(0)
	for {
		now := q.clock.Now()
		next := q.Reap(now)
		q.mu.Lock()
		q.stopTimerLocked()
		if next.IsZero() && len(q.leases) == 0 && len(q.retries) == 0 {
			q.runAt.Store(idle)
		} else {
			wait := q.cfg.ReapInterval
			if !next.IsZero() {
				wait = min(wait, next.Sub(now))
			}
			q.runAt.Store(now.Add(wait).UnixNano())
			q.reapTimer = q.clock.AfterFunc(wait, q.wakeRun)
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			q.mu.Lock()
			q.stopTimerLocked()
			q.mu.Unlock()
			return
		case <-q.kick:
		}
	}
}

func (q *NodeQueue[T]) stopTimerLocked() {
	if q.reapTimer != nil {
		q.reapTimer.Stop()
		q.reapTimer = nil
	}
}

// kickIfBefore wakes Run if t is earlier than its next planned Reap.
func (q *NodeQueue[T]) kickIfBefore(t time.Time) {
	if at := q.runAt.Load(); at != 0 && t.UnixNano() < at {
		q.wakeRun()
	}
}

func (q *NodeQueue[T]) wakeRun() {
	select {
	case q.kick <- struct{}{}:
	default:
	}
}
