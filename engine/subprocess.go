package engine

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// enterSubProcess opens a scope for an embedded sub-process and starts a
// token at its start event; the entering token waits for the scope to end.
func (x *instance) enterSubProcess(t *token) {
	n := t.node
	local, err := x.inputs(t, n)
	if err != nil {
		x.incidentAt(t, "expression", err.Error(), phaseEnter)
		return
	}
	if len(n.Body.Nodes) == 0 {
		x.finishActivity(t, nil) // an empty sub-process completes at once
		return
	}
	starts := n.Body.NoneStarts()
	if len(starts) == 0 {
		starts = n.Body.ImplicitStarts()
	}
	if len(starts) == 0 {
		x.incident(t, "definition", fmt.Sprintf("sub-process %q has no start event", n.ID))
		return
	}
	t.status = TokenScope
	x.nextID++
	sc := &scope{id: x.nextID, node: n, parent: t.scope, token: t.id}
	if t.outer != 0 {
		// An instance of a multi-instance sub-process: its item,
		// loopCounter and inputs are its own, not its siblings'.
		sc.vars = maps.Clone(local)
	} else {
		x.setVars(local)
	}
	x.scopes = append(x.scopes, sc)
	x.emit(EventSubProcessEntered, n, t, map[string]any{"scope": sc.id})
	x.armBoundaries(t)
	x.armEventSubs(sc.id, n.Body)
	if n.AdHoc != nil {
		x.startAdHoc(t, sc)
		return
	}
	if len(n.Body.NoneStarts()) == 0 { // an implicit start: every node no flow enters
		for _, s := range starts {
			x.work = append(x.work, step{tok: x.newToken(sc.id), node: s})
		}
		return
	}
	inner := x.newToken(sc.id)
	x.work = append(x.work, step{tok: inner, node: starts[0]})
}

// terminateScope removes every token in a scope and the scopes inside it,
// and the scope itself: its sub-process was interrupted. For the process
// scope (0) it ends the instance as completed.
func (x *instance) terminateScope(id uint64) {
	x.clearScope(id)
	if id == 0 {
		x.finish(StatusCompleted, EventInstanceCompleted, map[string]any{"terminated": true})
		return
	}
	x.scopes = slices.DeleteFunc(x.scopes, func(sc *scope) bool { return sc.id == id })
	x.scopeInterrupted(id)
}

// clearScope removes every token in a scope and every scope inside it, but
// keeps the scope: a terminate end event in a sub-process ends its tokens and
// the sub-process then completes as usual.
func (x *instance) clearScope(id uint64) {
	for _, sc := range slices.Clone(x.scopes) {
		if sc.parent == id && sc.id != 0 {
			x.terminateScope(sc.id)
		}
	}
	for i := len(x.tokens) - 1; i >= 0; i-- {
		t := x.tokens[i]
		if t.scope != id {
			continue
		}
		x.disarmToken(t)
		if t.taskID != "" {
			x.cancelTask(t)
		}
		x.resolveIncidentsOf(t)
		x.emit(EventElementTerminated, t.node, t, nil)
		x.removeToken(t)
	}
	x.joinsDirty = true
}

// throwError throws a BPMN error from token t at node n: the nearest error
// boundary event that catches the code takes over, interrupting everything
// between; when none does, the token gets an incident (or the instance
// fails fast).
func (x *instance) throwError(t *token, n *model.Node, code, message string) {
	x.emit(EventErrorThrown, n, t, map[string]any{"code": code, "message": message})
	// Innermost first: the activity's own boundary events (when an activity
	// throws), the event sub-processes of its scope, the boundary events of
	// the sub-process that owns the scope, and so on out.
	holder, act, scopeID := t, n, t.scope
	if !act.Kind.IsActivity() {
		holder, act = nil, nil
	}
	for {
		if act != nil && holder != nil {
			holder = x.activityToken(holder)
			if b := errorBoundary(act, code); b != nil {
				if holder != t {
					x.removeToken(t)
				}
				x.interrupt(holder)
				d := b.Definition(model.TriggerError)
				x.setVars(map[string]any{cmp.Or(d.ErrorCodeVariable, "errorCode"): code, cmp.Or(d.ErrorMessageVariable, "errorMessage"): message})
				x.work = append(x.work, step{tok: holder, node: b})
				return
			}
			scopeID = holder.scope
		}
		if es := eventSubFor(x.scopeModel(scopeID), model.TriggerError, code); es != nil {
			st := es.EventStart().Definition(model.TriggerError)
			x.clearScope(scopeID) // an error start always interrupts; the thrower goes with the rest
			x.startEventSub(scopeID, es, map[string]any{cmp.Or(st.ErrorCodeVariable, "errorCode"): code, cmp.Or(st.ErrorMessageVariable, "errorMessage"): message})
			return
		}
		if scopeID == 0 {
			break
		}
		if holder, act = x.scopeOwner(scopeID); holder == nil {
			break
		}
	}
	if x.branchFailed(t, code, message) {
		return // the branch of a policy join failed: the join counts it
	}
	if x.propagateError(t, n, code, message) {
		return
	}
	if x.failsFast() {
		x.failFast(t, code, message)
		return
	}
	x.incidentAt(t, "error", fmt.Sprintf("unhandled BPMN error %q thrown by %q: %s; add an error boundary event that catches it", code, n.ID, message), phaseEnter)
}

// activityToken returns the token that stands for the whole activity: for an
// instance of a multi-instance activity the token waiting for all of them,
// whose boundary events end the whole activity; else t itself.
func (x *instance) activityToken(t *token) *token {
	if t.outer != 0 {
		if o := x.token(t.outer); o != nil {
			return o
		}
	}
	return t
}

// scopeOwner returns the token waiting at the sub-process that holds scope id.
func (x *instance) scopeOwner(id uint64) (*token, *model.Node) {
	if id == 0 {
		return nil, nil
	}
	sc := x.scope(id)
	if sc == nil {
		return nil, nil
	}
	return x.token(sc.token), sc.node
}

func errorBoundary(act *model.Node, code string) *model.Node {
	return catcher(act.Boundaries, model.TriggerError, code)
}

// catcher is the event among events, with the trigger, that catches code:
// the one naming it, else the first that catches every code.
func catcher(events []*model.Node, trigger model.Trigger, code string) *model.Node {
	var all *model.Node
	for _, ev := range events {
		d := ev.Definition(trigger) // a multiple event catches by any of its definitions
		if d == nil {
			continue
		}
		switch caught := d.CaughtCode(); {
		case caught == code && code != "":
			return ev
		case caught == "" && all == nil:
			all = ev
		}
	}
	return all
}
