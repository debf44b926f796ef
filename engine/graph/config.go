package graph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// TaskConfig configures a Task: a script, or an action run as a job.
type TaskConfig struct {
	Language       string            `json:"language"`
	ScriptLanguage string            `json:"scriptLanguage"`
	Script         string            `json:"script"`
	ResultVariable string            `json:"resultVariable"`
	ActionType     string            `json:"actionType"`
	Handler        string            `json:"handler"`
	Parameters     map[string]any    `json:"parameters"`
	Headers        map[string]string `json:"headers"`
	TimeoutMs      int64             `json:"timeoutMs"`
	Retry          *RetryConfig      `json:"retry"`
	CircuitBreaker *CircuitConfig    `json:"circuitBreaker"`
	FallbackNodeID string            `json:"fallbackNodeId"` // taken while the circuit is open
	Cache          *CacheConfig      `json:"cache"`
}

// CacheConfig lets a Task reuse a stored result instead of running (see
// model.CachePolicy): Key is a ${...} template over the variables, TTLMs
// (required) how long an entry lives, Condition when the cache is used
// (none: always), Scope global, definition (the default) or instance.
type CacheConfig struct {
	Key       string `json:"key"`
	TTLMs     int64  `json:"ttlMs"`
	Condition string `json:"condition"`
	Scope     string `json:"scope"`
}

// RetryConfig says how often a failed Task runs again, and how soon.
type RetryConfig struct {
	MaxAttempts        int      `json:"maxAttempts"` // attempts in all, the first included
	Backoff            string   `json:"backoff"`     // fixed, linear, immediate or exponential (the default)
	Strategy           string   `json:"strategy"`    // the same as Backoff
	InitialDelayMs     int64    `json:"initialDelayMs"`
	BaseDelayMs        int64    `json:"baseDelayMs"` // the same as InitialDelayMs
	MaxDelayMs         int64    `json:"maxDelayMs"`
	BackoffFactor      float64  `json:"backoffFactor"` // exponential growth per retry (2 when 0)
	Jitter             any      `json:"jitter"`        // true (the default), false, or the share 0..1 randomised
	RetryOnErrors      []string `json:"retryOnErrors"` // error codes that retry; none: every error
	DoNotRetryOn       []string `json:"doNotRetryOn"`
	RetryOnStatusCodes []int    `json:"retryOnStatusCodes"`
}

// CircuitConfig puts a Task's actions through a circuit breaker (see
// model.CircuitPolicy; zero values take its defaults).
type CircuitConfig struct {
	FailureThreshold     int     `json:"failureThreshold"`
	FailureRateThreshold float64 `json:"failureRateThreshold"` // 0..1
	MinCalls             int     `json:"minCalls"`
	WindowMs             int64   `json:"windowMs"`
	TimeoutMs            int64   `json:"timeoutMs"` // open this long, then half-open
	HalfOpenMaxCalls     int     `json:"halfOpenMaxCalls"`
	Key                  string  `json:"key"` // breakers with one key are one breaker; default: the actionType
}

// TimerConfig configures a Timer: a Duration (or Delay) to wait, a Date to
// wait for, or a cron Schedule (see schedule.go).
type TimerConfig struct {
	Duration any    `json:"duration"` // ISO-8601 duration, expression, or milliseconds
	Delay    any    `json:"delay"`    // the same as Duration
	Date     string `json:"date"`     // ISO-8601 date-time or expression
	Schedule string `json:"schedule"` // cron, 5 or 6 fields: "0 0 * * *"
	TimeZone string `json:"timeZone"` // IANA zone of the Schedule; UTC when empty
}

// ManualConfig configures a Manual step: the inbox task people work.
type ManualConfig struct {
	Assignee        string `json:"assignee"`
	CandidateUsers  any    `json:"candidateUsers"`  // a list, or one comma-separated string
	CandidateGroups any    `json:"candidateGroups"` // a list, or one comma-separated string
	FormKey         string `json:"formKey"`
	Form            any    `json:"form"` // an inline form-js schema, as an object or JSON text
	Priority        any    `json:"priority"`
	DueDate         string `json:"dueDate"`
	FollowUpDate    string `json:"followUpDate"`
}

