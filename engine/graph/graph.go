package graph

import "encoding/json"

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
}

// Node is one step of a graph; Configuration depends on Type.
type Node struct {
	NodeID        string          `json:"nodeId"`
	Type          string          `json:"type"`
	Name          string          `json:"name,omitempty"`
	Description   string          `json:"description,omitempty"`
	Configuration json.RawMessage `json:"configuration,omitempty"`
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
	nodeTypes = []string{TypeTask, TypeTimer, TypeManual, TypeSubflow, TypeIfElse, TypeSwitch, TypeWhile, TypeForEach, TypeParallel}
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
	}
)
