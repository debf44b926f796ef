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

// ImplicitStarts are where a scope without start events starts (BPMN
// §10.5.2): every flow node no sequence flow enters, boundary events, event
// sub-processes and link catch events aside.
func (s *Scope) ImplicitStarts() []*Node {
	var starts []*Node
	for _, n := range s.Nodes {
		if len(n.Incoming) > 0 || n.Kind == KindBoundaryEvent || n.EventSub || n.ForCompensation ||
			n.Kind == KindIntermediateCatchEvent && n.Trigger == TriggerLink {
			continue
		}
		starts = append(starts, n)
	}
	return starts
}

// EventSubs returns the event sub-processes of the scope.
func (s *Scope) EventSubs() []*Node {
	var subs []*Node
	for _, n := range s.Nodes {
		if n.EventSub {
			subs = append(subs, n)
		}
	}
	return subs
}

// EventStart is the start event of an event sub-process, or nil.
func (n *Node) EventStart() *Node {
	if !n.EventSub || n.Body == nil {
		return nil
	}
	if st := n.Body.Starts(); len(st) == 1 {
		return st[0]
	}
	return nil
}

// CompensationBoundary is the compensation boundary event of activity n, or nil.
func (n *Node) CompensationBoundary() *Node {
	for _, b := range n.Boundaries {
		if b.Trigger == TriggerCompensation {
			return b
		}
	}
	return nil
}

// CompensationEventSub is the compensation event sub-process of
// sub-process n, which undoes n's work in its stead, or nil.
func (n *Node) CompensationEventSub() *Node {
	if n.Body == nil {
		return nil
	}
	for _, es := range n.Body.EventSubs() {
		if st := es.EventStart(); st != nil && st.Trigger == TriggerCompensation {
			return es
		}
	}
	return nil
}

// Definition is the part of event n that has trigger tr: n itself, or the
// first of a multiple event's alternatives with it; nil when none has.
func (n *Node) Definition(tr Trigger) *Node {
	if n.Trigger == tr {
		return n
	}
	if n.Trigger == TriggerMultiple {
		for _, alt := range n.Alternatives {
			if alt.Trigger == tr {
				return alt
			}
		}
	}
	return nil
}

// CaughtCode is the code an error or escalation catch catches ("": all).
func (n *Node) CaughtCode() string {
	if n.Trigger == TriggerEscalation {
		return n.EscalationCode
	}
	return n.ErrorCode
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
