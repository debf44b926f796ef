package engine

import (
	"fmt"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// Execution listeners. Camunda 7 ones (camunda:executionListener with a
// JavaScript script) run in the applier when a token starts a node (before
// its work) or ends it (before it moves on). A script reads variables
// (variables, execution.getVariable) and sets them (execution.setVariable,
// or by returning an object); one that throws, or runs out of its budget,
// stops the token with an incident, and retrying it runs the listeners
// again. Camunda 8 ones (zeebe:executionListener) are jobs of their type,
// served by a handler registered for it or an external worker like any
// job (retries and incidents included): the token waits for each in turn
// when it starts the node (before the node's work) and when it ends it
// (before it moves on); the variables a job returns are set.

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

// awaitExecJobs starts the index-th execution listener job of event on
// token t's node and reports whether t now waits for it (false: none left).
func (x *instance) awaitExecJobs(t *token, event string, index int) bool {
	var ls []model.JobListener
	for _, l := range t.node.ExecJobs {
		if l.Event == event {
			ls = append(ls, l)
		}
	}
	if index >= len(ls) {
		return false
	}
	typ, err := x.evalString(x.evalVars(t), ls[index].Type)
	if err != nil {
		x.incidentAt(t, "listener", fmt.Sprintf("job type of the %s listener of %q: %v", event, t.node.ID, err), phaseEnter)
		return true
	}
	t.listener = &PendingTransition{Event: event, Index: index, Type: typ, Exec: true}
	x.startListenerJob(t)
	return true
}

// execJobDone takes an execution listener job's result and starts the next
// one, or goes on with the node.
func (x *instance) execJobDone(t *token, result map[string]any) {
	l := t.listener
	t.listener, t.status = nil, TokenActive
	if len(result) > 0 {
		x.setVarsAt(t, result)
		x.emit(EventVariablesChanged, t.node, t, map[string]any{"variables": keys(result), "by": l.Event + " listener"})
	}
	if x.awaitExecJobs(t, l.Event, l.Index+1) {
		return
	}
	if l.Event == model.ListenStart {
		x.begin(t)
		return
	}
	x.proceed(t)
}
