package graph_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/graph"
	"github.com/workflowpp/wfpp/engine/model"
)

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.graph.*"))
	require.NoError(f, err)
	seeds, err := filepath.Glob(filepath.Join("..", "..", "testdata", "seeds", "execution-engine-*"))
	require.NoError(f, err)
	files = append(files, seeds...)
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("graphId: g\nnodes: [{nodeId: f, type: ForEach, configuration: {collection: [1, 2]}}, {nodeId: a, type: Task, configuration: {actionType: x}}]\nedges: [{sourceNodeId: f, targetNodeId: a, type: LoopBody}, {sourceNodeId: a, targetNodeId: f}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := graph.Parse(data)
		if err != nil {
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			require.NotEmpty(t, probs)
			return
		}
		require.Empty(t, model.Validate(def, model.Checks{}), "a parsed graph validates")
	})
}
