package queue

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// ErrClosed is returned by Push after Close, and by Pop once a closed queue
// is drained.
var ErrClosed = errors.New("queue: closed")

// Queue is a Ring with blocking Push and Pop for worker pools. A full queue
// applies backpressure: Push waits for space and never drops a value.
type Queue[T any] struct {
	ring     *Ring[T]
	notEmpty waitSet // Pop sleepers
	notFull  waitSet // Push sleepers

	// closeMu is held shared by each non-blocking push attempt and
	// exclusively by Close while it sets closed. Once Pop sees closed, every
	// push that will ever succeed has completed, so an empty ring then really
	// is the end: a Push that returned nil is always handed to some Pop.
	closeMu   sync.RWMutex
	closed    atomic.Bool
	done      chan struct{} // closed by Close; wakes all sleepers
	closeOnce sync.Once
}

// NewQueue returns an open queue holding at least capacity values (see
// NewRing for rounding and panics).
func NewQueue[T any](capacity int) *Queue[T] {
	return &Queue[T]{
		ring:     NewRing[T](capacity),
		notEmpty: newWaitSet(),
		notFull:  newWaitSet(),
		done:     make(chan struct{}),
	}
}

// Push appends v, waiting while the queue is full. It returns ErrClosed if
// the queue is closed before v is accepted, or ctx's error if ctx is done
// first; in both cases v was not enqueued.
func (q *Queue[T]) Push(ctx context.Context, v T) error {
	switch ok, err := q.tryPush(v); {
	case err != nil:
		return err
	case ok:
		q.notEmpty.wake()
		return nil
	}
	return q.pushSlow(ctx, v)
}

func (q *Queue[T]) pushSlow(ctx context.Context, v T) error {
	for {
		q.notFull.register()
		ok, err := q.tryPush(v) // re-check after registering: see waitSet
		if !ok && err == nil {
			select {
			case <-q.notFull.ch:
			case <-q.done:
			case <-ctx.Done():
				err = ctx.Err()
			}
		}
		q.notFull.unregister()
		if err != nil {
			return err
		}
		if ok {
			q.notEmpty.wake()
			q.notFull.wake() // pass on a merged wake to the next pusher
			return nil
		}
	}
}

func (q *Queue[T]) tryPush(v T) (bool, error) {
	q.closeMu.RLock()
	defer q.closeMu.RUnlock()
	if q.closed.Load() {
		return false, ErrClosed
	}
	return q.ring.TryPush(v), nil
}

// Pop removes the oldest value, waiting while the queue is empty. After Close
// it keeps returning values until the queue is drained, then ErrClosed. It
// returns ctx's error if ctx is done first.
func (q *Queue[T]) Pop(ctx context.Context) (T, error) {
	if v, ok := q.ring.TryPop(); ok {
		q.notFull.wake()
		return v, nil
	}
	return q.popSlow(ctx)
}

func (q *Queue[T]) popSlow(ctx context.Context) (T, error) {
	for {
		q.notEmpty.register()
		// closed is read before the re-check: once it is true no push is in
		// flight, so an empty ring then is final.
		closed := q.closed.Load()
		v, ok := q.ring.TryPop() // re-check after registering: see waitSet
		var err error
		if !ok {
			if closed {
				err = ErrClosed
			} else {
				select {
				case <-q.notEmpty.ch:
				case <-q.done:
				case <-ctx.Done():
					err = ctx.Err()
				}
			}
		}
		q.notEmpty.unregister()
		if ok {
			q.notFull.wake()
			q.notEmpty.wake() // pass on a merged wake to the next popper
			return v, nil
		}
		if err != nil {
			var zero T
			return zero, err
		}
	}
}

// Close stops accepting values and wakes every waiting Push (which returns
// ErrClosed) and Pop (which drains what is left first). Close is idempotent.
func (q *Queue[T]) Close() {
	q.closeOnce.Do(func() {
		q.closeMu.Lock()
		q.closed.Store(true)
		q.closeMu.Unlock()
		close(q.done)
	})
}

// Len returns the approximate number of queued values.
func (q *Queue[T]) Len() int { return q.ring.Len() }

// Cap returns the queue's capacity.
func (q *Queue[T]) Cap() int { return q.ring.Cap() }
