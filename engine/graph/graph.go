package graph

import (
	"encoding/json"

	"github.com/workflowpp/wfpp/engine/model"
)

// Graph is a graph document as written, in JSON or YAML.
type Graph struct {
	GraphID          string         `json:"graphId"`
	Name             string         `json:"name,omitempty"`
	Description      string         `json:"description,omitempty"`
	Version          any            `json:"version,omitempty"`
	StartNodeID      string         `json:"startNodeId,omitempty"`
	Nodes            []Node         `json:"nodes"`
	Edges            []Edge         `json:"edges"`
	DefaultVariables map[string]any `json:"defaultVariables,omitempty"`

	// Limits of the graph's instances (see model.Limits).
	TimeoutMs              int64  `json:"timeoutMs,omitempty"`
	MaxConcurrentInstances int    `json:"maxConcurrentInstances,omitempty"`
	OverLimit              string `json:"overLimit,omitempty"` // queue (the default) or refuse
	RetryBudget            int    `json:"retryBudget,omitempty"`
	OnFailure              string `json:"onFailure,omitempty"` // fail (the default) or incident

	// Triggers start other definitions when an instance ends (chaining).
	Triggers []model.TriggerDoc `json:"triggers,omitempty"`
}

// Node is one step of a graph; Configuration depends on Type.
type Node struct {
	NodeID        string          `json:"nodeId"`
	Type          string          `json:"type"`
	Name          string          `json:"name,omitempty"`
	NodeName      string          `json:"nodeName,omitempty"` // the Execution Engine's spelling of Name
	Description   string          `json:"description,omitempty"`
	Configuration json.RawMessage `json:"configuration,omitempty"`

	// The Execution Engine's ways of loading C# and PowerShell code: read so
	// that they can be refused with a message that says what runs instead.
	RuntimeType     string `json:"runtimeType,omitempty"`
	AssemblyPath    string `json:"assemblyPath,omitempty"`
	TypeName        string `json:"typeName,omitempty"`
	ScriptPath      string `json:"scriptPath,omitempty"`
	RequiredModules any    `json:"requiredModules,omitempty"`
	ModulePaths     any    `json:"modulePaths,omitempty"`
}

// Edge leads from one node to another; Type says when.
type Edge struct {
	EdgeID       string `json:"edgeId,omitempty"`
	Name         string `json:"name,omitempty"`
	SourceNodeID string `json:"sourceNodeId"`
	TargetNodeID string `json:"targetNodeId"`
	Type         string `json:"type,omitempty"` // OnComplete when empty
	Condition    string `json:"condition,omitempty"`
	Case         any    `json:"case,omitempty"` // SwitchCase: a value compared with the Switch expression

	// The Execution Engine's message routing: which message of the source
	// the edge carries (Complete, Fail or All), and the queue settings of
	// the target's work (see queueSettings).
	MessageType       string `json:"messageType,omitempty"`
	MaxRetries        *int   `json:"maxRetries,omitempty"`
	VisibilityTimeout any    `json:"visibilityTimeout,omitempty"` // a TimeSpan (00:10:00) or an ISO-8601 duration
	SourcePort        any    `json:"sourcePort,omitempty"`        // kept in the flow's Attrs; ports do not route
	TargetPort        any    `json:"targetPort,omitempty"`
}

// Node types.
const (
	TypeTask     = "Task"
	TypeTimer    = "Timer"
	TypeManual   = "Manual"
	TypeSubflow  = "Subflow"
	TypeIfElse   = "IfElse"
	TypeSwitch   = "Switch"
	TypeWhile    = "While"
	TypeForEach  = "ForEach"
	TypeParallel = "Parallel"
	TypeValidate = "Validate"
)

// Edge types.
const (
	OnComplete  = "OnComplete"
	OnFail      = "OnFail"
	TrueBranch  = "TrueBranch"
	FalseBranch = "FalseBranch"
	SwitchCase  = "SwitchCase"
	LoopBody    = "LoopBody"
	LoopExit    = "LoopExit"
)

var (
	nodeTypes = []string{TypeTask, TypeTimer, TypeManual, TypeSubflow, TypeIfElse, TypeSwitch, TypeWhile, TypeForEach, TypeParallel, TypeValidate}
	edgeTypes = []string{OnComplete, OnFail, TrueBranch, FalseBranch, SwitchCase, LoopBody, LoopExit}

	// edgesFrom lists the edge types each node type may start.
	edgesFrom = map[string][]string{
		TypeTask:     {OnComplete, OnFail},
		TypeManual:   {OnComplete, OnFail},
		TypeSubflow:  {OnComplete, OnFail},
		TypeTimer:    {OnComplete},
		TypeIfElse:   {TrueBranch, FalseBranch},
		TypeSwitch:   {SwitchCase},
		TypeWhile:    {LoopBody, LoopExit},
		TypeForEach:  {LoopBody, LoopExit},
		TypeParallel: {OnComplete},
		TypeValidate: {OnComplete, OnFail},
	}
)
