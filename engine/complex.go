package engine

import (
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/gateways"
)

// Complex gateways (gateways/complex.go has the rules). Waiting for start,
// the tokens arriving at a complex join park; whenever its tokens change,
// its activationCondition is evaluated with activationCount, the incoming
// flows with a token. When it holds the gateway takes one token per such
// flow and splits, its outgoing conditions seeing waitingForStart = true;
// a token with status "reset" then stands at the gateway for the flows it
// still waits on. When those have come (or cannot), it takes them and
// splits again with waitingForStart = false, and waits for start anew.
// Without an activationCondition it joins as an inclusive gateway does.

// fireComplexJoins fires the first complex join that is due and reports
// whether one fired.
func (x *instance) fireComplexJoins() bool {
	for _, t := range x.tokens {
		if t.node.Kind != model.KindComplexGateway || (t.status != TokenJoin && t.status != TokenReset) {
			continue
		}
		j, scope := t.node, t.scope
		var parked []*token
		var vias []*model.Flow
		var others []*model.Node
		var reset *token
		for _, o := range x.tokens {
			switch {
			case o.scope != scope:
			case o.node == j && o.status == TokenJoin:
				parked, vias = append(parked, o), append(vias, o.via)
			case o.node == j && o.status == TokenReset:
				reset = o
			default:
				others = append(others, o.node)
			}
		}
		if reset != nil {
			if x.complexReset(reset, parked, vias, others) {
				return true
			}
			continue
		}
		if len(parked) > 0 && x.complexStart(j, scope, parked, vias, others) {
			return true
		}
	}
	return false
}

// complexStart fires complex join j of scope when its activation
// condition holds for the tokens parked at it, and reports whether it did.
func (x *instance) complexStart(j *model.Node, scope uint64, parked []*token, vias []*model.Flow, others []*model.Node) bool {
	if j.ActivationCondition == "" {
		take, fire := gateways.InclusiveJoin(j, vias, others, x.dep.reach[x.proc])
		if fire {
			x.fireJoin(j, scope, pick(parked, take))
		}
		return fire
	}
	take := gateways.ComplexStart(vias)
	probe := &token{scope: scope, local: map[string]any{"activationCount": len(take)}}
	ok, err := x.condition(probe, j.ActivationCondition)
	if err != nil {
		x.incidentAt(parked[0], "condition", fmt.Sprintf("activationCondition of %q: %v", j.ID, err), phaseEnter)
		return true
	}
	if !ok {
		return false
	}
	var taken []*model.Flow
	for _, i := range take {
		taken = append(taken, vias[i])
		x.removeToken(parked[i])
	}
	x.emit(EventGatewayActivated, j, parked[take[0]], map[string]any{"activationCount": len(take)})
	if awaited := gateways.ComplexAwaited(j, taken); len(awaited) > 0 {
		r := x.newToken(scope)
		r.node, r.status = j, TokenReset
		for _, f := range awaited {
			r.awaits = append(r.awaits, f.ID)
		}
	}
	x.splitComplex(j, scope, true)
	return true
}

// complexReset fires the reset of complex join r.node when the flows token
// r waits on have brought their tokens or cannot, and reports whether it
// did.
func (x *instance) complexReset(r *token, parked []*token, vias []*model.Flow, others []*model.Node) bool {
	j := r.node
	var awaited []*model.Flow
	for _, f := range j.Incoming {
		if slices.Contains(r.awaits, f.ID) {
			awaited = append(awaited, f)
		}
	}
	take, fire := gateways.ComplexReset(awaited, vias, others, x.dep.reach[x.proc])
	if !fire {
		return false
	}
	x.removeToken(r)
	for _, i := range take {
		x.removeToken(parked[i])
	}
	x.emit(EventGatewayReset, j, r, map[string]any{"arrived": len(take)})
	if len(take) > 0 {
		x.splitComplex(j, r.scope, false)
	}
	x.joinsDirty = true // tokens that came early for the next round may start it
	return true
}

// splitComplex sends a token out of complex gateway j, its outgoing
// conditions seeing waitingForStart.
func (x *instance) splitComplex(j *model.Node, scope uint64, waitingForStart bool) {
	t := x.newToken(scope)
	t.node, t.local = j, map[string]any{"waitingForStart": waitingForStart}
	x.leave(t)
	if t.status != TokenIncident {
		t.local = nil // only the gateway's conditions see it
	}
}
