package gateways

import "github.com/workflowpp/wfpp/engine/model"

// Reachability answers "can a token at node A still arrive at join J?" for
// every inclusive join of a process, without passing through J itself, and
// "can it still arrive on flow F?" for the incoming flows of every complex
// gateway. It is computed once per definition: one bit set per join (or
// flow) over the node indexes.
type Reachability struct {
	upstream map[*model.Node][]uint64
	flows    map[*model.Flow][]uint64
}

// NewReachability precomputes, for every inclusive join, the nodes upstream
// of it, and for every incoming flow of a complex gateway, the nodes
// upstream of that flow (its source included).
func NewReachability(p *model.Process) *Reachability {
	r := &Reachability{upstream: map[*model.Node][]uint64{}, flows: map[*model.Flow][]uint64{}}
	words := (len(p.AllNodes) + 63) / 64
	for _, j := range p.AllNodes {
		if len(j.Incoming) < 2 {
			continue
		}
		switch j.Kind {
		case model.KindInclusiveGateway:
			var sources []*model.Node
			for _, f := range j.Incoming {
				sources = append(sources, f.Source)
			}
			r.upstream[j] = upstreamOf(words, j, sources)
		case model.KindComplexGateway:
			for _, f := range j.Incoming {
				r.flows[f] = upstreamOf(words, j, []*model.Node{f.Source})
			}
		}
	}
	return r
}

// upstreamOf marks the nodes from, and every node a token can go from to
// them without passing through j.
func upstreamOf(words int, j *model.Node, from []*model.Node) []uint64 {
	set := make([]uint64, words)
	stack := []*model.Node{}
	mark := func(n *model.Node) {
		if n == j || set[n.Index/64]&(1<<(n.Index%64)) != 0 {
			return
		}
		set[n.Index/64] |= 1 << (n.Index % 64)
		stack = append(stack, n)
	}
	for _, n := range from {
		mark(n)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, f := range n.Incoming {
			mark(f.Source)
		}
		if n.AttachedTo != nil { // a boundary event fires from its activity
			mark(n.AttachedTo)
		}
		if n.Kind == model.KindIntermediateCatchEvent && n.Trigger == model.TriggerLink {
			for _, m := range n.Scope.Nodes {
				if m.Kind == model.KindIntermediateThrowEvent && m.LinkName == n.LinkName {
					mark(m)
				}
			}
		}
	}
	return set
}

// CanReach reports whether a token at from can still arrive at join.
func (r *Reachability) CanReach(from, join *model.Node) bool {
	return has(r.upstream[join], from)
}

// CanReachFlow reports whether a token at from can still arrive on f, an
// incoming flow of a complex gateway.
func (r *Reachability) CanReachFlow(from *model.Node, f *model.Flow) bool {
	return has(r.flows[f], from)
}

func has(set []uint64, n *model.Node) bool {
	return set != nil && set[n.Index/64]&(1<<(n.Index%64)) != 0
}
