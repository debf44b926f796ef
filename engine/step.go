package engine

import (
	"errors"
	"fmt"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/gateways"
)

// drain moves tokens until none can move without something from outside,
// firing inclusive joins and completing scopes as they become ready.
func (x *instance) drain() {
	for {
		for i := 0; i < len(x.work); i++ {
			w := x.work[i]
			x.work[i] = step{}
			if w.tok.removed {
				continue // its scope ended (an interrupting event) before it moved
			}
			if x.steps++; x.steps > x.e.cfg.MaxSteps {
				x.incident(w.tok, "loop", fmt.Sprintf("more than %d steps without a wait state: the process loops without end", x.e.cfg.MaxSteps))
				continue
			}
			x.enter(w.tok, w.node, w.via)
		}
		x.work = x.work[:0]
		if x.status.Done() {
			return
		}
		if x.joinsDirty && (x.fireInclusiveJoins() || x.fireComplexJoins() || x.settleJoins()) {
			continue
		}
		if x.checkConditions() {
			continue
		}
		if len(x.adhocDirty) > 0 && x.checkAdHoc() {
			continue
		}
		if !x.completeScopes() {
			return
		}
	}
}

// go moves a token along a flow; it enters the target on the next step.
func (x *instance) goTo(t *token, f *model.Flow) {
	x.emitFlow(f, t)
	x.work = append(x.work, step{tok: t, node: f.Target, via: f})
}

// enter puts a token on a node and does what the node does.
func (x *instance) enter(t *token, n *model.Node, via *model.Flow) {
	t.node, t.via, t.status, t.attempt = n, via, TokenActive, 0
	x.emit(EventElementActivated, n, t, nil)
	if x.joins != nil {
		x.enterBranches(t, n, via)
	}
	if len(n.ExecListeners) > 0 && !x.runExecListeners(t, model.ListenStart) {
		return
	}
	if len(n.ExecJobs) > 0 && x.awaitExecJobs(t, model.ListenStart, 0) {
		return // begin runs when the listeners' jobs are done
	}
	x.begin(t)
}

// begin does what the token's node does, its start listeners done.
func (x *instance) begin(t *token) {
	n := t.node
	if n.Loop != nil && t.outer == 0 {
		x.enterMultiInstance(t)
		return
	}
	if n.Repeat != nil && !x.beginRun(t) {
		return
	}
	switch n.Kind {
	case model.KindStartEvent:
		if n.Trigger == model.TriggerNone || n.Scope.Owner != nil {
			x.leave(t)
			return
		}
		x.catch(t, n)
	case model.KindEndEvent:
		x.end(t)
	case model.KindExclusiveGateway:
		x.leave(t)
	case model.KindParallelGateway, model.KindInclusiveGateway, model.KindComplexGateway:
		if gateways.IsJoin(n) {
			x.park(t)
			return
		}
		x.leave(t)
	case model.KindEventBasedGateway:
		x.armEventGateway(t)
	case model.KindTask: // none and manual tasks: their input and output mappings still apply
		if x.takeInputs(t) {
			x.finishActivity(t, nil)
		}
	case model.KindBoundaryEvent:
		x.leave(t)
	case model.KindServiceTask, model.KindScriptTask:
		x.startJob(t)
	case model.KindUserTask:
		x.createTask(t)
	case model.KindReceiveTask:
		x.catch(t, n)
	case model.KindIntermediateCatchEvent:
		if n.Trigger == model.TriggerNone || n.Trigger == model.TriggerLink {
			x.finishActivity(t, nil)
			return
		}
		x.catch(t, n)
	case model.KindIntermediateThrowEvent:
		x.throw(t)
	case model.KindSubProcess:
		x.enterSubProcess(t)
	case model.KindCallActivity:
		x.callActivity(t)
	default:
		x.incident(t, "unsupported", fmt.Sprintf("%s cannot run", n.Kind))
	}
}

// leave completes the token's node and sends it (and copies of it) along the
// chosen outgoing flows, once its end listeners' jobs are done. No
// outgoing flow is an implicit end.
func (x *instance) leave(t *token) {
	if len(t.node.ExecJobs) > 0 && x.awaitExecJobs(t, model.ListenEnd, 0) {
		return // proceed runs when they are done
	}
	x.proceed(t)
}

