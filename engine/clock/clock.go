// Package clock is the one time source of the engine and its parts: the
// applier's timers, the node queues' leases, retries and rate limits, and the
// Redis cache's stamps all read a Clock, so the virtual clock of `wfpp run`
// and of tests drives every one of them. engine.VirtualClock is the virtual
// one; Real is the wall clock.
package clock

import "time"

// Clock tells the time and calls functions later.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f once d has passed, in a goroutine of the clock's
	// choosing (the virtual clock calls it in the goroutine that advances
	// time); f must not block.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not run yet and reports whether it did.
	Stop() bool
}

// Real is the wall clock.
type Real struct{}

var _ Clock = Real{}

func (Real) Now() time.Time { return time.Now() }

func (Real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
