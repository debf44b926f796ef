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
}

// noteCompensable notes activity n, which token t completed, when it has a
// compensation handler.
func (x *instance) noteCompensable(t *token, n *model.Node) {
	b := n.CompensationBoundary()
	if b == nil || b.Handler == nil {
		return
	}
	x.compensable = append(slices.Clip(x.compensable), Compensable{
		ElementID: n.ID, Handler: b.Handler.ID, Scope: t.scope, Variables: maps.Clone(x.evalVars(t)),
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
	slices.Reverse(todo)
	x.emit(EventCompensationThrown, n, t, map[string]any{"activities": len(todo)})
	t.status, t.comp = TokenCompensating, todo
	x.nextHandler(t)
}

// nextHandler runs the next handler of compensation throw t, or, when all
// have run, moves t on.
func (x *instance) nextHandler(t *token) {
	if len(t.comp) == 0 {
		t.status, t.comp = TokenActive, nil
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
	x.work = append(x.work, step{tok: h, node: x.proc.Node(c.Handler)})
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
