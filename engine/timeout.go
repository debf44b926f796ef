package engine

import (
	"context"
	"fmt"
)

// An instance of a process with a timeout (Limits.Timeout, wf:timeout) ends
// failed when it runs longer: its tokens are removed as by a cancel (tasks
// cancelled, subscriptions closed, called instances cancelled; a job under
// way finishes, and its result is dropped). The time counts from when the
// instance starts running (a queued instance's wait does not count),
// including pauses: a paused instance times out too.
//
// The deadline is stored with the instance (Snapshot.Deadline) and armed on
// the clock whenever the instance is started or recovered, so a restart
// keeps it; a deadline passed while the engine was down fires at once. The
// clock timer is not among the instance's timers: an instance that waits
// may still leave the applier's memory, and when the timer fires the
// instance is loaded again, checks its stored deadline and fails.

// TimeoutCode is the error an instance that timed out fails with (the
// instance.failed event's detail "error").
const TimeoutCode = "TIMEOUT"

// armDeadline sets the instance's deadline when it starts and arms it on the
// clock once the round is stored.
func (x *instance) armDeadline() {
	if x.head.Deadline == nil {
		timeout := x.proc.Limits.Timeout
		if timeout <= 0 {
			return
		}
		due := x.now.Add(timeout)
		x.head.Deadline = &due
	}
	x.p.effects.deadlines = append(x.p.effects.deadlines, timerArm{inst: x, due: *x.head.Deadline})
}

// armDeadlines arms the deadlines a round set, after its commit.
func (f *effects) armDeadlines(e *Engine) {
	for _, a := range f.deadlines {
		inst := a.inst.id
		if a.inst.deadline != nil {
			a.inst.deadline.Stop()
		}
		a.inst.deadline = e.clock.AfterFunc(a.due.Sub(e.clock.Now()), func() {
			_ = e.submit(context.Background(), command{kind: cmdTimeout, inst: inst})
		})
	}
}

// stopDeadline stops the deadline's timer of an instance that ends.
func (x *instance) stopDeadline() {
	if x.deadline != nil {
		x.p.effects.stops = append(x.p.effects.stops, x.deadline)
		x.deadline = nil
	}
}

// timedOut ends the instance as failed if its deadline has come. A timer
// armed before a restart or an eviction may fire for an instance that ended
// meanwhile, or whose deadline moved: the stored deadline decides.
func (x *instance) timedOut() {
	if x.status.Done() || x.head.Deadline == nil || x.now.Before(*x.head.Deadline) {
		return
	}
	x.terminateAll()
	x.finish(StatusFailed, EventInstanceFailed, map[string]any{
		"error":  TimeoutCode,
		"reason": fmt.Sprintf("timed out after %s (wf:timeout)", x.proc.Limits.Timeout),
	})
}
