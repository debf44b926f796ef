package engine

import (
	"fmt"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// Execution listeners (Camunda 7 camunda:executionListener with a
// JavaScript script) run in the applier when a token starts a node (before
// its work) or ends it (before it moves on). A script reads variables
// (variables, execution.getVariable) and sets them (execution.setVariable,
// or by returning an object); one that throws, or runs out of its budget,
// stops the token with an incident, and retrying it runs the listeners
// again.

const execListenerPrelude = `
var __set = {};
var execution = {
  eventName: __event, currentActivityId: __activity,
  getVariable: function (n) { return n in __set ? __set[n] : variables[n]; },
  setVariable: function (n, v) { __set[n] = v; },
};
var __r = (function () {
`

const execListenerPostlude = `
})();
if (__r !== null && typeof __r === "object" && !Array.isArray(__r)) { for (var k in __r) { __set[k] = __r[k]; } }
return __set;
`

// runExecListeners runs the node's listeners for event and reports whether
// the token goes on.
func (x *instance) runExecListeners(t *token, event string) bool {
	for _, l := range t.node.ExecListeners {
		if l.Event != event {
			continue
		}
		if err := x.runExecListener(t, l); err != nil {
			phase := phaseEnter
			if event == model.ListenEnd {
				phase = phaseLeave
			}
			x.incidentAt(t, "listener", err.Error(), phase)
			return false
		}
	}
	return true
}

func (x *instance) runExecListener(t *token, l model.ExecListener) error {
	prog, err := script.CompileScript(execListenerPrelude + l.Script + execListenerPostlude)
	if err != nil {
		return fmt.Errorf("%s listener of %q: %w", l.Event, t.node.ID, err)
	}
	vars := mergedVars(x.evalVars(t), map[string]any{"__event": l.Event, "__activity": t.node.ID})
	res, err := x.e.eval.RunScript(x.ctx, prog, vars)
	if err != nil {
		return fmt.Errorf("%s listener of %q: %w", l.Event, t.node.ID, err)
	}
	if set, ok := res.(map[string]any); ok && len(set) > 0 {
		x.setVars(set)
		x.emit(EventVariablesChanged, t.node, t, map[string]any{"variables": keys(set), "by": l.Event + " listener"})
	}
	return nil
}