// proceed is leave after the end listeners' jobs.
func (x *instance) proceed(t *token) {
	n := t.node
	if n.Repeat != nil && t.loops > 0 && x.runAgain(t) {
		return
	}
	d, err := gateways.Split(n, func(f *model.Flow) (bool, error) {
		return x.condition(t, f.Condition)
	})
	if err != nil {
		var ce *gateways.ConditionError
		switch {
		case errors.As(err, &ce):
			x.incidentAt(t, "condition", err.Error(), phaseLeave)
		case errors.Is(err, gateways.ErrNoFlow) && n.Kind == model.KindComplexGateway && t.local["waitingForStart"] == false:
			x.emit(EventElementCompleted, n, t, nil) // a reset no condition lets out ends here (BPMN §13.4.4)
			x.consume(t)
		case errors.Is(err, gateways.ErrNoFlow):
			x.incidentAt(t, "condition", fmt.Sprintf("%s %q: no condition of its outgoing flows holds and it has no default flow: add a default flow or fix the variables, then retry", n.Kind, n.ID), phaseLeave)
		default:
			x.incidentAt(t, "condition", err.Error(), phaseLeave)
		}
		return
	}
	if len(d.Results) > 0 || d.Default {
		x.emit(EventGatewayDecided, n, t, decisionDetail(d))
	}
	if len(n.ExecListeners) > 0 && !x.runExecListeners(t, model.ListenEnd) {
		return
	}
	x.emit(EventElementCompleted, n, t, nil)
	if n.Kind.IsActivity() && t.outer == 0 {
		x.noteCompensable(t, n)
	}
	if n.Kind.IsActivity() && t.scope != 0 {
		x.adHocActivityDone(t.scope)
	}
	if len(d.Chosen) == 0 {
		x.consume(t)
		return
	}
	for i, f := range d.Chosen {
		next := t
		if i > 0 {
			next = x.newToken(t.scope)
		}
		x.goTo(next, f)
	}
}

// decisionDetail records a split's decision as plain JSON values, the shape
// every store gives back.
func decisionDetail(d gateways.Decision) map[string]any {
	results := make([]any, len(d.Results))
	for i, r := range d.Results {
		results[i] = map[string]any{"flowId": r.FlowID, "value": r.Value}
	}
	chosen := make([]any, len(d.Chosen))
	for i, f := range d.Chosen {
		chosen[i] = f.ID
	}
	return map[string]any{"conditions": results, "chosen": chosen, "default": d.Default}
}

// consume removes a token that has nowhere further to go.
func (x *instance) consume(t *token) {
	x.removeToken(t)
	x.joinsDirty = true
	if t.compFor != 0 {
		x.handlerDone(t.compFor)
	}
}

// end handles an end event.
func (x *instance) end(t *token) {
	n := t.node
	switch n.Trigger {
	case model.TriggerTerminate:
		x.emit(EventElementCompleted, n, t, nil)
		x.removeToken(t)
		if t.scope == 0 {
			x.terminateScope(0)
		} else {
			x.clearScope(t.scope)
		}
	case model.TriggerError:
		x.throwError(t, n, n.ErrorCode, n.ErrorMessage)
	case model.TriggerSignal:
		x.throwSignal(t, n)
		x.emit(EventElementCompleted, n, t, nil)
		x.consume(t)
	case model.TriggerEscalation:
		if x.throwEscalation(t, n) {
			return
		}
		x.emit(EventElementCompleted, n, t, nil)
		x.consume(t)
	case model.TriggerCompensation:
		x.compensate(t, n)
	case model.TriggerCancel:
		x.cancelTransaction(t)
	case model.TriggerMultiple:
		if x.throwAll(t, n) {
			return
		}
		x.emit(EventElementCompleted, n, t, nil)
		x.consume(t)
	default:
		x.emit(EventElementCompleted, n, t, nil)
		x.consume(t)
	}
}

// throw handles an intermediate throw event.
func (x *instance) throw(t *token) {
	n := t.node
	if n.Trigger == model.TriggerSignal {
		x.throwSignal(t, n)
	}
	if n.Trigger == model.TriggerEscalation && x.throwEscalation(t, n) {
		return
	}
	if n.Trigger == model.TriggerCompensation {
		x.compensate(t, n)
		return
	}
	if n.Trigger == model.TriggerMultiple && x.throwAll(t, n) {
		return
	}
	if n.Trigger != model.TriggerLink {
		x.leave(t)
		return
	}
	x.emit(EventElementCompleted, n, t, nil)
	for _, m := range n.Scope.Nodes {
		if m.Kind == model.KindIntermediateCatchEvent && m.Trigger == model.TriggerLink && m.LinkName == n.LinkName {
			x.work = append(x.work, step{tok: t, node: m})
			return
		}
	}
	x.incident(t, "link", fmt.Sprintf("no link catch event named %q", n.LinkName))
}

