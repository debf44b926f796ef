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
}

// RetryConfig says how often a failed Task or Manual step runs again.
type RetryConfig struct {
	MaxAttempts    int    `json:"maxAttempts"` // attempts in all, the first included
	Backoff        string `json:"backoff"`     // fixed, linear, immediate or exponential (the default)
	InitialDelayMs int64  `json:"initialDelayMs"`
	MaxDelayMs     int64  `json:"maxDelayMs"`
}

// TimerConfig configures a Timer: a Duration (or Delay) to wait, or a Date to wait for.
type TimerConfig struct {
	Duration any    `json:"duration"` // ISO-8601 duration, expression, or milliseconds
	Delay    any    `json:"delay"`    // the same as Duration
	Date     string `json:"date"`     // ISO-8601 date-time or expression
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

// WhileConfig configures a While: LoopBody runs again while Condition holds.
type WhileConfig struct {
	Condition string `json:"condition"`
}

// ForEachConfig configures a ForEach: LoopBody runs once per element of
// Collection, with the element in ItemVariable and its position in IndexVariable.
type ForEachConfig struct {
	Collection    any    `json:"collection"` // an expression, or a literal list
	ItemVariable  string `json:"itemVariable"`
	IndexVariable string `json:"indexVariable"`
}

// ParallelConfig configures a Parallel: it has no settings.
type ParallelConfig struct{}

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
