package model

import "strconv"

// GeneratedAttr marks, in Node.Attrs, a node an importer added that the
// source file does not have (a start or end event, a split or join gateway,
// an error boundary, a loop helper).
const GeneratedAttr = "generated"

// Builder assembles a process for an importer of a format that states less
// than BPMN does (the JSON DAG, the graph format). It hands out unique,
// readable ids and adds the events and gateways such a format implies.
//
// Add every node the source names first, then let the Builder generate the
// rest: generated ids never take an id the source uses (Reserve ids the
// source uses for flows). Link the Process when done.
type Builder struct {
	proc *Process
	used map[string]bool
}

// NewBuilder returns a Builder for a new, empty process.
func NewBuilder(id, name string) *Builder {
	return &Builder{proc: NewProcess(id, name), used: map[string]bool{}}
}

// Process returns the process being built.
func (b *Builder) Process() *Process { return b.proc }

// UniqueID returns base, or base with a numeric suffix when base is taken,
// and reserves it.
func (b *Builder) UniqueID(base string) string {
	id := base
	for i := 2; b.used[id]; i++ {
		id = base + "_" + strconv.Itoa(i)
	}
	b.used[id] = true
	return id
}

// Reserve marks an id the source uses as taken, so nothing generated gets it.
func (b *Builder) Reserve(id string) { b.used[id] = true }

// Add puts a node named by the source into scope s, keeping its id. A
// duplicate id is kept too, so that Link reports it.
func (b *Builder) Add(s *Scope, n *Node) *Node {
	b.used[n.ID] = true
	s.Nodes = append(s.Nodes, n)
	return n
}

// Generate adds a node of kind k the source does not name, with an id derived
// from base and Attrs[GeneratedAttr] set.
func (b *Builder) Generate(s *Scope, base string, k Kind) *Node {
	n := &Node{ID: b.UniqueID(base), Kind: k, Attrs: map[string]string{GeneratedAttr: "true"}}
	s.Nodes = append(s.Nodes, n)
	return n
}

// AddFlow puts f into scope s; an empty f.ID becomes "<source>__to__<target>".
func (b *Builder) AddFlow(s *Scope, f *Flow) *Flow {
	if f.ID == "" {
		f.ID = b.UniqueID(f.SourceID + "__to__" + f.TargetID)
	} else {
		b.used[f.ID] = true
	}
	s.Flows = append(s.Flows, f)
	return f
}

// Connect adds a flow from one node to another, taken when condition holds
// (always when it is empty).
func (b *Builder) Connect(s *Scope, from, to, condition string) *Flow {
	return b.AddFlow(s, &Flow{SourceID: from, TargetID: to, Condition: condition})
}

// Fallback adds a fallback flow from an activity to another node: taken
// only when the activity's circuit breaker is open (see Flow.Fallback).
func (b *Builder) Fallback(s *Scope, from, to string) *Flow {
	return b.AddFlow(s, &Flow{ID: b.UniqueID(from + "__fallback"), SourceID: from, TargetID: to, Fallback: true})
}

// Branch is one way a token may leave a node in the DAG-like formats.
type Branch struct {
	FlowID    string // kept when set, else generated
	Name      string
	Target    string // node id
	Condition string // empty: always taken
	Attrs     map[string]string
}

// Split connects node from to its branches with DAG semantics: every branch
// whose condition holds is taken, in parallel, and a token with no branch to
// take ends quietly. Returns the id of the node the branches leave from,
// where other paths that should continue the same way can be connected:
//   - no branch: a generated end event "<from>__end";
//   - one unconditional branch: the branch target, connected directly;
//   - otherwise a generated inclusive gateway "<from>__split", with a
//     default flow to "<from>__end" when every branch has a condition.
func (b *Builder) Split(s *Scope, from string, branches []Branch) string {
	if len(branches) == 0 {
		end := b.Generate(s, from+"__end", KindEndEvent)
		b.Connect(s, from, end.ID, "")
		return end.ID
	}
	if len(branches) == 1 && branches[0].Condition == "" {
		br := branches[0]
		b.AddFlow(s, &Flow{ID: br.FlowID, Name: br.Name, SourceID: from, TargetID: br.Target, Attrs: br.Attrs})
		return br.Target
	}
	split := b.Generate(s, from+"__split", KindInclusiveGateway)
	b.Connect(s, from, split.ID, "")
	always := false
	for _, br := range branches {
		b.AddFlow(s, &Flow{ID: br.FlowID, Name: br.Name, SourceID: split.ID, TargetID: br.Target, Condition: br.Condition, Attrs: br.Attrs})
		always = always || br.Condition == ""
	}
	if !always {
		end := b.Generate(s, from+"__end", KindEndEvent)
		split.DefaultID = b.Connect(s, split.ID, end.ID, "").ID
	}
	return split.ID
}

// AttachErrorBoundary attaches to host an interrupting error boundary event
// that catches every error (ErrorCode ""), with an id derived from base.
func (b *Builder) AttachErrorBoundary(s *Scope, host *Node, base string) *Node {
	n := b.Generate(s, base, KindBoundaryEvent)
	n.Trigger = TriggerError
	n.AttachedToID = host.ID
	n.Interrupting = true
	return n
}

// InsertJoins gives DAG join semantics to scope s: a node that more than one
// forward flow enters gets a generated inclusive gateway "<id>__join" in
// front of it, which waits until no further token can arrive (an OR-join).
// Flows that close a loop (back edges, found by a depth-first walk from the
// start events) do not count; when more than one enters the same node they
// get their own join "<id>__loop", so one iteration sends one token back.
// Inclusive gateways and end events are left alone: the first already join
// this way, the second consume each token.
func (b *Builder) InsertJoins(s *Scope) {
	out := map[string][]*Flow{}
	boundaries := map[string][]string{}
	for _, f := range s.Flows {
		out[f.SourceID] = append(out[f.SourceID], f)
	}
	for _, n := range s.Nodes {
		if n.AttachedToID != "" {
			boundaries[n.AttachedToID] = append(boundaries[n.AttachedToID], n.ID)
		}
	}
	const (
		active = iota + 1
		done
	)
	state := map[string]int{}
	back := map[*Flow]bool{}
	var visit func(id string)
	visit = func(id string) {
		state[id] = active
		for _, f := range out[id] {
			switch state[f.TargetID] {
			case active:
				back[f] = true
			case 0:
				visit(f.TargetID)
			}
		}
		for _, bid := range boundaries[id] {
			if state[bid] == 0 {
				visit(bid)
			}
		}
		state[id] = done
	}
	for _, n := range s.Nodes {
		if n.Kind == KindStartEvent && state[n.ID] == 0 {
			visit(n.ID)
		}
	}

	nodes := append([]*Node(nil), s.Nodes...) // joins are appended while walking
	for _, n := range nodes {
		if n.Kind == KindInclusiveGateway || n.Kind == KindEndEvent {
			continue
		}
		var fwd, loop []*Flow
		for _, f := range s.Flows {
			if f.TargetID != n.ID {
				continue
			}
			if back[f] {
				loop = append(loop, f)
			} else {
				fwd = append(fwd, f)
			}
		}
		b.join(s, n, fwd, "__join")
		b.join(s, n, loop, "__loop")
	}
}

func (b *Builder) join(s *Scope, n *Node, in []*Flow, suffix string) {
	if len(in) < 2 {
		return
	}
	j := b.Generate(s, n.ID+suffix, KindInclusiveGateway)
	for _, f := range in {
		f.TargetID = j.ID
	}
	b.Connect(s, j.ID, n.ID, "")
}
