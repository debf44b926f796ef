package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// Validation steps written in the graph format and in a JSON DAG run as
// the BPMN ones do (validation_test.go).

// graphValidate is a graph whose Validate step check (configuration mode
// and the order schema) fails to fix or completes to next.
func graphValidate(mode string) []byte {
	return []byte(`
graphId: gv
nodes:
  - nodeId: check
    type: Validate
    configuration:
      mode: ` + mode + `
      target: order
      schema: {type: object, required: [id], properties: {id: {type: string}}}
      rules: [{expression: "order.total > 0", message: the total must be positive}]
  - {nodeId: fix, type: Manual}
  - {nodeId: next, type: Manual}
edges:
  - {sourceNodeId: check, targetNodeId: next}
  - {sourceNodeId: check, targetNodeId: fix, type: OnFail}
`)
}

func TestGraphValidateStrictTakesOnFail(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(graphValidate("strict"))
	inst := h.start("gv", map[string]any{"order": map[string]any{"total": 0}})

	h.openTask(inst.ID, "fix")
	snap := h.instance(inst.ID)
	got := violations(t, snap.Variables)
	require.Len(t, got, 2, "%v", got)
	require.Equal(t, "the total must be positive", got["rule order.total > 0"])
	require.Contains(t, got[""], "id")
	require.Equal(t, model.ValidationFailedCode, snap.Variables["errorCode"])
}

func TestGraphValidateWarnGoesOn(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(graphValidate("warn"))
	inst := h.start("gv", map[string]any{"order": map[string]any{"id": "A", "total": -1}})

	h.openTask(inst.ID, "next")
	require.Len(t, h.eventsOf(inst.ID, engine.EventValidationWarned, "check"), 1)
	require.Equal(t, map[string]string{"rule order.total > 0": "the total must be positive"}, violations(t, h.instance(inst.ID).Variables))
}

func TestGraphValidateBadSchemaRefused(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: []byte(`
graphId: bad
nodes:
  - {nodeId: check, type: Validate, configuration: {schema: {minimum: "zero"}}}
edges: []
`)})
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	require.Len(t, probs, 1)
	require.Equal(t, "check", probs[0].ElementID)
	require.Contains(t, probs[0].Message, "validation step: schema")
}

// dagValidate is a DAG that validates trigger.order with mode, going on to
// after, and on failure to rejected.
func dagValidate(mode string) []byte {
	return []byte(`{"id": "dv", "startNode": "check", "nodes": [
	  {"id": "check", "actionType": "core.validate",
	   "parameters": {"mode": "` + mode + `", "target": "trigger.order",
	     "schema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
	                "properties": {"qty": {"type": "integer", "minimum": 1}}, "required": ["qty"]}},
	   "edges": [{"targetNode": "after"}, {"targetNode": "rejected", "when": "failure"}]},
	  {"id": "after", "actionType": "core.echo", "parameters": {"checked": "{{ context.data['check'].validationErrors.length }}"}},
	  {"id": "rejected", "actionType": "core.echo", "parameters": {"code": "{{ context.data['check'].errorCode }}"}}
	]}`)
}

func TestDAGValidate(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(dagValidate("warn"))
	inst := h.start("dv", map[string]any{"order": map[string]any{"qty": 0}})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, snap.Variables["checked"], "the warnings are in the read model")
	require.Contains(t, violations(t, snap.Variables)["/qty"], "minimum")
	require.Len(t, h.eventsOf(inst.ID, engine.EventValidationWarned, "check"), 1)

	h.deploySource(dagValidate("strict"))
	inst = h.start("dv", map[string]any{"order": map[string]any{"qty": 2.5}})
	snap = h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, model.ValidationFailedCode, snap.Variables["code"])
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "after"))
	require.Contains(t, violations(t, snap.Variables)["/qty"], "integer")
}
