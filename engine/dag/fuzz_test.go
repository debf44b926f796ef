package dag_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/dag"
	"github.com/workflowpp/wfpp/engine/model"
)

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(f, err)
	seeds, err := filepath.Glob(filepath.Join("..", "..", "testdata", "seeds", "dataworkflows-*.json"))
	require.NoError(f, err)
	files = append(files, seeds...)
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte(`{"id":"w","startNode":"a","nodes":[{"id":"a","actionType":"x","edges":[{"targetNode":"a"}]}]}`))
	f.Add([]byte(`{"id":"w","startNode":"a","failureMode":"incident","nodes":[{"id":"a","actionType":"x","onFailure":"c","policies":{"fallback":"b",
		"circuitBreaker":{"failureThreshold":2},"retry":{"type":"linear_backoff","baseDelayMs":5}},"edges":[{"targetNode":"b"},{"targetNode":"c"}]},
		{"id":"b","actionType":"x","parameters":{"m":"{{ context.data['a'].items[0] ?? '}}' }}"},"edges":[{"targetNode":"c"}]},
		{"id":"c","actionType":"x","join":{"policy":"n_of_m","n":2}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := dag.Parse(data)
		if err != nil {
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			require.NotEmpty(t, probs)
			return
		}
		require.Empty(t, model.Validate(def, model.Checks{}), "a parsed DAG validates")
	})
}
