package tasks_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/tasks"
)

const decision = `<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <userTask id="review"><extensionElements><wf:output source="note" target="note"/></extensionElements></userTask>
    <exclusiveGateway id="g" default="other"/>
    <endEvent id="e1"/><endEvent id="e2"/><endEvent id="e3"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="g"/>
    <sequenceFlow id="ok" sourceRef="g" targetRef="e1"><conditionExpression>=approved = true and amount &gt; 100</conditionExpression></sequenceFlow>
    <sequenceFlow id="region" sourceRef="g" targetRef="e2"><conditionExpression>${"north" == region}</conditionExpression></sequenceFlow>
    <sequenceFlow id="other" sourceRef="g" targetRef="e3"/>
  </process>
</definitions>`

// TestGenerateForm: a task without a form offers what it maps out and what
// the conditions right after it read, typed from the comparisons.
func TestGenerateForm(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(decision), bpmn.Options{})
	require.NoError(t, err)
	n := def.Process("p").Node("review")
	var form struct {
		Components []struct{ Type, Key string }
	}
	require.NoError(t, json.Unmarshal(tasks.GenerateForm(n, map[string]any{"note": "x"}), &form))
	got := map[string]string{}
	for _, c := range form.Components {
		got[c.Key] = c.Type
	}
	require.Equal(t, map[string]string{"note": "textfield", "approved": "checkbox", "amount": "number", "region": "textfield"}, got)
}
