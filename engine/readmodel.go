package engine

import (
	"maps"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// The read model of a JSON DAG instance (the DataWorkflows spec's §8): its
// parameter templates and edge conditions see
//
//   - trigger: the variables the instance started with;
//   - context.data[nodeId]: what each finished node gave back, or, for a
//     node that failed for good, {error, errorCode, errorNode, failedNodeId,
//     attempt};
//   - vars: the variables.
//
// An edge condition that throws is not satisfied (the spec's §6), with a
// condition.failed event saying why, where other formats raise an incident.
//
// trigger and context are kept as variables of the instance, so they are
// stored, restored, shown and copied to a caller like every variable, and
// nothing else has to be persisted: the instance sets them when it starts
// and rewrites context (copy on write) when a job of a node completes or
// fails for good. vars is bound when an expression is evaluated. Node
// outputs are merged into the variables too, as in every format, except a
// "trigger" or "context" output, which would overwrite the read model.
const (
	triggerVar = "trigger"
	contextVar = "context"
	varsName   = "vars"
)

// readModel reports whether the instance runs a JSON DAG (or one saved as BPMN).
func (x *instance) readModel() bool {
	return x.dep != nil && x.dep.def.ReadModel == model.ReadModelDataWorkflows
}

// withReadModel adds trigger and an empty context to a DAG instance's start
// variables.
func withReadModel(vars map[string]any) {
	vars[triggerVar] = maps.Clone(vars)
	vars[contextVar] = map[string]any{"data": map[string]any{}}
}

// readModelScope is what a DAG instance's expressions see: the variables
// as names, and all of them as vars.
func readModelScope(vars map[string]any) map[string]any {
	m := make(map[string]any, len(vars)+1)
	maps.Copy(m, vars)
	m[varsName] = vars
	return m
}

// readModelCondition evaluates a DAG edge condition over the read model. A
// condition that throws (reads a member of undefined, say) is not
// satisfied, as the DataWorkflows spec says (§6); a condition.failed event
// records why.
func (x *instance) readModelCondition(t *token, prog *script.Program, text string) (bool, error) {
	ok, err := x.e.eval.EvalBool(x.ctx, prog, readModelScope(x.evalVars(t)))
	if err != nil && x.ctx.Err() == nil {
		x.emit(EventConditionFailed, t.node, t, map[string]any{"condition": text, "error": err.Error()})
		return false, nil
	}
	return ok, err
}

// recordOutputs puts a DAG node's outputs in context.data and returns the
// outputs to merge into the variables: all but trigger and context.
func (x *instance) recordOutputs(n *model.Node, outputs map[string]any) map[string]any {
	data := maps.Clone(outputs)
	if data == nil {
		data = map[string]any{}
	}
	x.setNodeData(n.ID, data)
	_, t := outputs[triggerVar]
	_, c := outputs[contextVar]
	if !t && !c {
		return outputs
	}
	merged := maps.Clone(outputs)
	delete(merged, triggerVar)
	delete(merged, contextVar)
	return merged
}

// recordFailure puts what a DAG node that failed for good tells its failure
// route in context.data.
func (x *instance) recordFailure(t *token, code, msg string) {
	if !x.readModel() {
		return
	}
	id := t.node.ID
	x.setNodeData(id, map[string]any{
		"error": msg, "errorCode": code, "errorNode": id, "failedNodeId": id, "attempt": t.attempt,
	})
}

// setNodeData sets context.data[id], copying what it changes: the
// variables' maps may be shared with stored snapshots and running jobs.
func (x *instance) setNodeData(id string, v any) {
	old, _ := x.vars[contextVar].(map[string]any)
	ctx := maps.Clone(old)
	if ctx == nil {
		ctx = map[string]any{}
	}
	oldData, _ := ctx["data"].(map[string]any)
	data := make(map[string]any, len(oldData)+1)
	maps.Copy(data, oldData)
	data[id] = v
	ctx["data"] = data
	x.setVars(map[string]any{contextVar: ctx})
}
