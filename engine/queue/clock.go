package queue

import "time"

// Clock is the time source of a NodeQueue: lease deadlines, retry delays and
// the rate limiter all read it, so tests can drive them with a manual clock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f once d has passed, on a goroutine of the clock's
	// choosing; f must not block.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not run yet and reports whether it did.
	Stop() bool
}

// SystemClock is the wall clock.
type SystemClock struct{}

var _ Clock = SystemClock{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
