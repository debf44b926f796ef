package engine

import (
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// Transactions. A cancel end event cancels the transaction sub-process it
// sits in: the transaction's other work ends, the activities it completed
// are compensated, newest first (the compensation end event's way), then
// the transaction ends and its cancel boundary event takes the token on.
// An error that leaves a transaction (a hazard) compensates nothing, as
// BPMN says.

// cancelTransaction starts cancelling the transaction of cancel end event
// token t.
func (x *instance) cancelTransaction(t *token) {
	n := t.node
	x.removeToken(t) // out of the way of clearScope, back right after
	t.removed = false
	x.clearScope(t.scope)
	x.tokens = append(x.tokens, t)
	var todo []Compensable
	x.compensable = slices.DeleteFunc(slices.Clone(x.compensable), func(c Compensable) bool {
		if c.Scope == t.scope {
			todo = append(todo, c)
			return true
		}
		return false
	})
	todo = x.undoOrder(todo)
	x.emit(EventTransactionCancelled, n, t, map[string]any{"compensating": len(todo)})
	t.status, t.comp = TokenCompensating, todo
	x.nextHandler(t)
}

// transactionCancelled ends the transaction of cancel end event token t,
// whose compensation is done, and fires the transaction's cancel boundary
// event.
func (x *instance) transactionCancelled(t *token) {
	x.emit(EventElementCompleted, t.node, t, nil)
	x.removeToken(t)
	holder, tx := x.scopeOwner(t.scope)
	if holder == nil {
		return
	}
	holder = x.activityToken(holder)
	x.interrupt(holder)
	for _, b := range tx.Boundaries {
		if b.Trigger == model.TriggerCancel {
			x.emit(EventBoundaryTriggered, b, holder, map[string]any{"interrupting": true})
			x.work = append(x.work, step{tok: holder, node: b})
			return
		}
	}
	x.consume(holder) // no cancel boundary event: the transaction ends, and nothing follows it
}
