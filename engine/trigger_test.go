package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestTriggerByElementID: catches that name no message or signal (valid
// BPMN, common in models drawn before they are wired) wait, and
// Engine.Trigger moves each by its element id with variables.
func TestTriggerByElementID(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <intermediateCatchEvent id="msg"><messageEventDefinition/></intermediateCatchEvent>
    <receiveTask id="recv"/>
    <intermediateCatchEvent id="sig"><signalEventDefinition/></intermediateCatchEvent>
    <userTask id="work"/>
    <boundaryEvent id="nudge" attachedToRef="work" cancelActivity="false"><messageEventDefinition/></boundaryEvent>
    <endEvent id="nudged"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="msg"/><sequenceFlow id="f2" sourceRef="msg" targetRef="recv"/>
    <sequenceFlow id="f3" sourceRef="recv" targetRef="sig"/><sequenceFlow id="f4" sourceRef="sig" targetRef="work"/>
    <sequenceFlow id="f5" sourceRef="work" targetRef="e"/><sequenceFlow id="f6" sourceRef="nudge" targetRef="nudged"/></process>`))
	inst := h.start("p", nil)
	_, err := h.e.Trigger(h.ctx, inst.ID, "recv", nil)
	require.ErrorIs(t, err, engine.ErrNotFound, "nothing waits at recv yet")

	for i, id := range []string{"msg", "recv", "sig"} {
		require.Equal(t, engine.StatusWaiting, h.instance(inst.ID).Status)
		_, err := h.e.Trigger(h.ctx, inst.ID, id, map[string]any{id: i})
		require.NoError(t, err, id)
		h.idle()
	}
	_, err = h.e.Trigger(h.ctx, inst.ID, "nudge", nil)
	require.NoError(t, err)
	h.idle()
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "nudged"), "the boundary fired without ending the task")
	h.complete(inst.ID, "work", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 2, snap.Variables["sig"])
	require.Equal(t, 4, h.count(inst.ID, engine.EventTriggered, ""))
}

// TestImplicitStartAndEnd: a process or sub-process without a start event
// starts at every node no flow enters (BPMN §10.5.2, §13.3.1); a start
// event without an outgoing flow, like any node without one, ends there.
func TestImplicitStartAndEnd(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="nostart" isExecutable="true">
    <task id="a"/><task id="b"/><endEvent id="e"/>
    <subProcess id="sub"><scriptTask id="inner" scriptFormat="javascript"><script>return {inner: true}</script></scriptTask></subProcess>
    <sequenceFlow id="f1" sourceRef="a" targetRef="e"/><sequenceFlow id="f2" sourceRef="b" targetRef="sub"/></process>
  <process id="lonely" isExecutable="true"><startEvent id="only"/></process>`))
	inst := h.start("nostart", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, true, snap.Variables["inner"], "the sub-process started at its only node")
	for _, id := range []string{"a", "b", "sub", "inner", "e"} {
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, id), id)
	}
	lonely, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "nostart", ProcessID: "lonely"})
	require.NoError(t, err)
	h.idle()
	h.requireStatus(lonely.ID, engine.StatusCompleted)
}

// TestExecutionListeners: camunda:executionListener scripts run when a
// token starts and ends a node, read and set variables; one that throws
// stops the token with an incident.
func TestExecutionListeners(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <task id="work"><extensionElements>
      <camunda:executionListener event="start"><camunda:script scriptFormat="javascript">execution.setVariable("log", [execution.eventName + ":" + execution.currentActivityId])</camunda:script></camunda:executionListener>
      <camunda:executionListener event="end"><camunda:script scriptFormat="javascript">return {log: execution.getVariable("log").concat(["end"]), n: n * 2}</camunda:script></camunda:executionListener>
    </extensionElements></task>
    <endEvent id="e"><extensionElements>
      <camunda:executionListener event="start"><camunda:script scriptFormat="javascript">if (n &gt; 10) throw new Error("too big")</camunda:script></camunda:executionListener>
    </extensionElements></endEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`))
	inst := h.start("p", map[string]any{"n": 2})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []any{"start:work", "end"}, snap.Variables["log"])
	require.EqualValues(t, 4, snap.Variables["n"])

	big := h.start("p", map[string]any{"n": 6})
	h.requireStatus(big.ID, engine.StatusIncident)
	incs := h.openIncidents(big.ID)
	require.Len(t, incs, 1)
	require.Equal(t, "e", incs[0].ElementID)
	require.Contains(t, incs[0].Message, "too big")
}
