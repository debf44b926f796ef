package engine

import (
	"github.com/workflowpp/wfpp/engine/model"
)

// Event sub-processes. When a scope (the process, or an embedded
// sub-process, or an event sub-process) starts, a watching token waits at
// the start event of each of its event sub-processes started by a message,
// timer or signal; error and escalation starts are found when one is
// thrown (throwError, escalate). Watchers do not keep their scope open and
// leave with it. When a start fires, an interrupting one ends the scope's
// other work, its other watchers too, and runs the event sub-process in
// the scope; a non-interrupting one runs it beside that work and keeps
// watching (a timer cycle fires again).

// armEventSubs starts the watchers of the event sub-processes of s, the
// model of scope scopeID.
func (x *instance) armEventSubs(scopeID uint64, s *model.Scope) {
	for _, es := range s.EventSubs() {
		st := es.EventStart()
		if st == nil {
			continue
		}
		switch st.Trigger {
		case model.TriggerMessage, model.TriggerTimer, model.TriggerSignal, model.TriggerConditional, model.TriggerMultiple:
		default:
			continue
		}
		w := x.newToken(scopeID)
		w.node, w.status, w.watch = st, TokenEvent, true
		if err := x.subscribe(w, st); err != nil {
			w.watch = false // an incident holds the scope open, so someone sees it
			x.incidentAt(w, "event", err.Error(), phaseEnter)
			continue
		}
		for _, s := range x.subs {
			if s.Token == w.id {
				s.Scope = scopeID // the watcher is stored as its subscriptions (Snapshot.TokenStates)
			}
		}
	}
}

// eventSubTriggered runs the event sub-process whose start n the watcher w
// waits at, as subscription s fired.
func (x *instance) eventSubTriggered(w *token, s *Subscription, n *model.Node, vars map[string]any) {
	es, scopeID := n.Scope.Owner, w.scope
	switch {
	case n.Interrupting:
		x.clearScope(scopeID) // the watcher too
	case s.Timer != nil && s.Repeat != 0:
		x.rearm(w, s, n)
	case s.Timer != nil && n.Trigger == model.TriggerMultiple:
		x.removeSubscription(s) // its other definitions still watch
	case s.Timer != nil:
		x.removeSubscription(s)
		x.removeToken(w) // a timer that fires once: nothing more to watch for
	}
	x.startEventSub(scopeID, es, vars)
}

// startEventSub runs event sub-process es in scope scopeID, its start
// event having happened.
func (x *instance) startEventSub(scopeID uint64, es *model.Node, vars map[string]any) {
	x.setVars(vars)
	x.runEventSub(x.newToken(scopeID), es, nil)
}

// runEventSub runs event sub-process es for holder, a token in the scope
// that holds es, which waits for it. Before its start event moves on,
// prepare (when set) gets its scope.
func (x *instance) runEventSub(holder *token, es *model.Node, prepare func(*scope)) {
	st := es.EventStart()
	holder.node, holder.status = es, TokenScope
	x.emit(EventElementActivated, es, holder, map[string]any{"interrupting": st.Interrupting})
	x.nextID++
	sc := &scope{id: x.nextID, node: es, parent: holder.scope, token: holder.id}
	x.scopes = append(x.scopes, sc)
	if prepare != nil {
		prepare(sc)
	}
	x.emit(EventSubProcessEntered, es, holder, map[string]any{"scope": sc.id})
	x.armEventSubs(sc.id, es.Body)
	inner := x.newToken(sc.id)
	inner.node = st
	x.emit(EventElementActivated, st, inner, nil)
	x.leave(inner)
}

// dropWatchers ends the watchers of scope scopeID, which ended.
func (x *instance) dropWatchers(scopeID uint64) {
	for i := len(x.tokens) - 1; i >= 0; i-- {
		if t := x.tokens[i]; t.scope == scopeID && t.watch {
			x.disarmToken(t)
			x.removeToken(t)
		}
	}
}

// scopeModel is the model of scope id: the process's, or a sub-process's body.
func (x *instance) scopeModel(id uint64) *model.Scope {
	if id == 0 {
		return &x.proc.Scope
	}
	if sc := x.scope(id); sc != nil {
		return sc.node.Body
	}
	return &model.Scope{}
}

// eventSubFor is the event sub-process of s whose error or escalation start
// catches code: the one naming it, else one catching every code.
func eventSubFor(s *model.Scope, trigger model.Trigger, code string) *model.Node {
	var starts []*model.Node
	for _, es := range s.EventSubs() {
		if st := es.EventStart(); st != nil {
			starts = append(starts, st)
		}
	}
	if st := catcher(starts, trigger, code); st != nil {
		return st.Scope.Owner
	}
	return nil
}
