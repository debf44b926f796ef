package engine

import "github.com/workflowpp/wfpp/engine/clock"

// Clock is where the engine and its queues get time from (package clock).
// Tests and `wfpp run` use a VirtualClock; the server uses the real one.
type (
	Clock = clock.Clock
	Timer = clock.Timer
	// RealClock is the wall clock.
	RealClock = clock.Real
)
