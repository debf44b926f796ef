package bpmn_test

import (
	"testing"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

// Seeds stay small: the fuzzer minimises every input that finds new
// coverage, and minimising a 5 KB document takes most of a short run.
var fuzzSeeds = []string{
	`<definitions xmlns="` + bpmnNS + `"><process id="p"><startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="e"><conditionExpression>=x</conditionExpression></sequenceFlow></process></definitions>`,
	`<definitions xmlns="` + bpmnNS + `"><message id="m" name="n"/><process id="p"><userTask id="u"/><boundaryEvent id="b" attachedToRef="u" cancelActivity="false"><messageEventDefinition messageRef="m"/></boundaryEvent><intermediateCatchEvent id="t"><timerEventDefinition><timeDuration>PT1S</timeDuration></timerEventDefinition></intermediateCatchEvent></process></definitions>`,
	`<definitions xmlns="` + bpmnNS + `"><process id="p"><subProcess id="s"><startEvent id="a"/><task id="t"/><sequenceFlow id="f" sourceRef="a" targetRef="t"/></subProcess><callActivity id="c"/><exclusiveGateway id="g" default="f"/></process></definitions>`,
	`<definitions xmlns="` + bpmnNS + `" xmlns:z="http://camunda.org/schema/zeebe/1.0" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0"><process id="p"><serviceTask id="s" wf:retries="2" wf:timeout="PT1.5S"><extensionElements><z:taskDefinition type="t" retries="3"/><z:ioMapping><z:input source="a" target="b"/></z:ioMapping><wf:header key="k" value="v"/></extensionElements></serviceTask></process></definitions>`,
	`<definitions xmlns="` + bpmnNS + `" xmlns:c="http://camunda.org/schema/1.0/bpmn"><process id="p"><userTask id="u" c:assignee="a" c:candidateGroups="x, y"><extensionElements><c:inputOutput><c:inputParameter name="n">v</c:inputParameter></c:inputOutput><c:failedJobRetryTimeCycle>R3/PT1M</c:failedJobRetryTimeCycle></extensionElements></userTask></process></definitions>`,
	`<?xml version="1.0" encoding="ISO-8859-1"?><!DOCTYPE x [<!ENTITY a "b">]><definitions/>`,
	// Issue 9's elements: escalation, event sub-process, compensation, conditional, loops.
	`<definitions xmlns="` + bpmnNS + `"><escalation id="x" escalationCode="X"/><process id="p"><subProcess id="e" triggeredByEvent="true"><startEvent id="es" isInterrupting="false"><escalationEventDefinition escalationRef="x"/></startEvent></subProcess><task id="t"><standardLoopCharacteristics testBefore="true" loopMaximum="2"><loopCondition>n</loopCondition></standardLoopCharacteristics></task><boundaryEvent id="c" attachedToRef="t"><compensateEventDefinition/></boundaryEvent><task id="h" isForCompensation="true"/><association sourceRef="c" targetRef="h"/></process></definitions>`,
	`<definitions xmlns="` + bpmnNS + `" xmlns:c="http://camunda.org/schema/1.0/bpmn"><process id="p"><callActivity id="a" calledElement="q" c:calledElementBinding="version" c:calledElementVersion="2"><extensionElements><c:in source="x" target="y"/><c:out variables="all"/></extensionElements></callActivity><intermediateCatchEvent id="k"><conditionalEventDefinition c:variableName="v"><condition>v &gt; 1</condition></conditionalEventDefinition></intermediateCatchEvent></process></definitions>`,
	// Transactions and cancel events, ad-hoc sub-processes, complex gateways,
	// multiple events, compensation event sub-processes, Zeebe execution listeners.
	`<definitions xmlns="` + bpmnNS + `"><process id="p"><transaction id="x"><startEvent id="a"/><endEvent id="c"><cancelEventDefinition/></endEvent><sequenceFlow id="f" sourceRef="a" targetRef="c"/><subProcess id="u" triggeredByEvent="true"><startEvent id="us"><compensateEventDefinition/></startEvent></subProcess></transaction><boundaryEvent id="b" attachedToRef="x"><cancelEventDefinition/></boundaryEvent><complexGateway id="g"><activationCondition>activationCount &gt;= 2</activationCondition></complexGateway></process></definitions>`,
	`<definitions xmlns="` + bpmnNS + `" xmlns:z="http://camunda.org/schema/zeebe/1.0"><process id="p"><adHocSubProcess id="a" ordering="Sequential" cancelRemainingInstances="false"><extensionElements><z:adHoc activeElementsCollection="=[&quot;t&quot;]"/></extensionElements><completionCondition>=done</completionCondition><task id="t"><extensionElements><z:executionListeners><z:executionListener eventType="start" type="j"/></z:executionListeners></extensionElements></task></adHocSubProcess><intermediateCatchEvent id="m" parallelMultiple="true"><conditionalEventDefinition><condition>x</condition></conditionalEventDefinition><timerEventDefinition><timeCycle>R/PT1H</timeCycle></timerEventDefinition></intermediateCatchEvent></process></definitions>`,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add(testdata(f, "subprocess.bpmn"))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := bpmn.Parse(data, bpmn.Options{MaxDepth: 50})
		if def == nil {
			if err == nil {
				t.Fatal("no definition and no error")
			}
			return
		}
		// A definition comes back linked, problems or not: validating it must not panic either.
		_ = model.Validate(def, model.Checks{})
	})
}

// FuzzExport: a document that parses without problems, exported and parsed
// again, runs alike (see requireRunsAlike).
func FuzzExport(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add(testdata(f, "export/extensions.bpmn"))
	f.Fuzz(func(t *testing.T, data []byte) {
		def, err := bpmn.Parse(data, bpmn.Options{MaxDepth: 50})
		if err != nil {
			return
		}
		back, err := bpmn.Parse(bpmn.Export(def), bpmn.Options{})
		if err != nil {
			t.Fatalf("the export does not parse: %v\n%s", err, bpmn.Export(def))
		}
		requireRunsAlike(t, def, back)
	})
}
