package model

// Flow is a sequence flow between two nodes of the same scope.
type Flow struct {
	ID        string
	Name      string
	SourceID  string
	TargetID  string
	Condition string // expression; empty means always
	Index     int    // dense index, unique within the Process
	// Fallback marks a flow leaving an activity that is taken only when the
	// activity's job fails fast with CircuitOpenCode and no error boundary
	// names that code (a catch-all one yields to it) (wf:fallback, a DAG policy's fallback, a graph node's
	// FallbackNodeId); a token leaving normally never takes it.
	Fallback bool
	// Attrs keeps format-specific details worth showing (e.g. a graph
	// edge's sourcePort and targetPort).
	Attrs map[string]string

	Source *Node
	Target *Node
}

// IsDefault reports whether the flow is its source's default flow.
func (f *Flow) IsDefault() bool { return f.Source != nil && f.Source.Default == f }
