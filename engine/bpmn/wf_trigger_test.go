package bpmn_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

const triggerSource = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="order" isExecutable="true">
    <extensionElements>
      <wf:trigger on="completed" target="invoice" version="latest" condition="approved"><wf:input source="=orderId" target="orderId"/></wf:trigger>
      <wf:trigger on="failed" target="alert" version="2" allVariables="true"/>
    </extensionElements>
    <startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/>
  </process>
</definitions>`

// TestTriggersParseAndExport: wf:trigger elements on a process become its
// chain triggers, and Export writes them back as they were.
func TestTriggersParseAndExport(t *testing.T) {
	t.Parallel()
	def, err := bpmn.Parse([]byte(triggerSource), bpmn.Options{})
	require.NoError(t, err)
	want := []model.ChainTrigger{
		{On: model.ChainCompleted, Target: "invoice", Condition: "approved", Input: []model.Mapping{{Source: "=orderId", Target: "orderId"}}},
		{On: model.ChainFailed, Target: "alert", Binding: model.BindingVersion, Version: 2, AllVariables: true},
	}
	require.Equal(t, want, def.Main().Triggers)

	back, err := bpmn.Parse(bpmn.Export(def), bpmn.Options{})
	require.NoError(t, err)
	require.Equal(t, want, back.Main().Triggers)
}

func TestTriggerBadVersionIsAProblem(t *testing.T) {
	t.Parallel()
	_, err := bpmn.Parse([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="order" isExecutable="true"><extensionElements><wf:trigger on="completed" target="invoice" version="newest"/></extensionElements>
    <startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/></process></definitions>`), bpmn.Options{})
	require.ErrorContains(t, err, `wf:trigger "invoice" of process "order" has version "newest": write latest or a version number`)
}
