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

// TestRunStepsWorkflow: wfpp validate and wfpp run read the steps format
// (detected by its steps): a sub_workflow deployed first, agents done by
// --jobs noop.
func TestRunStepsWorkflow(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"validate", "../../testdata/steps/sub_workflow.yaml", "../../testdata/steps/parallel.json"}, &stdout, &stderr)
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", stderr.String(), stdout.String())

	stdout.Reset()
	code = run(context.Background(), []string{
		"run", "../../testdata/steps/sub_workflow.yaml", "--deploy", "../../testdata/steps/agent.yaml", "--vars", `{"subject": "news"}`,
	}, &stdout, &stderr)
	require.Equal(t, exitCompleted, code, "stderr: %s\nstdout: %s", stderr.String(), stdout.String())
	var res struct {
		Status   string
		Visited  []string
		Children []struct{ Process, Status string }
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
	require.Equal(t, []string{"weekly-report__start", "research", "send", "send__end"}, res.Visited)
	require.Len(t, res.Children, 1)
	require.Equal(t, "research", res.Children[0].Process)
	require.Equal(t, "completed", res.Children[0].Status)

	stdout.Reset()
	code = run(context.Background(), []string{"validate", "testdata/bad.steps.yaml"}, &stdout, &stderr)
	require.Equal(t, 1, code)
	require.Contains(t, stdout.String(), `testdata/bad.steps.yaml: publish: next_step "archive" is not a step: name one`)
}
