package model

// Scope holds the nodes and flows of the process or of one embedded sub-process.
type Scope struct {
	ID    string
	Owner *Node // the sub-process node; nil for the process itself
	Nodes []*Node
	Flows []*Flow
}

// NoneStarts returns the start events without a trigger: where a plain start
// (or entering a sub-process) puts its first token.
func (s *Scope) NoneStarts() []*Node {
	var starts []*Node
	for _, n := range s.Nodes {
		if n.Kind == KindStartEvent && n.Trigger == TriggerNone {
			starts = append(starts, n)
		}
	}
	return starts
}

// Starts returns every start event of the scope.
func (s *Scope) Starts() []*Node {
	var starts []*Node
	for _, n := range s.Nodes {
		if n.Kind == KindStartEvent {
			starts = append(starts, n)
		}
	}
	return starts
}
