package circuit_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/circuit"
	"github.com/workflowpp/wfpp/engine/clock"
	"github.com/workflowpp/wfpp/engine/model"
)

// The conformance suite: every Store runs these transitions, on times the
// test chooses.

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// testClock stands where the test sets it.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *testClock { return &testClock{now: epoch} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// set moves the clock to epoch+d.
func (c *testClock) set(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = epoch.Add(d)
}

// AfterFunc is never called: breakers only read the time.
func (c *testClock) AfterFunc(time.Duration, func()) clock.Timer {
	panic("circuit breakers set no timers")
}

// policy is the suite's: opens after 3 failures in a row, or at 50 %
// failures over at least 4 calls in 10 s; 60 s open; 2 probes.
var policy = circuit.WithDefaults(model.CircuitPolicy{
	FailureThreshold: 3, FailureRate: 0.5, MinCalls: 4,
	Window: 10 * time.Second, OpenTimeout: time.Minute, HalfOpenCalls: 2,
})

// step is one thing done to the breaker "k" at a time after epoch.
type step struct {
	at time.Duration
	// op: "ok" and "fail" are a call (Allow, then Record when admitted);
	// "admit" only admits a call, keeping its generation in slot; "ok@"
	// and "fail@" record the call kept in slot; "reset" resets.
	op      string
	slot    int
	allowed bool  // the call was admitted (ok, fail, admit)
	state   State // the state after the step
}

type State = circuit.State

const (
	closed   = circuit.Closed
	open     = circuit.Open
	halfOpen = circuit.HalfOpen
)

func call(at time.Duration, failed, allowed bool, state State) step {
	op := "ok"
	if failed {
		op = "fail"
	}
	return step{at: at, op: op, allowed: allowed, state: state}
}

func ok(at time.Duration, state State) step   { return call(at, false, true, state) }
func fail(at time.Duration, state State) step { return call(at, true, true, state) }

// refused is a call the open breaker turns away.
func refused(at time.Duration, state State) step { return call(at, false, false, state) }

func admit(at time.Duration, slot int, allowed bool, state State) step {
	return step{at: at, op: "admit", slot: slot, allowed: allowed, state: state}
}

func report(at time.Duration, slot int, failed bool, state State) step {
	op := "ok@"
	if failed {
		op = "fail@"
	}
	return step{at: at, op: op, slot: slot, state: state}
}

