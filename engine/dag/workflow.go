package dag

// Workflow is a JSON DAG document as written: what schema.json describes.
type Workflow struct {
	ID          string         `json:"id"`
	DisplayName string         `json:"displayName"`
	Description string         `json:"description"`
	StartNode   string         `json:"startNode"`
	Variables   map[string]any `json:"variables"`
	Nodes       []Node         `json:"nodes"`
}

// Node is one action of a Workflow.
type Node struct {
	ID          string         `json:"id"`
	ActionType  string         `json:"actionType"`
	DisplayName string         `json:"displayName"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
	OnFailure   string         `json:"onFailure"` // "fail" (the default) or "continue"
	Policies    Policies       `json:"policies"`
	Edges       []Edge         `json:"edges"`
}

// Policies bound how a node's action runs.
type Policies struct {
	TimeoutMs int64  `json:"timeoutMs"`
	Retry     *Retry `json:"retry"`
}

// Retry says how often a failed action runs again.
type Retry struct {
	MaxAttempts    int    `json:"maxAttempts"` // attempts in all, the first included
	Backoff        string `json:"backoff"`     // fixed, linear, immediate or exponential (the default)
	InitialDelayMs int64  `json:"initialDelayMs"`
	MaxDelayMs     int64  `json:"maxDelayMs"`
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

func (e Edge) onSuccess() bool { return e.When == "" || e.When == WhenSuccess || e.When == WhenAlways }
func (e Edge) onFailure() bool { return e.When == WhenFailure || e.When == WhenAlways }