// SubflowConfig configures a Subflow: an inline graph (under Graph, or its
// Nodes and Edges here), or a reference to another graph by GraphID, which
// does not run yet.
type SubflowConfig struct {
	Graph       *SubGraph `json:"graph"`
	StartNodeID string    `json:"startNodeId"`
	Nodes       []Node    `json:"nodes"`
	Edges       []Edge    `json:"edges"`
	GraphID     string    `json:"graphId"`
	Ref         string    `json:"ref"`
}

// SubGraph is the inline graph of a Subflow.
type SubGraph struct {
	StartNodeID string `json:"startNodeId"`
	Nodes       []Node `json:"nodes"`
	Edges       []Edge `json:"edges"`
}

// IfElseConfig configures an IfElse: TrueBranch is taken when Condition holds.
type IfElseConfig struct {
	Condition string `json:"condition"`
}

// SwitchConfig configures a Switch: SwitchCase edges with a case value are
// taken when Expression equals it.
type SwitchConfig struct {
	Expression string `json:"expression"`
}

// WhileConfig configures a While: LoopBody runs again while Condition
// holds, at most MaxIterations times (0: no limit).
type WhileConfig struct {
	Condition     string `json:"condition"`
	MaxIterations int    `json:"maxIterations"`
}

// ForEachConfig configures a ForEach: LoopBody runs once per element of
// Collection, with the element in ItemVariable and its position in
// IndexVariable; a collection longer than MaxIterations (0: no limit) is an
// error. ErrorPolicy says what a failing body Task does (see loop_errors.go).
type ForEachConfig struct {
	Collection           any    `json:"collection"`           // an expression, or a literal list
	CollectionExpression any    `json:"collectionExpression"` // the same as Collection
	ItemVariable         string `json:"itemVariable"`
	ItemVariableName     string `json:"itemVariableName"` // the same as ItemVariable
	IndexVariable        string `json:"indexVariable"`
	MaxIterations        int    `json:"maxIterations"`
	ErrorPolicy          string `json:"errorPolicy"`    // stop (the default), continue or collect
	ErrorsVariable       string `json:"errorsVariable"` // collect: where the errors go (default errors)
}

// ParallelConfig configures a Parallel: by default the graph goes on where
// its branches meet once all of them arrive; JoinPolicy says otherwise
// (see model.JoinPolicy).
type ParallelConfig struct {
	JoinPolicy      string `json:"joinPolicy"` // all (the default), any, majority or n_of_m
	N               int    `json:"n"`          // n_of_m: how many branches
	BranchTimeoutMs int64  `json:"branchTimeoutMs"`
	CancelRemaining bool   `json:"cancelRemaining"`
}

// ValidateConfig configures a Validate step: it checks the variables (or
// what the Target expression gives) against a JSON Schema and Rules, in
// Mode strict (the default; a violation fails the step with the error
// VALIDATION_FAILED, for an OnFail edge) or warn (it goes on, recording
// them). See engine/validation.go.
type ValidateConfig struct {
	Schema any            `json:"schema"` // a JSON Schema object, or its JSON text
	Mode   string         `json:"mode"`   // strict or warn
	Target string         `json:"target"`
	Rules  []ValidateRule `json:"rules"`
}

// ValidateRule is an expression over the variables that must hold, and
// what to say when it does not.
type ValidateRule struct {
	Expression string `json:"expression"`
	Message    string `json:"message"`
}

// decodeConfig reads raw into v, rejecting fields v does not have.
func decodeConfig(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return errors.New(typeMessage("configuration", te))
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("configuration has no field %s: remove it or fix its spelling", field)
	}
	return fmt.Errorf("configuration: %s", strings.TrimPrefix(err.Error(), "json: "))
}
