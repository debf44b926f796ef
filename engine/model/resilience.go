package model

import "time"

// This file holds the model surface of the resilience features of the
// advanced-features design (§1–§7): circuit breakers, fork-join policies,
// fallbacks and the per-process limits. Every format (BPMN through wf:
// attributes, the JSON DAG, the graph format) converts into these fields;
// the engine gives them their meaning.

// CircuitPolicy configures the circuit breaker a service task's jobs go
// through. Breakers are shared by every task with the same Key (the job
// type when empty; the host for the http handler): closed, the job runs and
// its outcome is counted over Window; after FailureThreshold failures in a
// row, or a failure rate of at least FailureRate over at least MinCalls
// calls, it opens, and jobs fail at once with the BPMN error CircuitOpenCode
// without running; after OpenTimeout it is half-open and lets HalfOpenCalls
// probes through: that many successes close it, a failure opens it again.
// Zero values take the defaults below.
type CircuitPolicy struct {
	Key              string
	FailureThreshold int
	FailureRate      float64 // 0..1
	MinCalls         int
	Window           time.Duration
	OpenTimeout      time.Duration
	HalfOpenCalls    int
}

// CircuitOpenCode is the BPMN error a job fails with while its breaker is open.
const CircuitOpenCode = "CIRCUIT_OPEN"

// Circuit breaker defaults (the advanced-features design's).
const (
	CircuitFailureThresholdDefault = 5
	CircuitFailureRateDefault      = 0.5
	CircuitMinCallsDefault         = 10
	CircuitWindowDefault           = 2 * time.Minute
	CircuitOpenTimeoutDefault      = time.Minute
	CircuitHalfOpenCallsDefault    = 3
)

// Join policies of a joining gateway (JoinPolicy.Policy).
const (
	JoinAll      = "all" // the default: every branch
	JoinAny      = "any"
	JoinMajority = "majority" // more than half of the branches
	JoinNOfM     = "n_of_m"   // N branches
)

// JoinPolicy makes a parallel or inclusive join (or a DAG join, a graph
// Parallel's join) go on when enough of its branches have arrived instead of
// all of them: Policy with N for JoinNOfM. A branch that does not arrive
// within BranchTimeout of the fork counts as failed. When the join fires,
// the branches still running are cancelled when CancelRemaining, else they
// finish and end quietly at the join. Each branch's result (the variables
// its token set, or its error) is gathered under the join's id in the
// variable ResultsVariable (the join's id when empty).
type JoinPolicy struct {
	Policy          string
	N               int
	BranchTimeout   time.Duration
	CancelRemaining bool
	ResultsVariable string
}

// Limits bound a process's instances as a whole.
type Limits struct {
	// Timeout ends an instance that runs longer as failed (0: none).
	Timeout time.Duration
	// MaxConcurrent caps how many instances of the definition run at once
	// (0: no cap); a start over it waits in a queue (OverLimitQueue) or is
	// refused (OverLimitRefuse, HTTP 429).
	MaxConcurrent int
	OverLimit     string
	// RetryBudget caps the retries all of an instance's jobs get together
	// (0: no cap); once spent, a failure is final.
	RetryBudget int
	// OnFailure is what an unhandled failure does: FailureIncident (BPMN's
	// default: the token waits with an incident) or FailureFail (the
	// DAG's default, fail-fast: every other branch is cancelled and the
	// instance ends failed).
	OnFailure string
}

// Values of Limits.OverLimit and Limits.OnFailure.
const (
	OverLimitQueue  = "queue"
	OverLimitRefuse = "refuse"

	FailureIncident = "incident"
	FailureFail     = "fail"
)
