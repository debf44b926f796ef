package model

// Flow is a sequence flow between two nodes of the same scope.
type Flow struct {
	ID        string
	Name      string
	SourceID  string
	TargetID  string
	Condition string // expression; empty means always
	Index     int    // dense index, unique within the Process

	Source *Node
	Target *Node
}

// IsDefault reports whether the flow is its source's default flow.
func (f *Flow) IsDefault() bool { return f.Source != nil && f.Source.Default == f }
