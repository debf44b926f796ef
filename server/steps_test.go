package server_test

import (
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDeployStepsWorkflow: steps workflows deploy over HTTP as JSON and as
// YAML (told apart from graphs by their steps), start, and wait at their
// agents for external workers; a bad one is refused naming its step.
func TestDeployStepsWorkflow(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, tc := range []struct{ file, contentType, key string }{
		{"../testdata/steps/parallel.json", "application/json", "enrich"},
		{"../testdata/steps/conditional.yaml", "application/yaml", "triage"},
	} {
		src, err := os.ReadFile(tc.file)
		require.NoError(t, err)
		var rec map[string]any
		resp := f.do(http.MethodPost, "/api/v1/definitions", tc.contentType, src, &rec)
		require.Equal(t, http.StatusCreated, resp.StatusCode, tc.file)
		require.Equal(t, tc.key, rec["key"])
		require.Equal(t, "steps", rec["format"])
	}

	inst, resp := f.start(map[string]any{"definition": "enrich"})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	var got instance
	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got)
	var at []string
	for _, tok := range got.Tokens {
		at = append(at, tok.ElementID)
	}
	require.ElementsMatch(t, []string{"crm", "news", "finance"}, at, "the parallel steps wait for their agents")

	bad := []byte("workflow_id: bad\nsteps:\n  - {id: publish, type: agent, agent_name: doc.publish, next_step: archive}\n")
	resp = f.do(http.MethodPost, "/api/v1/definitions", "application/yaml", bad, nil)
	env := requireEnvelope(t, resp, http.StatusUnprocessableEntity, "invalid_definition")
	require.Len(t, env.Error.Details, 1)
	require.Equal(t, "publish", fmt.Sprint(env.Error.Details[0]["elementId"]))
	require.Contains(t, env.Error.Details[0]["message"], `next_step "archive" is not a step`)

	resp = f.do(http.MethodPost, "/api/v1/definitions?format=steps", "application/json", []byte(`{"graphId": "g", "nodes": []}`), nil)
	requireEnvelope(t, resp, http.StatusUnprocessableEntity, "invalid_definition")
}
