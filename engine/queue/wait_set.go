package queue

import "sync/atomic"

// waitSet puts goroutines to sleep until another goroutine makes a condition
// true (ring not empty, ring not full), without a lock on the fast path.
//
// A sleeper registers (waiters++) and then re-checks the condition before it
// blocks on ch; a waker changes the state and then calls wake, which looks at
// waiters. Both sides use sequentially consistent atomics, so in the total
// order either the sleeper's re-check comes after the waker's change (it sees
// the change and does not sleep), or the waker's waiters load comes after the
// registration (it sends on ch). A wake-up is therefore never lost. ch has
// capacity 1, so a send never blocks and a wake that arrives before the
// sleeper reaches its select is kept; several wakes can merge into one, which
// is why a sleeper that wakes and succeeds calls wake again to pass the turn
// to the next sleeper. Sleepers always re-check, so spurious wakes are
// harmless. When nobody sleeps, wake is one atomic load.
type waitSet struct {
	waiters atomic.Int64
	ch      chan struct{}
}

func newWaitSet() waitSet {
	return waitSet{ch: make(chan struct{}, 1)}
}

// register must be followed by a re-check of the condition and then by
// unregister, whether the caller slept or not.
func (w *waitSet) register()   { w.waiters.Add(1) }
func (w *waitSet) unregister() { w.waiters.Add(-1) }

func (w *waitSet) wake() {
	if w.waiters.Load() == 0 {
		return
	}
	select {
	case w.ch <- struct{}{}:
	default: // a wake is already pending
	}
}
