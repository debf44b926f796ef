package dag_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/dag"
	"github.com/workflowpp/wfpp/engine/model"
)

func TestParseTriggers(t *testing.T) {
	t.Parallel()
	def, err := dag.Parse([]byte(`{"id": "order", "startNode": "a",
  "nodes": [{"id": "a", "actionType": "s"}],
  "triggers": [
    {"on": "completed", "target": "invoice", "condition": "approved", "input": {"orderId": "=orderId", "amount": "=total"}},
    {"on": "failed", "target": "alert", "version": 2, "allVariables": true}]}`))
	require.NoError(t, err)
	require.Equal(t, []model.ChainTrigger{
		{On: "completed", Target: "invoice", Condition: "approved", Input: []model.Mapping{{Source: "=total", Target: "amount"}, {Source: "=orderId", Target: "orderId"}}},
		{On: "failed", Target: "alert", Binding: model.BindingVersion, Version: 2, AllVariables: true},
	}, def.Main().Triggers)

	_, err = dag.Parse([]byte(`{"id": "order", "startNode": "a", "nodes": [{"id": "a", "actionType": "s"}],
  "triggers": [{"on": "finished", "target": "invoice"}]}`))
	require.ErrorContains(t, err, "triggers/0/on")
}
