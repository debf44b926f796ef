package bpmn_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

func TestParseMultiInstance(t *testing.T) {
	t.Parallel()
	src := `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="x">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:serviceTask id="zeebe">
      <bpmn:multiInstanceLoopCharacteristics>
        <bpmn:extensionElements>
          <zeebe:loopCharacteristics inputCollection="=orders" inputElement="order" outputCollection="results" outputElement="=result"/>
        </bpmn:extensionElements>
        <bpmn:completionCondition>=nrOfCompletedInstances &gt;= 2</bpmn:completionCondition>
      </bpmn:multiInstanceLoopCharacteristics>
    </bpmn:serviceTask>
    <bpmn:userTask id="camunda">
      <bpmn:multiInstanceLoopCharacteristics isSequential="true" camunda:collection="${reviewers}" camunda:elementVariable="reviewer"/>
    </bpmn:userTask>
    <bpmn:task id="cardinality">
      <bpmn:multiInstanceLoopCharacteristics><bpmn:loopCardinality>3</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics>
    </bpmn:task>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="zeebe"/>
    <bpmn:sequenceFlow id="f2" sourceRef="zeebe" targetRef="camunda"/>
    <bpmn:sequenceFlow id="f3" sourceRef="camunda" targetRef="cardinality"/>
    <bpmn:sequenceFlow id="f4" sourceRef="cardinality" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`
	def, err := bpmn.Parse([]byte(src), bpmn.Options{})
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, &model.MultiInstance{
		CounterFrom: 1, Collection: "=orders", Element: "order", OutputCollection: "results",
		OutputElement: "=result", Completion: "=nrOfCompletedInstances >= 2",
	}, p.Node("zeebe").Loop)
	require.Equal(t, &model.MultiInstance{Sequential: true, Collection: "${reviewers}", Element: "reviewer"}, p.Node("camunda").Loop)
	require.Equal(t, &model.MultiInstance{CounterFrom: 1, Cardinality: "3"}, p.Node("cardinality").Loop, "a file that uses Zeebe counts from 1")
	require.Empty(t, model.Validate(def, model.Checks{}))
}
