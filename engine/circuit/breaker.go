package circuit

import (
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// windowBuckets is how many slices a window is counted in.
const windowBuckets = 10

// breaker is one key's state machine. Local guards each with a mutex; the
// Redis store runs the same rules in Lua (redis.go), in milliseconds.
type breaker struct {
	state     State
	gen       uint64
	since     int64 // ms: when the state (or the half-open round) began
	openedAt  int64 // ms: when it last opened; 0 while closed
	failures  int   // in a row, closed
	admitted  int   // probes let through, half-open
	successes int   // probes that succeeded, half-open
	policy    model.CircuitPolicy
	win       window
}

func (b *breaker) allow(key string, p model.CircuitPolicy, at time.Time) Decision {
	b.policy = p
	if b.state == Closed {
		return Decision{Allowed: true, Ticket: Ticket{Key: key, Gen: b.gen}}
	}
	now := at.UnixMilli()
	var ch Change
	if b.state == Open {
		if now-b.since < p.OpenTimeout.Milliseconds() {
			return Decision{Ticket: Ticket{Key: key, Gen: b.gen}}
		}
		ch = b.move(key, HalfOpen, at)
	}
	if b.admitted >= p.HalfOpenCalls && now-b.since >= p.OpenTimeout.Milliseconds() {
		// The probes never reported (their jobs were lost): a new round.
		b.gen++
		b.since, b.admitted, b.successes = now, 0, 0
	}
	if b.admitted >= p.HalfOpenCalls {
		return Decision{Ticket: Ticket{Key: key, Gen: b.gen}, Change: ch}
	}
	b.admitted++
	return Decision{Allowed: true, Ticket: Ticket{Key: key, Gen: b.gen}, Change: ch}
}

func (b *breaker) record(key string, p model.CircuitPolicy, gen uint64, failed bool, at time.Time) Change {
	if gen != b.gen {
		return Change{} // admitted in an earlier state
	}
	b.policy = p
	switch b.state {
	case Closed:
		bucket := at.UnixMilli() / bucketWidth(p)
		b.win.add(bucket, failed)
		if !failed {
			b.failures = 0
			return Change{}
		}
		b.failures++
		calls, fails := b.win.sums(bucket)
		if b.failures >= p.FailureThreshold || calls >= p.MinCalls && float64(fails)/float64(calls) >= p.FailureRate {
			return b.move(key, Open, at)
		}
	case HalfOpen:
		if failed {
			return b.move(key, Open, at)
		}
		b.successes++
		if b.successes >= p.HalfOpenCalls {
			return b.move(key, Closed, at)
		}
	}
	return Change{}
}

// reset closes the breaker and clears its counts.
func (b *breaker) reset(key string, at time.Time) Change {
	if b.state != Closed {
		return b.move(key, Closed, at)
	}
	b.failures, b.win = 0, window{}
	return Change{}
}

// move makes a transition: a new generation with fresh counts.
func (b *breaker) move(key string, to State, at time.Time) Change {
	ch := Change{Key: key, From: b.state, To: to, At: at}
	now := at.UnixMilli()
	b.state, b.since = to, now
	b.gen++
	b.failures, b.admitted, b.successes, b.win = 0, 0, 0, window{}
	switch to {
	case Open:
		b.openedAt = now
	case Closed:
		b.openedAt = 0
	}
	return ch
}

func (b *breaker) status(key string, at time.Time) Status {
	calls, fails := b.win.sums(at.UnixMilli() / bucketWidth(b.policy))
	s := Status{Key: key, State: b.state, Failures: b.failures, Calls: calls, WindowFailures: fails, Policy: b.policy}
	if b.openedAt != 0 {
		s.OpenedAt = time.UnixMilli(b.openedAt).UTC()
	}
	return s
}

// bucketWidth is the width of one bucket of p's window, in milliseconds.
func bucketWidth(p model.CircuitPolicy) int64 {
	return max(p.Window.Milliseconds()/windowBuckets, 1)
}

// window counts calls and failures in ten buckets, each numbered by its
// start (time / width): a bucket is reused when its number comes round.
type window struct {
	num          [windowBuckets]int64
	calls, fails [windowBuckets]int32
}

func (w *window) add(bucket int64, failed bool) {
	i := bucket % windowBuckets
	if w.num[i] != bucket {
		w.num[i], w.calls[i], w.fails[i] = bucket, 0, 0
	}
	w.calls[i]++
	if failed {
		w.fails[i]++
	}
}

// sums counts the buckets of the window ending with bucket.
func (w *window) sums(bucket int64) (calls, fails int) {
	for i, n := range w.num {
		if n > bucket-windowBuckets && w.calls[i] > 0 {
			calls += int(w.calls[i])
			fails += int(w.fails[i])
		}
	}
	return calls, fails
}
