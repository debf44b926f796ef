package queue

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/workflowpp/wfpp/engine/clock"
)

// fakeClock is a manual Clock: time moves only in Advance, which runs the
// due AfterFunc callbacks synchronously, in deadline order.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	added  chan struct{} // signalled on every AfterFunc
}

type fakeTimer struct {
	c  *fakeClock
	at time.Time
	f  func()
}

var _ clock.Clock = (*fakeClock)(nil)

func newFakeClock() *fakeClock {
	return &fakeClock{
		now:   time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		added: make(chan struct{}, 1),
	}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	select {
	case c.added <- struct{}{}:
	default:
	}
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	n := len(t.c.timers)
	t.c.timers = slices.DeleteFunc(t.c.timers, func(x *fakeTimer) bool { return x == t })
	return len(t.c.timers) < n
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	c.timers = slices.DeleteFunc(c.timers, func(t *fakeTimer) bool {
		if t.at.After(c.now) {
			return false
		}
		due = append(due, t)
		return true
	})
	c.mu.Unlock()
	slices.SortStableFunc(due, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, t := range due {
		t.f()
	}
}

// waitForTimer waits until a pending timer is due at exactly at.
func (c *fakeClock) waitForTimer(t *testing.T, at time.Time) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		found := slices.ContainsFunc(c.timers, func(x *fakeTimer) bool { return x.at.Equal(at) })
		c.mu.Unlock()
		if found {
			return
		}
		select {
		case <-c.added:
		case <-deadline:
			t.Fatalf("no timer due at %s registered within 5s", at)
		}
	}
}

// waitForNoTimer waits until no timer is pending: a virtual clock would
// otherwise move time to it for nothing.
func (c *fakeClock) waitForNoTimer(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		n := len(c.timers)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("a timer is still pending 5s after the queue went idle")
}
