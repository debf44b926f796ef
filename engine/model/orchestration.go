package model

import "time"

// This file holds the model surface of the orchestration features of the
// advanced-features design (§8–§16): chaining, webhook waits, validation
// steps and step-result caching. Every format converts into these fields;
// the engine gives them their meaning.

// ChainTrigger starts another definition when an instance of this process
// ends (On: ChainCompleted, ChainFailed or ChainCancelled) and Condition
// (an expression over the ended instance's variables; "" is true) holds.
// The started instance gets Input evaluated on the ended instance's
// variables (all of them when AllVariables) and records which instance
// triggered it.
type ChainTrigger struct {
	On           string
	Condition    string
	Target       string // the definition key to start
	Binding      string // BindingLatest (default) or BindingVersion
	Version      int    // with BindingVersion
	Input        []Mapping
	AllVariables bool
}

// When a ChainTrigger fires.
const (
	ChainCompleted = "completed"
	ChainFailed    = "failed"
	ChainCancelled = "cancelled"
)

// Webhook makes a receive task or message catch wait for an HTTP POST to a
// unique, unguessable URL instead of a correlated message. Filter is an
// expression over the posted payload (as `payload`, and its fields as
// variables) that must hold for the POST to be accepted; MultiUse keeps the
// URL open after a delivery (non-interrupting use), else it closes.
type Webhook struct {
	Filter   string
	MultiUse bool
}

// CachePolicy lets a service task reuse a stored result instead of running
// its job: Key is a template (${...} or {{ }}) rendered over the variables,
// TTL how long an entry lives, Condition when the cache is used at all (""
// always), Scope how widely entries are shared (CacheGlobal,
// CacheDefinition, CacheInstance). Only successful results are stored.
type CachePolicy struct {
	Key       string
	TTL       time.Duration
	Condition string
	Scope     string
}

// Cache scopes.
const (
	CacheGlobal     = "global"
	CacheDefinition = "definition" // the default
	CacheInstance   = "instance"
)

// ValidateJobType is the job type of a validation step: a built-in
// handler checks variables against a JSON Schema and expressions given in
// the task's parameters (schema, mode strict|warn, target, rules: see
// engine/validation.go).
const ValidateJobType = "core.validate"

// ValidationFailedCode is the BPMN error a strict validation step throws.
const ValidationFailedCode = "VALIDATION_FAILED"
