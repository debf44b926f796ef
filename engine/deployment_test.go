package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/workflowpp/wfpp/engine"
)

func TestDetectFormat(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		`<?xml version="1.0"?><definitions/>`:                                                       engine.FormatBPMN,
		`{"id":"d","startNode":"a","nodes":[{"id":"a","actionType":"x"}]}`:                          engine.FormatDAG,
		`{"graphId":"g","nodes":[{"nodeId":"a","type":"Task","configuration":{"actionType":"x"}}]}`: engine.FormatGraph,
		"graphId: g\nnodes: []\n":                                                                   engine.FormatGraph,
		"workflow_id: w\ntype: state_machine\ninitial_state: a\n":                                   engine.FormatStateMachine,
		`{"workflow_id":"w","type":"state_machine","states":[]}`:                                    engine.FormatStateMachine,
		"graphId: g\nname: not a state_machine\nnodes: []\n":                                        engine.FormatGraph,
	} {
		require.Equal(t, want, engine.DetectFormat([]byte(src)), src)
	}
}
