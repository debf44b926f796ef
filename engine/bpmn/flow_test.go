package bpmn_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlowWithoutID: sequence flows may lack an id; they get one that no
// real id can take.
func TestFlowWithoutID(t *testing.T) {
	t.Parallel()
	p := valid(t, "flow_without_id.bpmn")
	var ids []string
	for _, f := range p.Flows {
		ids = append(ids, f.ID)
	}
	require.Equal(t, []string{"flow:s->fork", "flow:fork->a", "flow:fork->a#2", "last"}, ids)
}
