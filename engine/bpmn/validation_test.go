package bpmn_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

// TestValidationStepForms: a validation step's settings read from wf:
// attributes and elements; exported, they are written in those forms (what
// the designer shows), not as wf:parameters, and read back alike.
func TestValidationStepForms(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/export/validation.graph.yaml")
	require.NoError(t, err)
	def, err := engine.Parse(src, "")
	require.NoError(t, err)
	xml := string(bpmn.Export(def))
	for _, want := range []string{
		`wf:validationMode="warn"`, `wf:validationTarget="order"`, `<wf:schema>{&#34;$schema&#34;:`,
		`<wf:rule expression="order.total &gt; 0" message="the total must be positive">`,
	} {
		require.Contains(t, xml, want)
	}
	require.NotContains(t, xml, "wf:parameters")
	back, err := engine.Parse([]byte(xml), engine.FormatBPMN)
	require.NoError(t, err, xml)
	requireRunsAlike(t, def, back)
	require.Equal(t, def.Main().Node("check").Job.Parameters, back.Main().Node("check").Job.Parameters)
	require.Empty(t, engine.Validate(back))
}

func TestValidationStepProblems(t *testing.T) {
	t.Parallel()
	doc := func(task string) []byte {
		return []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="p" isExecutable="true"><startEvent id="s"/>` + task + `<sequenceFlow id="f" sourceRef="s" targetRef="v"/></process></definitions>`)
	}
	for _, tc := range []struct{ task, want string }{
		{`<serviceTask id="v" wf:type="echo" wf:validationMode="warn"/>`, `set wf:type="core.validate"`},
		{
			`<serviceTask id="v" wf:type="core.validate" wf:validationMode="warn"><extensionElements><wf:parameters>{"mode": "strict"}</wf:parameters></extensionElements></serviceTask>`,
			"mode is given in wf:parameters too",
		},
		{`<serviceTask id="v" wf:type="core.validate" wf:schema="{nope"/>`, "wf:schema is not JSON"},
	} {
		_, err := bpmn.Parse(doc(tc.task), bpmn.Options{})
		var probs model.Problems
		require.ErrorAs(t, err, &probs, tc.task)
		require.Equal(t, "v", probs[0].ElementID)
		require.Contains(t, probs[0].Message, tc.want)
	}
}
