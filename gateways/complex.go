package gateways

import "github.com/workflowpp/wfpp/engine/model"

// A complex gateway joins in two phases (BPMN 2.0 §13.4.4). Waiting for
// start, it fires as soon as its activation condition holds for the tokens
// that have arrived (the engine evaluates it, with activationCount), taking
// the first token of each incoming flow. It then waits for reset: for a
// token on each incoming flow that had none, except flows no token of its
// scope can still arrive on. When those have come it fires again with
// them, and waits for start once more.

// ComplexStart returns the tokens a complex gateway waiting for start
// takes when it fires, by index into vias (the flows the tokens parked at
// it arrived by, in arrival order): the first on each flow. Their number
// is the activationCount its condition sees.
func ComplexStart(vias []*model.Flow) (take []int) {
	for i, f := range vias {
		if indexOf(vias[:i], f) < 0 {
			take = append(take, i)
		}
	}
	return take
}

// ComplexAwaited are the incoming flows of join that a reset waits for: those
// that brought none of the tokens taken at its start.
func ComplexAwaited(join *model.Node, taken []*model.Flow) []*model.Flow {
	var out []*model.Flow
	for _, f := range join.Incoming {
		if indexOf(taken, f) < 0 {
			out = append(out, f)
		}
	}
	return out
}

// ComplexReset decides a complex gateway waiting for reset: it fires when
// every awaited flow has a token parked (vias) or can no longer get one from
// the other tokens of its scope, at the nodes others. take lists the parked
// tokens it consumes: the first on each awaited flow.
func ComplexReset(awaited, vias []*model.Flow, others []*model.Node, r *Reachability) (take []int, fire bool) {
	for _, f := range awaited {
		if i := indexOf(vias, f); i >= 0 {
			take = append(take, i)
			continue
		}
		for _, at := range others {
			if r.CanReachFlow(at, f) {
				return nil, false
			}
		}
	}
	return take, true
}