// park holds a token at a joining gateway until the join fires.
func (x *instance) park(t *token) {
	t.status = TokenJoin
	n := t.node
	if n.JoinPolicy != nil && n.Kind != model.KindComplexGateway {
		x.arriveAtPolicyJoin(t)
		return
	}
	if n.Kind == model.KindInclusiveGateway || n.Kind == model.KindComplexGateway {
		x.joinsDirty = true
		return
	}
	var parked []*token
	var vias []*model.Flow
	for _, o := range x.tokens {
		if o.node == n && o.scope == t.scope && o.status == TokenJoin {
			parked, vias = append(parked, o), append(vias, o.via)
		}
	}
	if take, fire := gateways.ParallelJoin(n, vias); fire {
		x.fireJoin(n, t.scope, pick(parked, take))
	}
}

// pick returns the tokens at the indices a gateway decision names.
func pick(tokens []*token, take []int) []*token {
	out := make([]*token, len(take))
	for i, k := range take {
		out[i] = tokens[k]
	}
	return out
}

// fireJoin consumes the given tokens at a join and sends one on.
func (x *instance) fireJoin(n *model.Node, scope uint64, arrived []*token) {
	for _, a := range arrived {
		if a != nil {
			x.removeToken(a)
		}
	}
	t := x.newToken(scope)
	t.node = n
	x.leave(t)
}

// fireInclusiveJoins fires every inclusive join that no other token of its
// scope can still reach. It reports whether one fired.
func (x *instance) fireInclusiveJoins() bool {
	x.joinsDirty = false
	fired := false
	for _, t := range x.tokens {
		if t.status != TokenJoin || t.node.Kind != model.KindInclusiveGateway {
			continue
		}
		j, scope := t.node, t.scope
		var others []*model.Node
		var parked []*token
		var vias []*model.Flow
		for _, o := range x.tokens {
			if o.scope != scope {
				continue
			}
			if o.node == j && o.status == TokenJoin {
				parked, vias = append(parked, o), append(vias, o.via)
				continue
			}
			others = append(others, o.node)
		}
		take, fire := gateways.InclusiveJoin(j, vias, others, x.dep.reach[x.proc])
		if !fire {
			continue
		}
		x.fireJoin(j, scope, pick(parked, take))
		fired = true
		break // tokens changed; look again from the start
	}
	return fired || len(x.work) > 0
}

// completeScopes ends every scope that has no token left. It reports whether
// tokens moved as a result.
func (x *instance) completeScopes() bool {
	for i := len(x.scopes) - 1; i >= 0; i-- {
		sc := x.scopes[i]
		if x.scopeBusy(sc.id) {
			continue
		}
		if sc.adhoc != nil {
			if moved, done := x.adHocIdle(sc); moved {
				return true
			} else if !done {
				continue
			}
		}
		x.scopes = append(x.scopes[:i], x.scopes[i+1:]...)
		x.dropWatchers(sc.id)
		x.scopeCompleted(sc)
		owner := x.token(sc.token)
		if owner == nil {
			continue
		}
		x.emit(EventSubProcessCompleted, sc.node, owner, nil)
		if sc.vars != nil { // a multi-instance output element reads them
			owner.local = mergedVars(owner.local, sc.vars)
		}
		x.finishActivity(owner, nil)
		return true
	}
	if !x.scopeBusy(0) && !x.status.Done() {
		x.dropWatchers(0)
		x.finish(StatusCompleted, EventInstanceCompleted, nil)
	}
	return false
}

// scopeBusy reports whether tokens work in scope id; those that only watch
// for an event sub-process's start do not keep it open.
func (x *instance) scopeBusy(id uint64) bool {
	for _, t := range x.tokens {
		if t.scope == id && !t.watch {
			return true
		}
	}
	return false
}

// finish ends the instance.
func (x *instance) finish(s Status, typ EventType, detail map[string]any) {
	x.stopDeadline()
	for _, sub := range x.subs {
		x.dropSubscription(sub)
	}
	x.subs = nil
	x.status = s
	now := x.now
	x.head.Ended = &now
	if x.head.Parent != nil { // a called instance's end names its caller
		detail = mergedVars(detail, map[string]any{"parent": x.head.Parent.InstanceID})
	}
	x.emit(typ, nil, nil, detail)
	x.ended()
	x.chain()
}
