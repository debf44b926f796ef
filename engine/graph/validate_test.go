package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/graph"
	"github.com/workflowpp/wfpp/engine/model"
)

func TestParseValidate(t *testing.T) {
	t.Parallel()
	def, err := graph.Parse([]byte(`
graphId: g
nodes:
  - nodeId: check
    type: validate
    configuration:
      schema: {type: object, required: [id]}
      mode: warn
      target: order
      rules: [{expression: "order.total > 0", message: positive}]
  - {nodeId: fix, type: Manual}
edges:
  - {sourceNodeId: check, targetNodeId: fix, type: OnFail}
`))
	require.NoError(t, err)
	check := def.Main().Node("check")
	require.Equal(t, model.KindServiceTask, check.Kind)
	require.Equal(t, model.Job{Type: model.ValidateJobType, Parameters: map[string]any{
		"schema": map[string]any{"type": "object", "required": []any{"id"}},
		"mode":   "warn",
		"target": "order",
		"rules":  []any{map[string]any{"expression": "order.total > 0", "message": "positive"}},
	}}, check.Job)
	require.Equal(t, "Validate", check.Attrs["type"])
	require.Equal(t, model.TriggerError, def.Main().Node("check__onFail").Trigger, "OnFail catches VALIDATION_FAILED")

	_, err = graph.Parse([]byte("graphId: g\nnodes:\n  - {nodeId: v, type: Validate, configuration: {schema: {}, strictness: high}}\nedges: []\n"))
	var probs model.Problems
	require.ErrorAs(t, err, &probs)
	require.Equal(t, "v", probs[0].ElementID)
	require.Contains(t, probs[0].Message, "strictness")
}
