package steps_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/steps"
)

func parseFile(t *testing.T, name string) *model.Definition {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "steps", name))
	require.NoError(t, err)
	def, err := steps.Parse(src)
	require.NoError(t, err, name)
	return def
}

// TestParseEveryExample: every example of the design's step types reads
// without problems into a steps definition.
func TestParseEveryExample(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "steps", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "state-machine-") {
			continue // engine/statemachine reads those
		}
		def := parseFile(t, filepath.Base(f))
		require.Equal(t, model.FormatSteps, def.Format)
		require.NotNil(t, def.Main(), f)
	}
}
