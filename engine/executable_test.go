package engine_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestNonExecutableProcesses: a process marked isExecutable="false" never
// runs, and a definition of such processes only has nothing to start; its
// structure is still checked.
func TestNonExecutableProcesses(t *testing.T) {
	t.Parallel()
	h := setup(t)
	key := h.deploy("non_executable")
	_, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: key})
	require.ErrorIs(t, err, engine.ErrInvalidInput)
	require.ErrorContains(t, err, "no executable process")

	done := h.run("mixed_executable", nil)
	require.Equal(t, engine.StatusCompleted, done.Status)
	require.Equal(t, "mixed_executable", done.ProcessID, "the executable process runs, not the first one")
	_, _, err = h.e.Start(h.ctx, engine.StartRequest{Definition: "mixed_executable", ProcessID: "docs"})
	require.ErrorContains(t, err, `process "docs" of definition mixed_executable:1 is not executable`)

	src, err := os.ReadFile("testdata/non_executable.bpmn")
	require.NoError(t, err)
	unreachable := strings.Replace(string(src), `<task id="t"/>`, `<task id="t"/><task id="island"/>`, 1)
	_, _, err = h.e.Deploy(h.ctx, engine.DeployRequest{Source: []byte(unreachable)})
	require.ErrorContains(t, err, "island")
}

// TestValueTemplates: an assignee or candidate that mixes text with ${...}
// is a template, filled from the variables.
func TestValueTemplates(t *testing.T) {
	t.Parallel()
	h := setup(t)
	snap := h.run("assignee_template", map[string]any{"n": 7, "region": "north", "lead": "piggy"})
	require.Len(t, snap.Tasks, 1)
	task := snap.Tasks[0]
	require.Equal(t, "kermit_7", task.Assignee)
	require.Equal(t, []string{"team-north", "managers"}, task.CandidateGroups)
	require.Equal(t, []string{"piggy"}, task.CandidateUsers)
}

// TestErrorVariables: a catch puts the error's code and message (not its
// name) in the variables it names; an errorRef naming no error is the code.
func TestErrorVariables(t *testing.T) {
	t.Parallel()
	h := setup(t)
	snap := h.run("error_variables", map[string]any{"raw": false})
	snap = h.requireStatus(snap.ID, engine.StatusCompleted)
	require.Equal(t, "LIMIT", snap.Variables["code"])
	require.Equal(t, "over the limit", snap.Variables["why"])
	require.NotContains(t, snap.Variables, "errorCode", "the catch named its variables")

	raw := h.run("error_variables", map[string]any{"raw": true})
	raw = h.requireStatus(raw.ID, engine.StatusCompleted)
	require.Equal(t, "RAW_CODE", raw.Variables["code"])
}

// TestImplicitEndAndReceiveWithoutMessage: a parallel gateway without
// outgoing flows is an implicit end; a receive task without a message waits
// for a trigger by its id, as Camunda 7 lets its API do.
func TestImplicitEndAndReceiveWithoutMessage(t *testing.T) {
	t.Parallel()
	h := setup(t)
	done := h.run("parallel_sink", nil)
	h.requireStatus(done.ID, engine.StatusCompleted)

	src := `<?xml version="1.0"?><definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="r" isExecutable="true"><startEvent id="s"/><receiveTask id="wait"/><sequenceFlow id="f" sourceRef="s" targetRef="wait"/></process></definitions>`
	h.deploySource([]byte(src))
	inst := h.start("r", nil)
	h.requireStatus(inst.ID, engine.StatusWaiting)
	_, err := h.e.Trigger(h.ctx, inst.ID, "wait", nil)
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusCompleted)
}
