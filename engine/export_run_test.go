package engine_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bpmn"
)

// TestExportedDAGRunsAlike: the DataWorkflows example 15.2 saved as BPMN
// (bpmn.Export) and deployed runs like the JSON DAG itself along each of
// its routes: the same status, the same calls with the same rendered
// {{ }} parameters, the same read model (trigger, context) and variables,
// the same elements, and the same failed conditions where a condition
// throws.
func TestExportedDAGRunsAlike(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "seeds", "dataworkflows-15.2.json"))
	require.NoError(t, err)
	def, err := engine.Parse(src, engine.FormatDAG)
	require.NoError(t, err)
	exported := bpmn.Export(def)

	trigger := map[string]any{"boardId": 7, "itemId": "1234", "channelId": "C-onboarding"}
	routes := []struct {
		name      string
		items     []any
		mondayErr error
	}{
		{"approved", []any{map[string]any{"Name": "Apollo", "Status": "Approved"}}, nil},
		{"not approved", []any{map[string]any{"Name": "Hermes", "Status": "Draft"}}, nil},
		{"no item", []any{}, nil},
		{"failure", nil, errors.New("monday.com answered 503")},
	}
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			run := func(source []byte) runOutcome {
				h := setup(t)
				c := stubConnectors(h, r.items, r.mondayErr)
				inst := h.start(h.deploySource(source).Key, trigger)
				h.fireAll(10) // the retries' delays, on the failure route
				snap := h.instance(inst.ID)
				calls := map[string][]map[string]any{}
				for _, typ := range []string{"monday.get-items", "slack.post-message", "confluence.create-page"} {
					calls[typ] = c.of(typ)
				}
				completed := h.elements(inst.ID, engine.EventElementCompleted)
				slices.Sort(completed)
				return runOutcome{
					Status: snap.Status, Variables: snap.Variables, Calls: calls, Completed: completed,
					ConditionsFailed: h.count(inst.ID, engine.EventConditionFailed, ""),
				}
			}
			original, saved := run(src), run(exported)
			require.Equal(t, engine.StatusCompleted, original.Status)
			require.NotEmpty(t, original.Calls["monday.get-items"])
			require.Equal(t, original, saved)
		})
	}
}

// runOutcome is what a run of a definition did, to compare two runs.
type runOutcome struct {
	Status           engine.Status
	Variables        map[string]any
	Calls            map[string][]map[string]any
	Completed        []string
	ConditionsFailed int
}
