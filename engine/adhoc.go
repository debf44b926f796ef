package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// Ad-hoc sub-processes. Entering one opens its scope like any sub-process
// but starts nothing by itself: the activities its activeElementsCollection
// lists start, and so do those Engine.ActivateAdHoc names while it runs
// (any node of its body that no flow enters; an activity may run several
// times). Sequential ones run one at a time, the rest waiting in order.
// Each time an activity in it completes, its completionCondition is
// evaluated; when it holds the sub-process completes, cancelling what
// still runs (cancelRemainingInstances, default true) or once that has
// ended. Without a condition it completes when what was started has ended;
// until something is started it waits.

// AdHocState is the state of a running ad-hoc sub-process's scope.
type AdHocState struct {
	Started    int      `json:"started,omitempty" bson:"started,omitempty"`       // activities started so far
	Pending    []string `json:"pending,omitempty" bson:"pending,omitempty"`       // sequential: the ids waiting their turn
	Completing bool     `json:"completing,omitempty" bson:"completing,omitempty"` // its completion condition held
}

// startAdHoc starts what the ad-hoc sub-process of scope sc lists on entry.
func (x *instance) startAdHoc(t *token, sc *scope) {
	sc.adhoc = &AdHocState{}
	spec := sc.node.AdHoc
	if spec.ActiveElements == "" {
		return
	}
	v, err := x.eval(x.evalVars(t), spec.ActiveElements)
	if err != nil {
		x.incidentAt(t, "expression", fmt.Sprintf("activeElementsCollection of %q: %v", sc.node.ID, err), phaseEnter)
		return
	}
	ids, err := adHocIDs(sc.node, v)
	if err != nil {
		x.incidentAt(t, "expression", err.Error(), phaseEnter)
		return
	}
	x.activateAdHoc(sc, ids)
}

// adHocIDs reads v, the value of an activeElementsCollection or the ids an
// activation names, as element ids that ad-hoc sub-process n can start.
func adHocIDs(n *model.Node, v any) ([]string, error) {
	var ids []string
	switch v := v.(type) {
	case nil:
	case []string:
		ids = v
	case []any:
		for _, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, fmt.Errorf("activeElementsCollection of %q holds %v, not an element id: give a list of strings", n.ID, item)
			}
			ids = append(ids, s)
		}
	default:
		return nil, fmt.Errorf("activeElementsCollection of %q is %T, not a list of element ids", n.ID, v)
	}
	can := n.Body.ImplicitStarts()
	for _, id := range ids {
		if !slices.ContainsFunc(can, func(m *model.Node) bool { return m.ID == id }) {
			names := make([]string, len(can))
			for i, m := range can {
				names[i] = m.ID
			}
			return nil, fmt.Errorf("ad-hoc sub-process %q cannot start %q: it starts %s", n.ID, id, strings.Join(names, ", "))
		}
	}
	return ids, nil
}

// activateAdHoc starts the elements ids in the ad-hoc scope sc, or queues
// them when it runs one at a time.
func (x *instance) activateAdHoc(sc *scope, ids []string) {
	for _, id := range ids {
		if sc.node.AdHoc.Sequential && (x.scopeBusy(sc.id) || len(sc.adhoc.Pending) > 0) {
			sc.adhoc.Pending = append(slices.Clip(sc.adhoc.Pending), id)
			continue
		}
		x.startInAdHoc(sc, id)
	}
}

func (x *instance) startInAdHoc(sc *scope, id string) {
	sc.adhoc.Started++
	x.emit(EventAdHocActivated, sc.node, x.token(sc.token), map[string]any{"elementId": id})
	x.work = append(x.work, step{tok: x.newToken(sc.id), node: x.proc.Node(id)})
}

// adHocActivityDone notes that an activity completed in scope id, for its
// ad-hoc sub-process's completion condition.
func (x *instance) adHocActivityDone(id uint64) {
	if sc := x.scope(id); sc != nil && sc.adhoc != nil && !slices.Contains(x.adhocDirty, id) {
		x.adhocDirty = append(x.adhocDirty, id)
	}
}

// checkAdHoc evaluates the completion conditions of the ad-hoc
// sub-processes in which an activity completed, and reports whether tokens
// changed.
func (x *instance) checkAdHoc() bool {
	changed := false
	for _, id := range x.adhocDirty {
		sc := x.scope(id)
		if sc == nil || sc.adhoc.Completing || sc.node.AdHoc.Completion == "" {
			continue
		}
		owner := x.token(sc.token)
		ok, err := x.condition(&token{scope: sc.id}, sc.node.AdHoc.Completion)
		if err != nil {
			if owner != nil {
				x.incidentAt(owner, "condition", fmt.Sprintf("completionCondition of %q: %v", sc.node.ID, err), phaseEnter)
			}
			continue
		}
		if !ok {
			continue
		}
		sc.adhoc.Completing, sc.adhoc.Pending = true, nil
		x.emit(EventAdHocCompleting, sc.node, owner, map[string]any{"cancelRemaining": sc.node.AdHoc.CancelRemaining})
		if sc.node.AdHoc.CancelRemaining {
			x.clearScope(sc.id)
			changed = true
		}
	}
	x.adhocDirty = x.adhocDirty[:0]
	return changed
}

// adHocIdle decides what an ad-hoc scope with nothing running does: start
// the next pending element (true), or complete (false, done), or wait
// (false, not done).
func (x *instance) adHocIdle(sc *scope) (moved, done bool) {
	a := sc.adhoc
	switch {
	case a.Completing:
		return false, true
	case len(a.Pending) > 0:
		id := a.Pending[0]
		a.Pending = a.Pending[1:]
		x.startInAdHoc(sc, id)
		return true, false
	}
	return false, sc.node.AdHoc.Completion == "" && a.Started > 0
}

// ActivateAdHoc starts the elements ids in the running ad-hoc sub-process
// elementID of an instance (Camunda's "activate ad-hoc sub-process
// activities"), with vars set first.
func (e *Engine) ActivateAdHoc(ctx context.Context, instanceID, elementID string, ids []string, vars map[string]any) (*Snapshot, error) {
	if elementID == "" || len(ids) == 0 {
		return nil, fmt.Errorf("an activation names the ad-hoc sub-process and at least one element to start: %w", ErrInvalidInput)
	}
	if err := e.checkVariables(vars); err != nil {
		return nil, err
	}
	return e.control(ctx, command{kind: cmdActivateAdHoc, inst: instanceID, target: elementID, elements: ids, vars: vars})
}

// activatedAdHoc applies ActivateAdHoc.
func (x *instance) activatedAdHoc(c command) error {
	for _, sc := range x.scopes {
		if sc.node.ID != c.target || sc.adhoc == nil {
			continue
		}
		if sc.adhoc.Completing {
			return fmt.Errorf("ad-hoc sub-process %q is completing: it starts nothing more: %w", c.target, ErrConflict)
		}
		ids, err := adHocIDs(sc.node, c.elements)
		if err != nil {
			return fmt.Errorf("%w: %w", err, ErrInvalidInput)
		}
		x.setVars(c.vars)
		x.activateAdHoc(sc, ids)
		return nil
	}
	return fmt.Errorf("instance %s runs no ad-hoc sub-process %q: %w", x.id, c.target, ErrNotFound)
}
