package queue

import (
	"testing"
	"time"
)

const waitLimit = 5 * time.Second

// receive returns the next value from ch, failing the test if none arrives
// within waitLimit.
func receive[V any](t *testing.T, ch <-chan V) V {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("nothing received within %s", waitLimit)
		panic("unreachable")
	}
}

// requireNothing fails if ch already holds a value.
func requireNothing[V any](t *testing.T, ch <-chan V, msg string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s: got %v", msg, v)
	default:
	}
}

// goResult runs f in a goroutine and delivers its result.
func goResult[V any](f func() V) <-chan V {
	ch := make(chan V, 1)
	go func() { ch <- f() }()
	return ch
}
