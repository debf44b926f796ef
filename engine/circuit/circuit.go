package circuit

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// State is a breaker's state; its number is the wfpp_circuit_state metric's value.
type State uint8

const (
	Closed   State = 0
	Open     State = 1
	HalfOpen State = 2
)

func (s State) String() string {
	switch s {
	case Open:
		return "open"
	case HalfOpen:
		return "half_open"
	}
	return "closed"
}

// ErrNotFound means no call ever went through a breaker of that key.
var ErrNotFound = errors.New("no circuit breaker has that key: GET /api/v1/circuits lists them")

// Decision is Allow's answer.
type Decision struct {
	Allowed bool
	// Ticket names the call for Record.
	Ticket Ticket
	// Change is the transition deciding made (open to half-open), if any.
	Change Change
}

// Ticket is a call Allow admitted: the breaker's key and the generation it
// was admitted in. Hand it back to Record with the outcome.
type Ticket struct {
	Key string
	Gen uint64
	// local is the in-process breaker that admitted the call, when one
	// did: Record then goes straight to it.
	local *localBreaker
}

// Change is a transition of one breaker; the zero Change is none.
type Change struct {
	Key      string
	From, To State
	At       time.Time
}

// Moved reports whether c is a transition.
func (c Change) Moved() bool { return c.Key != "" && c.From != c.To }

// Status is what a store knows of one breaker.
type Status struct {
	Key      string
	State    State
	Failures int // failures in a row while closed
	// Calls and WindowFailures are the calls and failures counted in the
	// window that ends now (closed only: a transition clears them).
	Calls          int
	WindowFailures int
	// OpenedAt is when it last opened; zero while closed.
	OpenedAt time.Time
	// Policy is the policy of the last call counted (with its defaults).
	Policy model.CircuitPolicy
}

// Store keeps the breakers by key, on the clock it was given. Every policy
// passed has its defaults (WithDefaults). Stores are safe for concurrent use.
type Store interface {
	// Allow decides whether a call through key's breaker may run now.
	Allow(ctx context.Context, key string, p model.CircuitPolicy) (Decision, error)
	// Record counts the outcome of the call t admitted and returns the
	// transition it caused, if any.
	Record(ctx context.Context, t Ticket, p model.CircuitPolicy, failed bool) (Change, error)
	// Statuses lists every breaker, in no particular order.
	Statuses(ctx context.Context) ([]Status, error)
	// Reset closes key's breaker and clears its counts (ErrNotFound when
	// no call went through it); the transition when it was not closed.
	Reset(ctx context.Context, key string) (Change, error)
}

// WithDefaults returns p with every zero field at its default
// (model.Circuit*Default).
func WithDefaults(p model.CircuitPolicy) model.CircuitPolicy {
	p.FailureThreshold = cmp.Or(p.FailureThreshold, model.CircuitFailureThresholdDefault)
	p.FailureRate = cmp.Or(p.FailureRate, model.CircuitFailureRateDefault)
	p.MinCalls = cmp.Or(p.MinCalls, model.CircuitMinCallsDefault)
	p.Window = cmp.Or(p.Window, model.CircuitWindowDefault)
	p.OpenTimeout = cmp.Or(p.OpenTimeout, model.CircuitOpenTimeoutDefault)
	p.HalfOpenCalls = cmp.Or(p.HalfOpenCalls, model.CircuitHalfOpenCallsDefault)
	return p
}
