package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRunCallsDeployedProcess: --deploy deploys the called process first,
// --signals moves the child on, and the output reports the child.
func TestRunCallsDeployedProcess(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{
		"run", "testdata/order.bpmn", "--deploy", "testdata/shipping.bpmn",
		"--vars", `{"city": "Oslo"}`, "--signals", `[{"name": "go", "variables": {"by": "cli"}}]`,
	}, &stdout, &stderr)
	require.Equal(t, exitCompleted, code, "stderr: %s\nstdout: %s", stderr.String(), stdout.String())
	var res struct {
		Status    string
		Visited   []string
		Variables map[string]any
		Children  []struct {
			ElementID, Process, Status string
			Visited                    []string
			Variables                  map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
	require.Equal(t, "completed", res.Status)
	require.Equal(t, []string{"s", "ship", "e"}, res.Visited)
	require.Equal(t, "to Oslo", res.Variables["label"])
	require.Len(t, res.Children, 1)
	c := res.Children[0]
	require.Equal(t, "ship", c.ElementID)
	require.Equal(t, "shipping", c.Process)
	require.Equal(t, "completed", c.Status)
	require.Equal(t, []string{"s", "wait", "label", "e"}, c.Visited)
	require.Equal(t, "cli", c.Variables["by"])

	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"run", "testdata/order.bpmn", "--vars", `{"city": "Oslo"}`}, &stdout, &stderr)
	require.Equal(t, exitIncident, code, "without the called process deployed: an incident")
	require.Contains(t, stdout.String(), `no deployed definition holds process \"shipping\"`)
}
