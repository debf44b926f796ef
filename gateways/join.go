package gateways

import "github.com/workflowpp/wfpp/engine/model"

// IsJoin reports whether tokens arriving at n wait for others: parallel,
// inclusive and complex gateways with more than one incoming flow.
func IsJoin(n *model.Node) bool {
	return len(n.Incoming) > 1 &&
		(n.Kind == model.KindParallelGateway || n.Kind == model.KindInclusiveGateway || n.Kind == model.KindComplexGateway)
}

// ParallelJoin decides a parallel join. vias are the flows by which the
// tokens parked at n (one scope instance) arrived, in arrival order. When a
// token waits on every incoming flow the join fires and take lists the
// tokens it consumes, by index into vias: the first on each flow, in the
// order of n.Incoming; later ones wait for the next round.
func ParallelJoin(n *model.Node, vias []*model.Flow) (take []int, fire bool) {
	take = make([]int, 0, len(n.Incoming))
	for _, f := range n.Incoming {
		i := indexOf(vias, f)
		if i < 0 {
			return nil, false
		}
		take = append(take, i)
	}
	return take, true
}

// InclusiveJoin decides an inclusive join: it fires when at least one token
// is parked at it and none of the other tokens of its scope instance, at the
// nodes others, can still reach it (Reachability). take lists the parked
// tokens it consumes, by index into vias: the first on each flow; later
// arrivals on a flow wait for the next round.
func InclusiveJoin(join *model.Node, vias []*model.Flow, others []*model.Node, r *Reachability) (take []int, fire bool) {
	if len(vias) == 0 {
		return nil, false
	}
	for _, at := range others {
		if at != join && r.CanReach(at, join) {
			return nil, false
		}
	}
	for i, f := range vias {
		if indexOf(vias[:i], f) < 0 {
			take = append(take, i)
		}
	}
	return take, true
}

func indexOf(flows []*model.Flow, f *model.Flow) int {
	for i, g := range flows {
		if g == f {
			return i
		}
	}
	return -1
}

// EventChoices are the events an event-based gateway arms, in the order of
// its outgoing flows; the first to fire wins and the engine disarms the rest.
func EventChoices(n *model.Node) []*model.Node {
	out := make([]*model.Node, len(n.Outgoing))
	for i, f := range n.Outgoing {
		out[i] = f.Target
	}
	return out
}

// EventTaken is the flow from event-based gateway n to its event that fired,
// or nil when that event is not one of n's.
func EventTaken(n, fired *model.Node) *model.Flow {
	for _, f := range n.Outgoing {
		if f.Target == fired {
			return f
		}
	}
	return nil
}
