package queue

import (
	"fmt"
	"math/bits"
	"sync/atomic"
)

// cacheLineSize is the padding unit between hot counters. 128 rather than 64
// because Intel's adjacent-line prefetcher pulls cache lines in pairs, so two
// counters 64 bytes apart still false-share.
const cacheLineSize = 128

// Ring is a bounded multi-producer multi-consumer lock-free FIFO
// (Dmitry Vyukov's bounded MPMC queue).
//
// Each slot carries a sequence number telling whose turn it is: a producer may
// fill slot i at position pos when seq == pos, a consumer may empty it when
// seq == pos+1. A position is claimed by a CAS on tail (producers) or head
// (consumers); the slot's seq is then published with a store, so producers and
// consumers never touch the same counter. Push and pop do not allocate.
//
// A full ring refuses the push; it never overwrites.
type Ring[T any] struct {
	_     [cacheLineSize]byte
	tail  atomic.Uint64 // next position to push
	_     [cacheLineSize - 8]byte
	head  atomic.Uint64 // next position to pop
	_     [cacheLineSize - 8]byte
	mask  uint64
	slots []slot[T]
}

type slot[T any] struct {
	seq atomic.Uint64
	val T
}

// NewRing returns a ring holding at least capacity values; capacity is
// rounded up to a power of two, and to at least 2 (with one slot, "full" and
// "free for the next lap" would have the same sequence number). It panics if
// capacity < 1 or capacity > 1<<62, since both are programming errors.
func NewRing[T any](capacity int) *Ring[T] {
	if capacity < 1 || capacity > 1<<62 {
		panic(fmt.Sprintf("queue: ring capacity must be in [1, 1<<62], got %d", capacity))
	}
	n := max(2, uint64(1)<<bits.Len64(uint64(capacity)-1))
	r := &Ring[T]{mask: n - 1, slots: make([]slot[T], n)}
	for i := range r.slots {
		r.slots[i].seq.Store(uint64(i))
	}
	return r
}

// TryPush appends v and reports true, or reports false without blocking if
// the ring is full.
func (r *Ring[T]) TryPush(v T) bool {
	pos := r.tail.Load()
	for {
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch dif := int64(seq - pos); {
		case dif == 0:
			if r.tail.CompareAndSwap(pos, pos+1) {
				s.val = v
				storeRelease(&s.seq, pos+1)
				return true
			}
			pos = r.tail.Load()
		case dif < 0:
			// The slot still holds the value pushed one lap ago.
			return false
		default:
			// Another producer claimed pos; catch up.
			pos = r.tail.Load()
		}
	}
}

// TryPop removes and returns the oldest value, or reports false without
// blocking if the ring is empty. The slot is cleared so the ring does not keep
// the value reachable.
func (r *Ring[T]) TryPop() (T, bool) {
	pos := r.head.Load()
	for {
		s := &r.slots[pos&r.mask]
		seq := s.seq.Load()
		switch dif := int64(seq - (pos + 1)); {
		case dif == 0:
			if r.head.CompareAndSwap(pos, pos+1) {
				v := s.val
				var zero T
				s.val = zero
				storeRelease(&s.seq, pos+r.mask+1)
				return v, true
			}
			pos = r.head.Load()
		case dif < 0:
			// Not yet filled for this lap: empty, or a producer is mid-push.
			var zero T
			return zero, false
		default:
			pos = r.head.Load()
		}
	}
}

// Len returns the number of values in the ring. It is a snapshot that may be
// stale by the time it is read when other goroutines push or pop.
func (r *Ring[T]) Len() int {
	// head first: tail only grows, so tail >= head, but pushes and pops
	// between the two loads can make the difference exceed the capacity.
	head := r.head.Load()
	n := r.tail.Load() - head
	return int(min(n, uint64(len(r.slots))))
}

// Cap returns the ring's capacity (a power of two).
func (r *Ring[T]) Cap() int { return len(r.slots) }
