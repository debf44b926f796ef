package dag

import "github.com/workflowpp/wfpp/engine/model"

// Workflow is a JSON DAG document as written: what schema.json describes.
type Workflow struct {
	ID          string         `json:"id"`
	DisplayName string         `json:"displayName"`
	Description string         `json:"description"`
	StartNode   string         `json:"startNode"`
	Variables   map[string]any `json:"variables"`
	Nodes       []Node         `json:"nodes"`

	// Limits of every instance (model.Limits).
	TimeoutMs              int64  `json:"timeoutMs"`
	MaxConcurrentInstances int    `json:"maxConcurrentInstances"`
	OverLimit              string `json:"overLimit"`   // queue (the default) or refuse
	RetryBudget            int    `json:"retryBudget"` // retries of all of an instance's jobs together
	FailureMode            string `json:"failureMode"` // fail (the default) or incident

	// Triggers start other definitions when an instance ends (chaining).
	Triggers []model.TriggerDoc `json:"triggers"`
}

// Node is one action of a Workflow.
type Node struct {
	ID          string         `json:"id"`
	ActionType  string         `json:"actionType"`
	DisplayName string         `json:"displayName"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	// OnFailure is "fail" (the default), "continue", or the id of the node
	// a failure goes to when the node has no failure edge.
	OnFailure string   `json:"onFailure"`
	Policies  Policies `json:"policies"`
	Join      *Join    `json:"join"`
	Edges     []Edge   `json:"edges"`
}

// Policies bound how a node's action runs.
type Policies struct {
	TimeoutMs      int64           `json:"timeoutMs"`
	Retry          *Retry          `json:"retry"`
	Fallback       string          `json:"fallback"` // the node taken while the circuit breaker is open
	CircuitBreaker *CircuitBreaker `json:"circuitBreaker"`
	Cache          *Cache          `json:"cache"`
}

// Cache lets a node reuse a stored result instead of running its action
// (model.CachePolicy): Key is a template ({{ }} over the read model, or
// ${...}), TTLMs how long an entry lives, Condition when the cache is used
// (none: always), Scope global, definition (the default) or instance.
type Cache struct {
	Key       string `json:"key"`
	TTLMs     int64  `json:"ttlMs"`
	Condition string `json:"condition"`
	Scope     string `json:"scope"`
}

// Retry says how often a failed action runs again and how long it waits
// in between. Two spellings are read: the DataWorkflows spec's
// (baseDelayMs, backoffFactor, jitter) and Workflow++'s own (backoff,
// initialDelayMs).
type Retry struct {
	MaxAttempts *int   `json:"maxAttempts"` // attempts in all, the first included; 0 or 1: no retry
	Backoff     string `json:"backoff"`     // a strategy: see strategies
	Type        string `json:"type"`        // the same as Backoff, as the advanced-features design names it
	// BaseDelayMs and InitialDelayMs are one setting under two names.
	BaseDelayMs        *int64   `json:"baseDelayMs"`
	InitialDelayMs     *int64   `json:"initialDelayMs"`
	MaxDelayMs         int64    `json:"maxDelayMs"`
	BackoffFactor      float64  `json:"backoffFactor"` // exponential growth per retry (2 when unset)
	Jitter             *bool    `json:"jitter"`        // true (the default): delays vary by ±10 %
	RetryOnErrors      []string `json:"retryOnErrors"` // error codes that retry; empty: every error
	DoNotRetryOn       []string `json:"doNotRetryOn"`
	RetryOnStatusCodes []int    `json:"retryOnStatusCodes"` // HTTP statuses that retry (429, 500-504 when empty)
}

// CircuitBreaker configures the circuit breaker a node's jobs go through
// (model.CircuitPolicy).
type CircuitBreaker struct {
	Key                  string  `json:"key"`
	FailureThreshold     int     `json:"failureThreshold"`
	FailureRateThreshold float64 `json:"failureRateThreshold"`
	MinCalls             int     `json:"minCalls"`
	WindowMs             int64   `json:"windowMs"`
	TimeoutMs            int64   `json:"timeoutMs"` // how long it stays open before probes
	HalfOpenMaxCalls     int     `json:"halfOpenMaxCalls"`
}

// Join says when a node that several edges enter runs (model.JoinPolicy).
type Join struct {
	Policy          string `json:"policy"` // all (the default), any, majority or n_of_m
	N               int    `json:"n"`      // with n_of_m
	BranchTimeoutMs int64  `json:"branchTimeoutMs"`
	CancelRemaining bool   `json:"cancelRemaining"`
}

// Edge leads from its node to TargetNode.
type Edge struct {
	TargetNode string `json:"targetNode"`
	When       string `json:"when"` // success (the default), failure or always
	Condition  string `json:"condition"`
}

// Values of Edge.When and Node.OnFailure.
const (
	WhenSuccess = "success"
	WhenFailure = "failure"
	WhenAlways  = "always"

	OnFailureFail     = "fail"
	OnFailureContinue = "continue"
)

// strategies maps every retry strategy name the format reads to the
// backoff name of model.Backoffs.
var strategies = map[string]string{
	"exponential": "exponential", "exponential_backoff": "exponential",
	"fixed": "fixed", "fixed_delay": "fixed",
	"linear": "linear", "linear_backoff": "linear",
	"immediate": "immediate",
}

func (e Edge) onSuccess() bool { return e.When == "" || e.When == WhenSuccess || e.When == WhenAlways }
func (e Edge) onFailure() bool { return e.When == WhenFailure || e.When == WhenAlways }

// failureRoute reports whether OnFailure names a node rather than a mode.
func (n *Node) failureRoute() bool {
	return n.OnFailure != "" && n.OnFailure != OnFailureFail && n.OnFailure != OnFailureContinue
}