var transitions = []struct {
	name    string
	steps   []step
	changes []string // every transition, in order, as from>to
}{
	{
		name:  "successes keep it closed",
		steps: []step{ok(0, closed), ok(0, closed), ok(0, closed), ok(0, closed), ok(0, closed)},
	},
	{
		name:    "FailureThreshold failures in a row open it",
		steps:   []step{fail(0, closed), fail(time.Second, closed), fail(2*time.Second, open), refused(3*time.Second, open)},
		changes: []string{"closed>open"},
	},
	{
		name: "a success ends the run of failures",
		steps: []step{
			ok(0, closed), ok(0, closed), ok(0, closed), ok(0, closed), ok(0, closed), ok(0, closed),
			fail(0, closed), fail(0, closed), ok(0, closed), fail(0, closed), fail(0, closed), // 11 calls, 4 failures
		},
	},
	{
		name:    "a failure rate of FailureRate over MinCalls calls opens it",
		steps:   []step{ok(0, closed), fail(0, closed), ok(0, closed), fail(0, open)},
		changes: []string{"closed>open"},
	},
	{
		name:  "below MinCalls calls the rate does not count",
		steps: []step{fail(0, closed), ok(0, closed), fail(0, closed)},
	},
	{
		name: "calls older than the window drop out of the rate",
		steps: []step{
			ok(0, closed), fail(0, closed), fail(0, closed), // 3 calls: below MinCalls
			ok(11*time.Second, closed), fail(11*time.Second, closed), // the first three are out: 2 calls
			ok(12*time.Second, closed), fail(12*time.Second, open), // 4 calls, 2 failures
		},
		changes: []string{"closed>open"},
	},
	{
		name: "open refuses calls until OpenTimeout has passed",
		steps: []step{
			fail(0, closed), fail(0, closed), fail(0, open),
			refused(time.Second, open), refused(59*time.Second, open),
			ok(time.Minute, halfOpen),
		},
		changes: []string{"closed>open", "open>half_open"},
	},
	{
		name: "half-open lets HalfOpenCalls probes through and refuses the others",
		steps: []step{
			fail(0, closed), fail(0, closed), fail(0, open),
			admit(time.Minute, 1, true, halfOpen), admit(time.Minute, 2, true, halfOpen),
			admit(time.Minute, 3, false, halfOpen), refused(time.Minute+time.Second, halfOpen),
		},
		changes: []string{"closed>open", "open>half_open"},
	},
	{
		name: "HalfOpenCalls successes close it",
		steps: []step{
			fail(0, closed), fail(0, closed), fail(0, open),
			admit(time.Minute, 1, true, halfOpen), admit(time.Minute, 2, true, halfOpen),
			report(time.Minute+time.Second, 1, false, halfOpen), report(time.Minute+time.Second, 2, false, closed),
			fail(2*time.Minute, closed), ok(2*time.Minute, closed), // counting starts afresh
		},
		changes: []string{"closed>open", "open>half_open", "half_open>closed"},
	},
	{
		name: "a failed probe opens it again, for another OpenTimeout",
		steps: []step{
			fail(0, closed), fail(0, closed), fail(0, open),
			admit(time.Minute, 1, true, halfOpen), admit(time.Minute, 2, true, halfOpen),
			report(time.Minute, 1, false, halfOpen), report(time.Minute+time.Second, 2, true, open),
			refused(2*time.Minute, open), ok(2*time.Minute+time.Second, halfOpen),
		},
		changes: []string{"closed>open", "open>half_open", "half_open>open", "open>half_open"},
	},
	{
		name: "the outcome of a call admitted before it opened does not count",
		steps: []step{
			admit(0, 1, true, closed),
			fail(0, closed), fail(0, closed), fail(0, open),
			report(time.Second, 1, true, open),
			admit(time.Minute, 2, true, halfOpen),
			report(time.Minute, 1, false, halfOpen), // not a probe
			admit(time.Minute, 3, true, halfOpen),
			report(time.Minute, 2, false, halfOpen), report(time.Minute, 3, false, closed),
		},
		changes: []string{"closed>open", "open>half_open", "half_open>closed"},
	},
	{
		name: "probes that never report free their places after OpenTimeout",
		steps: []step{
			fail(0, closed), fail(0, closed), fail(0, open),
			admit(time.Minute, 1, true, halfOpen), admit(time.Minute, 2, true, halfOpen),
			refused(2*time.Minute-time.Second, halfOpen),
			admit(2*time.Minute, 3, true, halfOpen),
			report(2*time.Minute, 1, true, halfOpen), // from the lost round: ignored
			admit(2*time.Minute, 4, true, halfOpen),
			report(2*time.Minute, 3, false, halfOpen), report(2*time.Minute, 4, false, closed),
		},
		changes: []string{"closed>open", "open>half_open", "half_open>closed"},
	},
	{
		name: "reset closes an open breaker",
		steps: []step{
			fail(0, closed), fail(0, closed), fail(0, open),
			{at: time.Second, op: "reset", state: closed},
			ok(time.Second, closed), fail(time.Second, closed), fail(time.Second, closed),
		},
		changes: []string{"closed>open", "open>closed"},
	},
}

