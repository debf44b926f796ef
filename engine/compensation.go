package engine

import (
	"maps"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// Compensation. When an activity with a compensation boundary event
// completes, the instance notes it, with its variables as they were then.
// A compensation throw or end event undoes the noted activities of its
// scope (all, or the one its activityRef names), newest first: it waits
// while their handlers run one after the other, each seeing the variables
// of its activity's completion, then goes on. An activity is compensated
// once. A sub-process that completes hands its noted activities to its own
// scope, so compensating there undoes them too (naming the sub-process as
// activityRef undoes what it holds); a scope that is interrupted takes
// its notes with it.

// Compensable is a completed activity a compensation can undo.
type Compensable struct {
	ElementID string         `json:"elementId" bson:"element_id"`
	Handler   string         `json:"handler" bson:"handler"`
	Scope     uint64         `json:"scope,omitempty" bson:"scope,omitempty"`
	Within    []string       `json:"within,omitempty" bson:"within,omitempty"` // the completed sub-processes it was in, innermost first
	Variables map[string]any `json:"variables,omitempty" bson:"variables,omitempty"`
	// Inner are the completed activities of a sub-process whose handler is
	// a compensation event sub-process: they are its to undo, not the
	// throw's.
	Inner []Compensable `json:"inner,omitempty" bson:"inner,omitempty"`
}

// noteCompensable notes activity n, which token t completed, when it has a
// compensation handler.
func (x *instance) noteCompensable(t *token, n *model.Node) {
	var handler string
	if b := n.CompensationBoundary(); b != nil && b.Handler != nil {
		handler = b.Handler.ID
	} else if es := n.CompensationEventSub(); es != nil {
		handler = es.ID
	} else {
		return
	}
	x.compensable = append(slices.Clip(x.compensable), Compensable{
		ElementID: n.ID, Handler: handler, Scope: t.scope, Variables: maps.Clone(x.evalVars(t)),
	})
}

// compensate starts undoing what the throw event n of token t names.
func (x *instance) compensate(t *token, n *model.Node) {
	var todo, keep []Compensable
	for _, c := range x.compensable {
		if c.Scope == t.scope && (n.ActivityRef == "" || c.ElementID == n.ActivityRef || slices.Contains(c.Within, n.ActivityRef)) {
			todo = append(todo, c)
		} else {
			keep = append(keep, c)
		}
	}
	x.compensable = keep
	todo = x.undoOrder(todo)
	x.emit(EventCompensationThrown, n, t, map[string]any{"activities": len(todo)})
	t.status, t.comp = TokenCompensating, todo
	x.nextHandler(t)
}

// undoOrder turns notes, in the order their activities completed, into
// the order they are undone: newest first, with the notes inside a
// sub-process that has a compensation event sub-process handed to it.
func (x *instance) undoOrder(notes []Compensable) []Compensable {
	var out []Compensable
	for _, c := range notes {
		if h := x.proc.Node(c.Handler); h != nil && h.EventSub {
			var inner []Compensable
			out = slices.DeleteFunc(out, func(o Compensable) bool {
				if slices.Contains(o.Within, c.ElementID) {
					inner = append(inner, o)
					return true
				}
				return false
			})
			c.Inner = inner
		}
		out = append(out, c)
	}
	slices.Reverse(out)
	return out
}

// nextHandler runs the next handler of compensation throw t, or, when all
// have run, moves t on.
func (x *instance) nextHandler(t *token) {
	if len(t.comp) == 0 {
		t.status, t.comp = TokenActive, nil
		if t.node.Trigger == model.TriggerCancel {
			x.transactionCancelled(t)
			return
		}
		if t.node.Kind == model.KindEndEvent {
			x.emit(EventElementCompleted, t.node, t, nil)
			x.consume(t)
			return
		}
		x.leave(t)
		return
	}
	c := t.comp[0]
	t.comp = t.comp[1:]
	h := x.newToken(c.Scope)
	h.compFor, h.local = t.id, c.Variables // the variables as they were when the activity completed
	handler := x.proc.Node(c.Handler)
	if !handler.EventSub {
		x.work = append(x.work, step{tok: h, node: handler})
		return
	}
	// A compensation event sub-process: it sees the sub-process's variables
	// as they were, and its compensation throws undo the sub-process's
	// completed activities.
	x.runEventSub(h, handler, func(sc *scope) {
		sc.vars, sc.view = c.Variables, true
		for _, in := range c.Inner {
			in.Scope = sc.id
			if i := slices.Index(in.Within, c.ElementID); i >= 0 {
				in.Within = in.Within[:i:i]
			}
			x.compensable = append(slices.Clip(x.compensable), in)
		}
	})
}

// handlerDone goes on with the compensation throw id whose handler ended.
func (x *instance) handlerDone(id uint64) {
	if t := x.token(id); t != nil && t.status == TokenCompensating {
		x.nextHandler(t)
	}
}

// scopeCompleted hands the notes of a completed sub-process's scope to the
// scope that holds it.
func (x *instance) scopeCompleted(sc *scope) {
	x.compensable = slices.Clone(x.compensable) // the stored snapshot shares the old one
	for i := range x.compensable {
		if c := &x.compensable[i]; c.Scope == sc.id {
			c.Scope, c.Within = sc.parent, append(slices.Clip(c.Within), sc.node.ID)
		}
	}
}

// scopeInterrupted drops the notes of an interrupted scope.
func (x *instance) scopeInterrupted(id uint64) {
	x.compensable = slices.DeleteFunc(slices.Clone(x.compensable), func(c Compensable) bool { return c.Scope == id })
}
