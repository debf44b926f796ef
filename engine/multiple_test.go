package engine_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

const multipleDefs = `<message id="go" name="go"/><signal id="now" name="now"/><escalation id="up" escalationCode="UP"/>`

// multipleCatch is a process that waits at catch event "wait", with the
// given attributes and definitions, then ends.
func multipleCatch(attrs, defs string) []byte {
	return callBPMN(multipleDefs + `<process id="p" isExecutable="true">
    <startEvent id="s"/><intermediateCatchEvent id="wait" ` + attrs + `>` + defs + `</intermediateCatchEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process>`)
}

const messageOrTimer = `<messageEventDefinition messageRef="go"/><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>`

func TestMultipleCatchAnyOne(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(multipleCatch(``, messageOrTimer))
	byMessage := h.start("p", nil)
	byTimer := h.start("p", nil)
	_, err := h.e.Correlate(h.ctx, engine.Message{Name: "go", InstanceID: byMessage.ID})
	require.NoError(t, err)
	h.idle()
	h.requireStatus(byMessage.ID, engine.StatusCompleted)
	h.requireStatus(byTimer.ID, engine.StatusWaiting)
	h.advance(time.Hour)
	h.requireStatus(byTimer.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(byMessage.ID, engine.EventElementCompleted, "wait"), "one definition is enough, once")
}

func TestParallelMultipleCatchAll(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(multipleCatch(`parallelMultiple="true"`, `<messageEventDefinition messageRef="go"/><signalEventDefinition signalRef="now"/>`))
	inst := h.start("p", nil)
	_, err := h.e.Correlate(h.ctx, engine.Message{Name: "go", InstanceID: inst.ID, Variables: map[string]any{"a": 1}})
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusWaiting) // the signal is still to come
	_, err = h.e.Signal(h.ctx, "now", nil)
	require.NoError(t, err)
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, snap.Variables["a"])
}

func TestMultipleThrowAndStart(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(multipleDefs + `<process id="listener" isExecutable="true">
    <startEvent id="ls"><messageEventDefinition messageRef="go"/><signalEventDefinition signalRef="now"/></startEvent><endEvent id="le"/>
    <sequenceFlow id="lf" sourceRef="ls" targetRef="le"/></process>`))
	h.deploySource(callBPMN(multipleDefs + `<process id="thrower" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub"><startEvent id="ss"/>
      <intermediateThrowEvent id="both"><signalEventDefinition signalRef="now"/><escalationEventDefinition escalationRef="up"/></intermediateThrowEvent>
      <endEvent id="se"/><sequenceFlow id="sf1" sourceRef="ss" targetRef="both"/><sequenceFlow id="sf2" sourceRef="both" targetRef="se"/></subProcess>
    <boundaryEvent id="esc" attachedToRef="sub" cancelActivity="false"><escalationEventDefinition escalationRef="up"/></boundaryEvent><endEvent id="escalated"/>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><sequenceFlow id="f3" sourceRef="esc" targetRef="escalated"/></process>`))
	inst := h.start("thrower", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "escalated"), "the escalation was thrown")
	started, _, err := h.e.Queries().Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "listener"})
	require.NoError(t, err)
	require.Len(t, started, 1, "the signal was thrown, and a multiple start started on it")
}

// TestMultipleCatchConditionalAndCycle: a non-interrupting multiple boundary
// event fires on its conditional definition and repeats on its cycle.
func TestMultipleCatchConditionalAndCycle(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/><userTask id="work"/><endEvent id="e"/>
    <boundaryEvent id="nudge" attachedToRef="work" cancelActivity="false">
      <conditionalEventDefinition><condition>urgent === true</condition></conditionalEventDefinition>
      <timerEventDefinition><timeCycle>R/PT1H</timeCycle></timerEventDefinition>
    </boundaryEvent>
    <scriptTask id="count" scriptFormat="javascript"><script>return {nudges: (typeof nudges === 'number' ? nudges : 0) + 1}</script></scriptTask>
    <endEvent id="ne"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="nudge" targetRef="count"/><sequenceFlow id="f4" sourceRef="count" targetRef="ne"/></process>`))
	inst := h.start("p", map[string]any{"urgent": false})
	h.advance(time.Hour)
	h.advance(time.Hour)
	require.EqualValues(t, 2, h.instance(inst.ID).Variables["nudges"], "the cycle fired twice")
	_, err := h.e.SetVariables(h.ctx, inst.ID, "", map[string]any{"urgent": true})
	require.NoError(t, err)
	h.idle()
	require.EqualValues(t, 3, h.instance(inst.ID).Variables["nudges"], "the condition became true")
	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

// TestMultipleBoundaryCatchesAnError: a multiple boundary event catches by
// its error definition.
func TestMultipleBoundaryCatchesAnError(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(multipleDefs + `<error id="boom" errorCode="BOOM"/><process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub"><startEvent id="ss"/><endEvent id="fail"><errorEventDefinition errorRef="boom"/></endEvent><sequenceFlow id="sf" sourceRef="ss" targetRef="fail"/></subProcess>
    <boundaryEvent id="caught" attachedToRef="sub"><messageEventDefinition messageRef="go"/><errorEventDefinition errorRef="boom"/></boundaryEvent>
    <endEvent id="e"/><endEvent id="handled"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="caught" targetRef="handled"/></process>`))
	inst := h.start("p", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "BOOM", snap.Variables["errorCode"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "handled"))
}

// TestMultipleStartByTimer: a multiple start event of a process starts on
// its timer definition as well as its message.
func TestMultipleStartByTimer(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(multipleDefs + `<process id="ticker" isExecutable="true">
    <startEvent id="st"><messageEventDefinition messageRef="go"/><timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition></startEvent>
    <endEvent id="e"/><sequenceFlow id="f1" sourceRef="st" targetRef="e"/></process>`))
	h.advance(time.Hour)
	h.advance(time.Hour)
	h.advance(time.Hour)
	h.idle()
	page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "ticker"})
	require.NoError(t, err)
	require.Len(t, page, 2, "R2: two starts by the timer")
}

// TestParallelMultipleProcessStart: a process whose start event needs a
// message and a timer starts on the first of them and goes on when both
// have happened.
func TestParallelMultipleProcessStart(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(multipleDefs + `<process id="both" isExecutable="true">
    <startEvent id="st" parallelMultiple="true"><messageEventDefinition messageRef="go"/><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></startEvent>
    <endEvent id="e"/><sequenceFlow id="f1" sourceRef="st" targetRef="e"/></process>`))
	n, err := h.e.Correlate(h.ctx, engine.Message{Name: "go", Variables: map[string]any{"order": "o-1"}})
	require.NoError(t, err)
	require.Equal(t, 1, n, "the message started an instance")
	h.idle()
	page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "both"})
	require.NoError(t, err)
	require.Len(t, page, 1)
	inst := page[0]
	h.requireStatus(inst.ID, engine.StatusWaiting) // the timer is still to come
	h.advance(time.Hour)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "o-1", snap.Variables["order"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"))
}