// testStore runs the suite against the stores newStore returns on a
// clock, one per case.
func testStore(t *testing.T, newStore func(t *testing.T, c clock.Clock) circuit.Store) {
	for _, tc := range transitions {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			st := newStore(t, clk)
			ctx := context.Background()
			slots := map[int]circuit.Ticket{}
			var changes []string
			note := func(ch circuit.Change) {
				if ch.Moved() {
					require.Equal(t, "k", ch.Key)
					changes = append(changes, ch.From.String()+">"+ch.To.String())
				}
			}
			for i, s := range tc.steps {
				clk.set(s.at)
				switch s.op {
				case "ok", "fail", "admit":
					d, err := st.Allow(ctx, "k", policy)
					require.NoError(t, err)
					note(d.Change)
					require.Equal(t, s.allowed, d.Allowed, "step %d (%s at %s): admitted", i, s.op, s.at)
					if s.op == "admit" {
						slots[s.slot] = d.Ticket
					} else if d.Allowed {
						ch, err := st.Record(ctx, d.Ticket, policy, s.op == "fail")
						require.NoError(t, err)
						note(ch)
					}
				case "ok@", "fail@":
					ch, err := st.Record(ctx, slots[s.slot], policy, s.op == "fail@")
					require.NoError(t, err)
					note(ch)
				case "reset":
					ch, err := st.Reset(ctx, "k")
					require.NoError(t, err)
					note(ch)
				}
				require.Equal(t, s.state.String(), stateOf(t, st, "k").State.String(), "step %d (%s at %s): state", i, s.op, s.at)
			}
			require.Equal(t, tc.changes, changes)
		})
	}

	t.Run("status", func(t *testing.T) {
		t.Parallel()
		clk := newClock()
		st := newStore(t, clk)
		ctx := context.Background()
		do := func(at time.Duration, failed bool) {
			clk.set(at)
			d, err := st.Allow(ctx, "s", policy)
			require.NoError(t, err)
			require.True(t, d.Allowed)
			_, err = st.Record(ctx, d.Ticket, policy, failed)
			require.NoError(t, err)
		}
		do(0, false)
		do(0, false)
		do(0, false)
		do(0, true)
		do(time.Second, true)
		clk.set(2 * time.Second)
		s := stateOf(t, st, "s")
		require.Equal(t, circuit.Status{Key: "s", State: closed, Failures: 2, Calls: 5, WindowFailures: 2, Policy: policy}, s)
		clk.set(10500 * time.Millisecond) // the first second's bucket is out
		s = stateOf(t, st, "s")
		require.Equal(t, 1, s.Calls)
		require.Equal(t, 1, s.WindowFailures)
		do(11*time.Second, true)
		s = stateOf(t, st, "s")
		require.Equal(t, open, s.State)
		require.Equal(t, epoch.Add(11*time.Second), s.OpenedAt)
		require.Zero(t, s.Calls)
	})

	t.Run("reset of an unknown key", func(t *testing.T) {
		t.Parallel()
		_, err := newStore(t, newClock()).Reset(context.Background(), "nobody")
		require.ErrorIs(t, err, circuit.ErrNotFound)
	})

	t.Run("keys are independent", func(t *testing.T) {
		t.Parallel()
		st := newStore(t, newClock())
		ctx := context.Background()
		for range 3 {
			d, err := st.Allow(ctx, "a", policy)
			require.NoError(t, err)
			_, err = st.Record(ctx, d.Ticket, policy, true)
			require.NoError(t, err)
		}
		d, err := st.Allow(ctx, "b", policy)
		require.NoError(t, err)
		require.True(t, d.Allowed)
		d, err = st.Allow(ctx, "a", policy)
		require.NoError(t, err)
		require.False(t, d.Allowed)
		all, err := st.Statuses(ctx)
		require.NoError(t, err)
		require.Len(t, all, 2)
	})
}

// stateOf is key's status from Statuses.
func stateOf(t *testing.T, st circuit.Store, key string) circuit.Status {
	t.Helper()
	all, err := st.Statuses(context.Background())
	require.NoError(t, err)
	for _, s := range all {
		if s.Key == key {
			return s
		}
	}
	t.Fatalf("no status for %q in %v", key, all)
	return circuit.Status{}
}

func TestLocal(t *testing.T) {
	t.Parallel()
	testStore(t, func(_ *testing.T, c clock.Clock) circuit.Store { return circuit.NewLocal(c) })
}
