package bpmn_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/dag"
	"github.com/workflowpp/wfpp/engine/graph"
	"github.com/workflowpp/wfpp/engine/model"
)

// TestExportRoundTrip: a definition of any format, exported as BPMN, parses
// back with the same nodes (ids, kinds, triggers) and flows, so a viewer
// shows tokens and counts where the engine has them.
func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	defs := map[string]*model.Definition{}
	for _, f := range []string{"order.dag.json", "failure.dag.json", "diamond.dag.json", "conditions.dag.json"} {
		src, err := os.ReadFile(filepath.Join("..", "dag", "testdata", f))
		require.NoError(t, err)
		def, err := dag.Parse(src)
		require.NoError(t, err, f)
		defs[f] = def
	}
	src, err := os.ReadFile(filepath.Join("..", "graph", "testdata", "loan.graph.json"))
	require.NoError(t, err)
	g, err := graph.Parse(src)
	require.NoError(t, err)
	defs["loan.graph.json"] = g
	events, probs := parseFile(t, "events.bpmn")
	require.Empty(t, probs)
	defs["events.bpmn"] = events

	for name, def := range defs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			back, err := bpmn.Parse(bpmn.Export(def), bpmn.Options{})
			require.NoError(t, err, "%s", bpmn.Export(def))
			for _, p := range def.Processes {
				q := back.Process(p.ID)
				require.NotNil(t, q, "process %s", p.ID)
				require.Len(t, q.AllNodes, len(p.AllNodes))
				for _, n := range p.AllNodes {
					m := q.Node(n.ID)
					require.NotNil(t, m, "node %s", n.ID)
					require.Equal(t, n.Kind, m.Kind, n.ID)
					require.Equal(t, n.Trigger, m.Trigger, n.ID)
					require.Equal(t, n.Name, m.Name, n.ID)
				}
				require.Len(t, q.AllFlows, len(p.AllFlows))
				for _, f := range p.AllFlows {
					g := q.Flow(f.ID)
					require.NotNil(t, g, "flow %s", f.ID)
					require.Equal(t, [3]string{f.SourceID, f.TargetID, f.Condition}, [3]string{g.SourceID, g.TargetID, g.Condition}, f.ID)
				}
			}
		})
	}
}
