package steps_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/steps"
)

// FuzzParse: whatever the input, Parse returns a definition that validates
// or model.Problems, and never panics.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "steps", "*"))
	require.NoError(f, err)
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("workflow_id: w\nsteps:\n  - {id: c, type: conditional, condition: x, then: a, else: b}\n  - {id: a, type: agent, agent_name: x, next_step: b}\n  - {id: b, type: agent, agent_name: y}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := steps.Parse(data)
		if err != nil {
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			require.NotEmpty(t, probs)
			return
		}
		require.Empty(t, model.Validate(def, model.Checks{}), "a parsed workflow validates")
	})
}
