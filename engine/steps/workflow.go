package steps

import "encoding/json"

// Workflow is a steps document as written, in JSON or YAML.
type Workflow struct {
	WorkflowID  string         `json:"workflow_id"`
	ID          string         `json:"id"` // the same as workflow_id
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Version     any            `json:"version"`
	StartStep   string         `json:"start_step"`
	Variables   map[string]any `json:"variables"`
	// Steps is a list of steps, or a map of steps by id (read by stepList).
	Steps json.RawMessage `json:"steps"`
}

// Step is one step; which fields apply depends on Type.
type Step struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	NextStep     string         `json:"next_step"`
	InputMapping map[string]any `json:"input_mapping"`

	// agent
	AgentName      string          `json:"agent_name"`
	TimeoutSeconds *int            `json:"timeout_seconds"` // also sub_workflow, wait_for_event
	Retry          *Retry          `json:"retry"`
	CircuitBreaker *CircuitBreaker `json:"circuit_breaker"`
	Cache          *Cache          `json:"cache"`

	// parallel (MaxParallelism also loop)
	ParallelSteps  []string `json:"parallel_steps"`
	MaxParallelism int      `json:"max_parallelism"`

	// conditional
	Condition string `json:"condition"`
	Then      string `json:"then"`
	Else      string `json:"else"`

	// loop
	Items         string   `json:"items"`
	Collection    string   `json:"collection"` // the design's spelling of items
	ItemVariable  string   `json:"item_variable"`
	Body          []string `json:"body"`
	LoopBody      []string `json:"loop_body"`  // the design's spelling of body
	LoopSteps     []string `json:"loop_steps"` // another spelling of body
	ExecutionMode string   `json:"execution_mode"`
	MaxIterations int      `json:"max_iterations"`
	OnError       string   `json:"on_error"`
	ErrorsVar     string   `json:"errors_variable"`

	// fork_join
	Branches             map[string]BranchSpec `json:"branches"`
	JoinPolicy           string                `json:"join_policy"`
	NRequired            int                   `json:"n_required"`
	BranchTimeoutSeconds int                   `json:"branch_timeout_seconds"`
	CancelRemaining      bool                  `json:"cancel_remaining"`

	// sub_workflow
	WorkflowID      string `json:"workflow_id"`
	Workflow        string `json:"workflow"` // the same as workflow_id
	WorkflowVersion any    `json:"workflow_version"`

	// wait_for_event
	EventSource    string          `json:"event_source"`
	EventName      string          `json:"event_name"`
	EventFilter    json.RawMessage `json:"event_filter"`
	CorrelationKey string          `json:"correlation_key"`
	Duration       string          `json:"duration"`
	OnTimeout      string          `json:"on_timeout"`
	MultiUse       bool            `json:"multi_use"`

	// validate
	Schema           json.RawMessage `json:"schema"`
	ValidationSchema json.RawMessage `json:"validation_schema"` // the design's spelling of schema
	Mode             string          `json:"mode"`
	ValidationMode   string          `json:"validation_mode"` // the design's spelling of mode
	Target           string          `json:"target"`
	DataSource       string          `json:"data_source"` // the design's spelling of target
	Rules            []string        `json:"rules"`
	Assertions       []string        `json:"assertions"` // the design's spelling of rules
}

// BranchSpec is one branch of a fork_join: its steps run one after another.
type BranchSpec struct {
	Steps          []string `json:"steps"`
	TimeoutSeconds int      `json:"timeout_seconds"`
}

// Retry is a step's retry strategy (the design's RetryStrategy).
type Retry struct {
	MaxRetries         *int     `json:"max_retries"`
	Strategy           string   `json:"strategy"`
	Type               string   `json:"type"` // the same as strategy
	InitialDelayMs     int64    `json:"initial_delay_ms"`
	MaxDelayMs         int64    `json:"max_delay_ms"`
	BackoffMultiplier  float64  `json:"backoff_multiplier"`
	Jitter             *bool    `json:"jitter"`
	RetryOnErrors      []string `json:"retry_on_errors"`
	RetryOnStatusCodes []int    `json:"retry_on_status_codes"`
}

// CircuitBreaker is a step's circuit breaker (the design's CircuitBreakerConfig).
type CircuitBreaker struct {
	Enabled              *bool   `json:"enabled"`
	Key                  string  `json:"key"`
	FailureThreshold     int     `json:"failure_threshold"`
	FailureRateThreshold float64 `json:"failure_rate_threshold"`
	TimeoutSeconds       int     `json:"timeout_seconds"`
	HalfOpenMaxCalls     int     `json:"half_open_max_calls"`
	WindowSizeSeconds    int     `json:"window_size_seconds"`
	MinCalls             int     `json:"min_calls"`
}

// Cache is a step's result cache (the design's CachingConfig).
type Cache struct {
	Enabled    *bool  `json:"enabled"`
	Key        string `json:"key"`
	TTLSeconds int    `json:"ttl_seconds"`
	Condition  string `json:"condition"`
	Scope      string `json:"scope"`
}

// Step types.
const (
	TypeAgent        = "agent"
	TypeParallel     = "parallel"
	TypeConditional  = "conditional"
	TypeLoop         = "loop"
	TypeForkJoin     = "fork_join"
	TypeSubWorkflow  = "sub_workflow"
	TypeWaitForEvent = "wait_for_event"
	TypeValidate     = "validate"
)

var stepTypes = []string{TypeAgent, TypeParallel, TypeConditional, TypeLoop, TypeForkJoin, TypeSubWorkflow, TypeWaitForEvent, TypeValidate}

// StateMachineType is the document type of a state-machine workflow, which
// package steps does not read.
const StateMachineType = "state_machine"
