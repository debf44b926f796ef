package gateways

import "github.com/workflowpp/wfpp/engine/model"

// Branches tells which branch of a join a node belongs to, for the joins
// with a join policy (model.JoinPolicy): branch i is the part of the join's
// scope from which a token can reach the join's incoming flow i and none of
// its other incoming flows (without passing through the join). The fork, and
// everything before it, reaches every branch and belongs to none. It is
// computed once per definition.
type Branches struct {
	Join *model.Node
	of   []int // by node index: index into Join.Incoming, -1 for none
}

// NewBranches computes the branches of join j of process p.
func NewBranches(p *model.Process, j *model.Node) *Branches {
	words := (len(p.AllNodes) + 63) / 64
	b := &Branches{Join: j, of: make([]int, len(p.AllNodes))}
	for i := range b.of {
		b.of[i] = -1
	}
	for i, f := range j.Incoming {
		set := upstreamOf(words, j, []*model.Node{f.Source})
		for _, n := range p.AllNodes {
			switch {
			case !has(set, n):
			case b.of[n.Index] == -1:
				b.of[n.Index] = i
			default:
				b.of[n.Index] = -2 // upstream of two branches: before the fork
			}
		}
	}
	for i, k := range b.of {
		if k == -2 {
			b.of[i] = -1
		}
	}
	return b
}

// Of returns the index into b.Join.Incoming of the branch n is in, or -1
// when it is in none.
func (b *Branches) Of(n *model.Node) int {
	return b.of[n.Index]
}
