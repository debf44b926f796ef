package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

const escalationDefs = `<escalation id="late" escalationCode="LATE"/><escalation id="other" escalationCode="OTHER"/>`

// subWithEscalation is a process whose sub-process throws escalation LATE
// beside a user task, with boundary as the sub-process's boundary event.
func subWithEscalation(throw, boundary string) []byte {
	return callBPMN(escalationDefs + `<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub">
      <startEvent id="ss"/><parallelGateway id="fork"/>
      ` + throw + `
      <userTask id="work"/><endEvent id="se"/>
      <sequenceFlow id="sf1" sourceRef="ss" targetRef="fork"/><sequenceFlow id="sf2" sourceRef="fork" targetRef="throw"/>
      <sequenceFlow id="sf3" sourceRef="fork" targetRef="work"/><sequenceFlow id="sf4" sourceRef="work" targetRef="se"/>
    </subProcess>
    ` + boundary + `<endEvent id="escalated"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="catch" targetRef="escalated"/></process>`)
}

const (
	throwLateEnd          = `<endEvent id="throw"><escalationEventDefinition escalationRef="late"/></endEvent>`
	throwLateIntermediate = `<intermediateThrowEvent id="throw"><escalationEventDefinition escalationRef="late"/></intermediateThrowEvent><endEvent id="after"/><sequenceFlow id="sf5" sourceRef="throw" targetRef="after"/>`
)

func TestEscalationInterruptingBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(subWithEscalation(throwLateEnd, `<boundaryEvent id="catch" attachedToRef="sub"><escalationEventDefinition escalationRef="late"/></boundaryEvent>`))
	inst := h.start("p", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "LATE", snap.Variables["escalationCode"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "escalated"))
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "e"), "the sub-process was interrupted")
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "its user task with it")
}

func TestEscalationNonInterruptingBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(subWithEscalation(throwLateIntermediate, `<boundaryEvent id="catch" attachedToRef="sub" cancelActivity="false"><escalationEventDefinition/></boundaryEvent>`))
	inst := h.start("p", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "escalated"), "the catch-all boundary's path ran")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "after"), "the thrower went on")
	h.requireStatus(inst.ID, engine.StatusWaiting)
	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"), "the sub-process went on to its end")
}

func TestEscalationUncaughtIsNoError(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(subWithEscalation(throwLateIntermediate, `<boundaryEvent id="catch" attachedToRef="sub"><escalationEventDefinition escalationRef="other"/></boundaryEvent>`))
	inst := h.start("p", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventEscalationThrown, "throw"))
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "after"), "a boundary for another code does not catch it; the thrower goes on")
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "escalated"))
	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Empty(t, h.openIncidents(inst.ID))
}

func TestEscalationReachesTheCallActivity(t *testing.T) {
	t.Parallel()
	h := setup(t)
	child := `<process id="child" isExecutable="true">
    <startEvent id="s"/><parallelGateway id="fork"/>
    <intermediateThrowEvent id="throw"><escalationEventDefinition escalationRef="late"/></intermediateThrowEvent>
    <userTask id="wait"/><endEvent id="e1"/><endEvent id="e2"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="fork"/><sequenceFlow id="f2" sourceRef="fork" targetRef="throw"/>
    <sequenceFlow id="f3" sourceRef="fork" targetRef="wait"/><sequenceFlow id="f4" sourceRef="throw" targetRef="e1"/>
    <sequenceFlow id="f5" sourceRef="wait" targetRef="e2"/></process>`
	caller := func(id, interrupting string) string {
		return `<process id="` + id + `" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="child"/><endEvent id="e"/>
    <boundaryEvent id="catch" attachedToRef="call" cancelActivity="` + interrupting + `"><escalationEventDefinition escalationRef="late"/></boundaryEvent><endEvent id="escalated"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="catch" targetRef="escalated"/></process>`
	}
	h.deploySource(callBPMN(escalationDefs+caller("interrupted", "true"), child))
	h.deploySource(callBPMN(escalationDefs+caller("notified", "false"), child))

	in := h.start("interrupted", nil)
	h.requireStatus(in.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(in.ID, engine.EventElementCompleted, "escalated"))
	require.Equal(t, engine.StatusCancelled, h.children(in.ID)[0].Status, "an interrupting catch cancels the child")

	no := h.start("notified", nil)
	require.Equal(t, 1, h.count(no.ID, engine.EventElementCompleted, "escalated"))
	h.requireStatus(no.ID, engine.StatusWaiting)
	kid := h.children(no.ID)[0]
	require.Equal(t, engine.StatusWaiting, kid.Status, "a non-interrupting catch lets the child go on")
	h.complete(kid.ID, "wait", nil)
	h.requireStatus(no.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(no.ID, engine.EventElementCompleted, "e"))
}
