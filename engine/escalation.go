package engine

import (
	"cmp"

	"github.com/workflowpp/wfpp/engine/model"
)

// Escalation. A throw or end event escalates its code to the activities
// around it, innermost first: sub-processes, then, in a called instance,
// the call activity that started it, in its caller. The first escalation
// boundary event that catches the code (or all codes) fires: an
// interrupting one ends the activity, the thrower with it, and takes its
// path; a non-interrupting one starts its path beside the activity, which
// goes on, and so does the thrower. Nothing catching it is no error: the
// thrower goes on.

// throwEscalation escalates the code of token t's event n and reports
// whether t was ended by an interrupting catch.
func (x *instance) throwEscalation(t *token, n *model.Node) bool {
	x.emit(EventEscalationThrown, n, t, map[string]any{"code": n.EscalationCode})
	return x.escalate(t.scope, nil, nil, n.EscalationCode)
}

// escalate looks for a catch of code: on act (whose token is holder), then
// in the event sub-processes of scope scopeID, then on the sub-process that
// owns the scope, and so on out, then in the caller. It reports whether an
// interrupting catch ended the thrower.
func (x *instance) escalate(scopeID uint64, holder *token, act *model.Node, code string) bool {
	for {
		if act != nil && holder != nil {
			holder = x.activityToken(holder)
			if b := escalationBoundary(act, code); b != nil {
				x.setVars(map[string]any{cmp.Or(b.Definition(model.TriggerEscalation).EscalationCodeVariable, "escalationCode"): code})
				x.emit(EventBoundaryTriggered, b, holder, map[string]any{"interrupting": b.Interrupting, "escalation": code})
				if b.Interrupting {
					x.interrupt(holder)
					x.work = append(x.work, step{tok: holder, node: b})
					return true
				}
				x.work = append(x.work, step{tok: x.newToken(holder.scope), node: b})
				return false
			}
			scopeID = holder.scope
		}
		if es := eventSubFor(x.scopeModel(scopeID), model.TriggerEscalation, code); es != nil {
			st := es.EventStart()
			if st.Interrupting {
				x.clearScope(scopeID)
			}
			x.startEventSub(scopeID, es, map[string]any{cmp.Or(st.Definition(model.TriggerEscalation).EscalationCodeVariable, "escalationCode"): code})
			return st.Interrupting
		}
		if scopeID == 0 {
			break
		}
		if holder, act = x.scopeOwner(scopeID); holder == nil {
			break
		}
	}
	if x.head.Parent != nil {
		x.p.effects.escalations = append(x.p.effects.escalations, childEscalation{parent: *x.head.Parent, child: x.id, code: code})
	}
	return false
}

func escalationBoundary(act *model.Node, code string) *model.Node {
	return catcher(act.Boundaries, model.TriggerEscalation, code)
}

// childEscalation is an escalation a called instance did not catch, for
// its caller's call activity.
type childEscalation struct {
	parent ParentRef
	child  string
	code   string
}

// childEscalated escalates a called instance's code at the call activity
// waiting for it.
func (x *instance) childEscalated(c command) {
	t := x.token(c.token)
	if t == nil || t.status != TokenCall || t.child != c.child {
		return
	}
	x.escalate(t.scope, t, t.node, c.name)
}

// throwAll throws every definition of a multiple throw or end event n: its
// signals and escalations, then its compensation. It reports whether t is
// taken care of: ended by an interrupting catch of an escalation, or
// waiting for the compensation, which moves it on when done.
func (x *instance) throwAll(t *token, n *model.Node) bool {
	for _, alt := range n.Alternatives {
		switch alt.Trigger {
		case model.TriggerSignal:
			x.throwSignal(t, alt)
		case model.TriggerEscalation:
			if x.throwEscalation(t, alt) {
				return true
			}
		}
	}
	if c := n.Definition(model.TriggerCompensation); c != nil {
		x.compensate(t, c)
		return true
	}
	return false
}
