package gateways

import "github.com/workflowpp/wfpp/engine/model"

// IsJoin reports whether tokens arriving at n wait for others: parallel and
// inclusive gateways with more than one incoming flow.
func IsJoin(n *model.Node) bool {
	return len(n.Incoming) > 1 && (n.Kind == model.KindParallelGateway || n.Kind == model.KindInclusiveGateway)
}

// ParallelReady reports whether a parallel join holds a token from every
// incoming flow; arrived counts the parked tokens per incoming flow index
// (positions in n.Incoming).
func ParallelReady(n *model.Node, arrived []int) bool {
	if len(arrived) < len(n.Incoming) {
		return false
	}
	for i := range n.Incoming {
		if arrived[i] == 0 {
			return false
		}
	}
	return true
}

// InclusiveReady reports whether an inclusive join may fire: it holds at least
// one token and none of the other tokens of its scope instance, at the given
// nodes, can still reach it.
func InclusiveReady(join *model.Node, parked int, others []*model.Node, r *Reachability) bool {
	if parked == 0 {
		return false
	}
	for _, at := range others {
		if at != join && r.CanReach(at, join) {
			return false
		}
	}
	return true
}
