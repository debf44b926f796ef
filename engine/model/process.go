package model

// Process is one BPMN process: its top-level scope and, flattened, every node
// and flow of every scope inside it, by index.
type Process struct {
	Scope
	Name       string
	Executable bool
	// Readers names the users and groups (wf:readers) who may read this
	// process's instances beside those who work on their tasks.
	Readers []string
	// VersionTag names this version of the process (zeebe:versionTag,
	// camunda:versionTag), for call activities bound by it.
	VersionTag string
	// Limits bound its instances: timeout, concurrency, retry budget and
	// what an unhandled failure does.
	Limits Limits
	// Triggers start other definitions when an instance ends (chaining).
	Triggers []ChainTrigger

	AllNodes []*Node // by Node.Index
	AllFlows []*Flow // by Flow.Index
	nodeByID map[string]*Node
	flowByID map[string]*Flow
}

// NewProcess returns an empty process; add nodes and flows to its scopes, then Link it.
func NewProcess(id, name string) *Process {
	return &Process{Scope: Scope{ID: id}, Name: name, Executable: true}
}

// Node returns the node with the given id in any scope, or nil.
func (p *Process) Node(id string) *Node { return p.nodeByID[id] }

// Flow returns the flow with the given id in any scope, or nil.
func (p *Process) Flow(id string) *Flow { return p.flowByID[id] }

// Link resolves the ID references of every scope into pointers, numbers the
// nodes and flows, and reports what does not resolve. A process must be linked
// before it is validated or run, and is not changed after.
func (p *Process) Link() Problems {
	var probs Problems
	p.AllNodes, p.AllFlows = p.AllNodes[:0], p.AllFlows[:0]
	p.nodeByID = map[string]*Node{}
	p.flowByID = map[string]*Flow{}
	if p.ID == "" {
		probs.Add("", "a process has no id: give every process an id")
	}
	p.collect(&p.Scope, &probs)
	for _, n := range p.AllNodes {
		p.linkNode(n, &probs)
	}
	for _, f := range p.AllFlows {
		p.linkFlow(f, &probs)
	}
	for _, n := range p.AllNodes {
		if n.HandlerID != "" {
			if n.Handler = p.nodeByID[n.HandlerID]; n.Handler == nil {
				probs.Add(n.ID, "the compensation handler %q does not exist", n.HandlerID)
			}
		}
		if n.DefaultID == "" {
			continue
		}
		n.Default = p.flowByID[n.DefaultID]
		switch {
		case n.Default == nil:
			probs.Add(n.ID, "default flow %q does not exist", n.DefaultID)
		case n.Default.Source != n:
			probs.Add(n.ID, "default flow %q does not leave this element", n.DefaultID)
			n.Default = nil
		}
	}
	return probs
}

func (p *Process) collect(s *Scope, probs *Problems) {
	for _, n := range s.Nodes {
		if n.ID == "" {
			probs.Add("", "a %s in scope %q has no id", n.Kind, s.ID)
			continue
		}
		if _, dup := p.nodeByID[n.ID]; dup {
			probs.Add(n.ID, "id is used more than once: element ids must be unique")
			continue
		}
		n.Scope = s
		n.Index = len(p.AllNodes)
		n.Incoming, n.Outgoing, n.Boundaries = nil, nil, nil
		p.AllNodes = append(p.AllNodes, n)
		p.nodeByID[n.ID] = n
		if n.Body != nil {
			n.Body.Owner = n
			if n.Body.ID == "" {
				n.Body.ID = n.ID
			}
			p.collect(n.Body, probs)
		}
	}
	for _, f := range s.Flows {
		if f.ID == "" {
			probs.Add("", "a sequence flow in scope %q has no id", s.ID)
			continue
		}
		if _, dup := p.flowByID[f.ID]; dup || p.nodeByID[f.ID] != nil {
			probs.Add(f.ID, "id is used more than once: element ids must be unique")
			continue
		}
		f.Index = len(p.AllFlows)
		p.AllFlows = append(p.AllFlows, f)
		p.flowByID[f.ID] = f
	}
}

func (p *Process) linkNode(n *Node, probs *Problems) {
	if n.AttachedToID == "" {
		if n.Kind == KindBoundaryEvent {
			probs.Add(n.ID, "boundary event is not attached to an activity: set attachedToRef")
		}
		return
	}
	host := p.nodeByID[n.AttachedToID]
	switch {
	case host == nil:
		probs.Add(n.ID, "attachedToRef %q does not exist", n.AttachedToID)
	case !host.Kind.IsActivity():
		probs.Add(n.ID, "attached to %q, a %s: boundary events attach to activities", host.ID, host.Kind)
	case host.Scope != n.Scope:
		probs.Add(n.ID, "attached to %q in another scope: put the boundary event beside its activity", host.ID)
	default:
		n.AttachedTo = host
		host.Boundaries = append(host.Boundaries, n)
	}
}

func (p *Process) linkFlow(f *Flow, probs *Problems) {
	f.Source, f.Target = p.nodeByID[f.SourceID], p.nodeByID[f.TargetID]
	if f.Source == nil {
		probs.Add(f.ID, "sourceRef %q does not exist", f.SourceID)
	}
	if f.Target == nil {
		probs.Add(f.ID, "targetRef %q does not exist", f.TargetID)
	}
	if f.Source == nil || f.Target == nil {
		f.Source, f.Target = nil, nil
		return
	}
	if f.Source.Scope != f.Target.Scope {
		probs.Add(f.ID, "connects %q and %q in different scopes: sequence flows stay inside one (sub-)process", f.SourceID, f.TargetID)
		f.Source, f.Target = nil, nil
		return
	}
	f.Source.Outgoing = append(f.Source.Outgoing, f)
	f.Target.Incoming = append(f.Target.Incoming, f)
}
