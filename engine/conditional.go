package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// Conditional events (catch, boundary, event sub-process start) fire when
// their condition becomes true: evaluated when the event is reached (true
// then fires at once), and again after every step that changed variables
// the event listens to (VariableNames, VariableEvents; all when empty). A
// non-interrupting one fires again the next time the condition turns from
// false to true. An empty condition (a drawing) never holds.

// checkConditions evaluates the conditional subscriptions that are new or
// whose variables changed, and fires those whose condition became true. It
// reports whether any fired.
func (x *instance) checkConditions() bool {
	if len(x.newConds) == 0 && len(x.changed) == 0 {
		return false
	}
	fresh, changed := x.newConds, x.changed
	x.newConds, x.changed = nil, nil
	fired := false
	for _, s := range slices.Clone(x.subs) {
		if !s.Conditional || x.subscription(s.ID) == nil {
			continue // not conditional, or gone with one that fired before it
		}
		n := x.proc.Node(s.ElementID)
		t := x.token(s.Token)
		if n == nil || t == nil || (!slices.Contains(fresh, s.ID) && !listensTo(n, changed)) {
			continue
		}
		holds, err := x.conditionHolds(t, n.Definition(model.TriggerConditional))
		if err != nil {
			x.removeSubscription(s)
			x.incidentAt(t, "condition", err.Error(), phaseEnter)
			fired = true
			continue
		}
		was := s.Held
		s.Held = holds
		if holds && !was {
			x.emit(EventConditionMet, n, t, nil)
			x.trigger(t, s, n, nil)
			fired = true
		}
	}
	return fired || len(x.work) > 0
}

// listensTo reports whether conditional event n is evaluated again after
// the changes.
func listensTo(n *model.Node, changed map[string]string) bool {
	n = n.Definition(model.TriggerConditional)
	for name, kind := range changed {
		if (len(n.VariableNames) == 0 || slices.Contains(n.VariableNames, name)) &&
			(len(n.VariableEvents) == 0 || slices.Contains(n.VariableEvents, kind)) {
			return true
		}
	}
	return false
}

func (x *instance) conditionHolds(t *token, n *model.Node) (bool, error) {
	if n.Condition == "" {
		return false, nil
	}
	ok, err := x.condition(t, n.Condition)
	if err != nil {
		return false, fmt.Errorf("condition of %q: %w", n.ID, err)
	}
	return ok, nil
}

// StartByConditions starts the default version of every definition
// whose main process has a conditional start event that holds for vars
// (with vars as the new instance's variables), and returns how many it
// started: Camunda's "evaluate start conditions". An empty condition never
// holds.
func (e *Engine) StartByConditions(ctx context.Context, vars map[string]any, businessKey string) (int, error) {
	if err := e.checkVariables(vars); err != nil {
		return 0, err
	}
	defaults, err := e.defaultVersions(ctx)
	if err != nil {
		return 0, err
	}
	started := 0
	for _, rec := range defaults {
		dep, err := e.defs.byID(ctx, rec.ID)
		if err != nil {
			return started, err
		}
		main := dep.def.Main()
		if main == nil {
			continue
		}
		for _, s := range main.Starts() {
			c := s.Definition(model.TriggerConditional)
			if c == nil || c.Condition == "" {
				continue
			}
			prog, err := compileExpr(c.Condition)
			if err != nil {
				return started, fmt.Errorf("start condition of %q in %s: %w", s.ID, rec.ID, err)
			}
			holds, err := e.eval.EvalBool(ctx, prog, vars)
			if err != nil {
				return started, fmt.Errorf("start condition of %q in %s: %w", s.ID, rec.ID, err)
			}
			if !holds {
				continue
			}
			if _, _, err := e.Start(ctx, StartRequest{
				Definition: rec.Key, Version: rec.Version, StartElement: s.ID,
				Variables: vars, BusinessKey: businessKey, Triggered: true, fired: model.TriggerConditional,
			}); err != nil {
				return started, err
			}
			started++
		}
	}
	return started, nil
}
