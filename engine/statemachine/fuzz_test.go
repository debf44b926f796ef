package statemachine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/statemachine"
)

// FuzzParse: whatever the input, Parse returns a definition that validates
// or model.Problems, never a panic or another error.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "steps", "state-machine-*"))
	require.NoError(f, err)
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("workflow_id: w\ntype: state_machine\ninitial_state: a\nstates:\n  - name: a\n    transitions: [{target: a, event: {timer: PT1S}}, {target: b, condition: x}]\n  - {name: b, terminal: true}\n"))
	f.Add([]byte(`{"workflow_id":"w","type":"state_machine","initial_state":"a","states":{"a":{"on_exit":["x"],"transitions":[{"target":"a"}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := statemachine.Parse(data)
		if err != nil {
			var probs model.Problems
			require.ErrorAs(t, err, &probs)
			require.NotEmpty(t, probs)
			return
		}
		require.Empty(t, model.Validate(def, model.Checks{}), "a parsed state machine validates")
	})
}
