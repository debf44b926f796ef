package graph

import (
	"cmp"
	"fmt"
	"slices"
)

// A ForEach's errorPolicy: what a Task of its body that fails for good
// (after its retries) does.
const (
	errorsStop     = "stop"     // the default: the failure is the graph's (an OnFail edge, or onFailure)
	errorsContinue = "continue" // the loop goes on with the next item
	errorsCollect  = "collect"  // the same, and {index, item, error} is added to errorsVariable
)

var errorPolicies = []string{errorsStop, errorsContinue, errorsCollect}

// errorPolicy checks a ForEach's errorPolicy and errorsVariable.
func (c *converter) errorPolicy(id string, cfg *ForEachConfig) {
	p, ok := canonical(cmp.Or(cfg.ErrorPolicy, errorsStop), errorPolicies)
	if !ok {
		c.probs.Add(id, "configuration.errorPolicy %q is not stop, continue or collect: use one of them", cfg.ErrorPolicy)
	}
	cfg.ErrorPolicy = p
	switch {
	case cfg.ErrorsVariable != "" && p != errorsCollect:
		c.probs.Add(id, "configuration.errorsVariable is where errorPolicy collect puts the errors, and errorPolicy is %s: remove it or collect", p)
	case p == errorsCollect:
		cfg.ErrorsVariable = cmp.Or(cfg.ErrorsVariable, "errors")
		if !identifier.MatchString(cfg.ErrorsVariable) {
			c.probs.Add(id, "configuration.errorsVariable %q is not a JavaScript name: use letters, digits, _ and $", cfg.ErrorsVariable)
		}
	}
}

// loopErrors carries out the errorPolicy continue and collect of the
// ForEach loops of a scope. Every Task, Manual step and Subflow of the
// body that has no OnFail edge of its own gets a catch-all error boundary
// "<node>__onFail" that goes on with the next item:
//
//	continue: <node>__onFail ──▶ <loop>__advance
//	collect:  <node>__onFail ──▶ <loop>__error ──▶ <loop>__advance
//
// where <loop>__error appends {index, item, error} to the errors variable
// (error is the failure's message, see the engine's failure context). In
// nested loops the innermost ForEach with a policy decides. Work inside a
// Subflow of the body fails inside it, where no boundary of the body sees
// it: give such Tasks OnFail edges.
func (c *converter) loopErrors(sc *scope) {
	var loops []*step
	for _, st := range sc.steps {
		if cfg, ok := st.cfg.(*ForEachConfig); ok && st.body != nil && cfg.ErrorPolicy != errorsStop {
			loops = append(loops, st)
		}
	}
	slices.SortStableFunc(loops, func(a, b *step) int { return len(a.body) - len(b.body) })
	caught := map[string]bool{}
	for _, loop := range loops {
		cfg, s := loop.cfg.(*ForEachConfig), sc.s
		to := loop.again
		if cfg.ErrorPolicy == errorsCollect {
			list := quote(cfg.ErrorsVariable)
			collect := c.script(s, loop, "__error", "note the error", fmt.Sprintf(
				`({%s: (variables[%s] || []).concat([{index: %s, item: %s, error: errorMessage}])})`,
				list, list, cfg.IndexVariable, cfg.ItemVariable))
			c.b.Connect(s, collect.ID, loop.again, "")
			to = collect.ID
		}
		ids := make([]string, 0, len(loop.body))
		for id := range loop.body {
			ids = append(ids, id)
		}
		slices.Sort(ids) // generated ids do not depend on map order
		for _, id := range ids {
			st := sc.byID[id]
			if caught[id] || len(st.out[OnFail]) > 0 || st.refused || !fails(st.typ) {
				continue
			}
			caught[id] = true
			bound := c.b.AttachErrorBoundary(s, st.node, id+"__onFail")
			bound.Name = fmt.Sprintf("%s: errorPolicy %s", loop.node.Label(), cfg.ErrorPolicy)
			c.b.Connect(s, bound.ID, to, "")
		}
	}
}

// fails reports whether a step of the type runs work that can fail.
func fails(typ string) bool {
	return typ == TypeTask || typ == TypeManual || typ == TypeSubflow || typ == TypeValidate
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
