package bpmn_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bpmn"
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

// TestDuplicateLinkCatch: a link name has one target in a scope.
func TestDuplicateLinkCatch(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/duplicate_link_catch.bpmn")
	require.NoError(t, err)
	def, err := bpmn.Parse(src, bpmn.Options{})
	require.NoError(t, err)
	probs := engine.Validate(def)
	require.Len(t, probs, 1)
	require.Equal(t, "catchB", probs[0].ElementID)
	require.Contains(t, probs[0].Message, `link catch events "catchA" and "catchB" share the name "jump"`)
}

// TestResourceAssignment: humanPerformer and potentialOwner set the assignee
// and the candidates, as Camunda 7 reads them.
func TestResourceAssignment(t *testing.T) {
	t.Parallel()
	p := valid(t, "resource_assignment.bpmn")
	require.Equal(t, "kermit", node(t, p, "performer").Human.Assignee)
	owners := node(t, p, "owners").Human
	require.Equal(t, []string{"piggy"}, owners.CandidateUsers)
	require.Equal(t, []string{"management", "accounting"}, owners.CandidateGroups)
}
