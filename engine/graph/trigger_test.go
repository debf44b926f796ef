package graph_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/graph"
	"github.com/workflowpp/wfpp/engine/model"
)

func TestParseGraphTriggers(t *testing.T) {
	t.Parallel()
	p := parse(t, `
graphId: order
nodes: [{nodeId: a, type: Task, configuration: `+action+`}]
edges: []
triggers:
  - {on: completed, target: invoice, version: latest, input: {orderId: "=orderId"}}
  - {on: cancelled, target: cleanup, version: 3}
`)
	require.Equal(t, []model.ChainTrigger{
		{On: "completed", Target: "invoice", Input: []model.Mapping{{Source: "=orderId", Target: "orderId"}}},
		{On: "cancelled", Target: "cleanup", Binding: model.BindingVersion, Version: 3},
	}, p.Triggers)

	_, err := graph.Parse([]byte(`{"graphId":"g","nodes":[{"nodeId":"a","type":"Task","configuration":{"actionType":"x"}}],"edges":[],
"triggers":[{"on":"done","target":""}]}`))
	require.ErrorContains(t, err, `trigger 1 of process "g" fires on "done": use completed, failed or cancelled`)
	require.ErrorContains(t, err, `trigger 1 of process "g" has no target`)
}
