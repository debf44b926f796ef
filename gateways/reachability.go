package gateways

import "github.com/workflowpp/wfpp/engine/model"

// Reachability answers "can a token at node A still arrive at join J?" for
// every inclusive join of a process, without passing through J itself. It is
// computed once per definition: one bit set per join over the node indexes.
type Reachability struct {
	upstream map[*model.Node][]uint64
}

// NewReachability precomputes, for every inclusive join, the nodes upstream of it.
func NewReachability(p *model.Process) *Reachability {
	r := &Reachability{upstream: map[*model.Node][]uint64{}}
	words := (len(p.AllNodes) + 63) / 64
	for _, j := range p.AllNodes {
		if j.Kind != model.KindInclusiveGateway || len(j.Incoming) < 2 {
			continue
		}
		set := make([]uint64, words)
		stack := []*model.Node{}
		mark := func(n *model.Node) {
			if n == j || set[n.Index/64]&(1<<(n.Index%64)) != 0 {
				return
			}
			set[n.Index/64] |= 1 << (n.Index % 64)
			stack = append(stack, n)
		}
		for _, f := range j.Incoming {
			mark(f.Source)
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
		r.upstream[j] = set
	}
	return r
}

// CanReach reports whether a token at from can still arrive at join.
func (r *Reachability) CanReach(from, join *model.Node) bool {
	set, ok := r.upstream[join]
	if !ok {
		return false
	}
	return set[from.Index/64]&(1<<(from.Index%64)) != 0
}
