package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// espProcess is a process that waits at user task "work" beside the event
// sub-process esp, whose start is given; the event sub-process counts its
// runs in hits.
func espProcess(defs, start string) []byte {
	return callBPMN(defs + `<process id="p" isExecutable="true">
    <startEvent id="s"/><userTask id="work"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    <subProcess id="esp" triggeredByEvent="true">
      ` + start + `
      <scriptTask id="hit" scriptFormat="javascript"><script>return {hits: (typeof hits === 'number' ? hits : 0) + 1}</script></scriptTask>
      <endEvent id="espEnd"/>
      <sequenceFlow id="ef1" sourceRef="espStart" targetRef="hit"/><sequenceFlow id="ef2" sourceRef="hit" targetRef="espEnd"/>
    </subProcess></process>`)
}

const pingMessage = `<message id="ping" name="ping"/>`

func TestEventSubProcessInterruptingMessage(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(espProcess(pingMessage, `<startEvent id="espStart"><messageEventDefinition messageRef="ping"/></startEvent>`))
	inst := h.start("p", nil)
	h.requireStatus(inst.ID, engine.StatusWaiting)
	_, err := h.e.Correlate(h.ctx, engine.Message{Name: "ping", Variables: map[string]any{"why": "stop"}})
	require.NoError(t, err)
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, snap.Variables["hits"])
	require.Equal(t, "stop", snap.Variables["why"])
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "the interrupted task was cancelled")
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "e"), "the main flow never reached its end")
}

func TestEventSubProcessNonInterruptingMessage(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(espProcess(pingMessage, `<startEvent id="espStart" isInterrupting="false"><messageEventDefinition messageRef="ping"/></startEvent>`))
	inst := h.start("p", nil)
	for range 2 {
		_, err := h.e.Correlate(h.ctx, engine.Message{Name: "ping"})
		require.NoError(t, err)
		h.idle()
	}
	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.EqualValues(t, 2, snap.Variables["hits"], "it keeps listening")
	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"))
}

func TestEventSubProcessTimerCycleInSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub">
      <startEvent id="ss"/><userTask id="work"/><endEvent id="se"/>
      <sequenceFlow id="sf1" sourceRef="ss" targetRef="work"/><sequenceFlow id="sf2" sourceRef="work" targetRef="se"/>
      <subProcess id="reminders" triggeredByEvent="true">
        <startEvent id="remind" isInterrupting="false"><timerEventDefinition><timeCycle>R2/PT1M</timeCycle></timerEventDefinition></startEvent>
        <scriptTask id="hit" scriptFormat="javascript"><script>return {hits: (typeof hits === 'number' ? hits : 0) + 1}</script></scriptTask>
        <endEvent id="re"/>
        <sequenceFlow id="rf1" sourceRef="remind" targetRef="hit"/><sequenceFlow id="rf2" sourceRef="hit" targetRef="re"/>
      </subProcess>
    </subProcess><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/></process>`))
	inst := h.start("p", nil)
	h.advance(time.Minute)
	h.advance(time.Minute)
	h.advance(time.Minute)
	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.EqualValues(t, 2, snap.Variables["hits"], "R2: two reminders, then no more")
	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

func TestEventSubProcessError(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<error id="boom" errorCode="BOOM"/><process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub">
      <startEvent id="ss"/><endEvent id="fail"><errorEventDefinition errorRef="boom"/></endEvent>
      <sequenceFlow id="sf1" sourceRef="ss" targetRef="fail"/>
    </subProcess><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/>
    <subProcess id="onError" triggeredByEvent="true">
      <startEvent id="caught"><errorEventDefinition errorRef="boom"/></startEvent><endEvent id="handled"/>
      <sequenceFlow id="ef1" sourceRef="caught" targetRef="handled"/>
    </subProcess></process>`))
	inst := h.start("p", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "BOOM", snap.Variables["errorCode"])
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "handled"))
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "e"), "the error ended the process's work")
}

func TestEventSubProcessEscalationAndSignalInSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<escalation id="late" escalationCode="LATE"/><signal id="halt" name="halt"/>
  <process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub">
      <startEvent id="ss"/><parallelGateway id="fork"/>
      <intermediateThrowEvent id="warn"><escalationEventDefinition escalationRef="late"/></intermediateThrowEvent><endEvent id="warned"/>
      <userTask id="work"/><endEvent id="se"/>
      <sequenceFlow id="sf1" sourceRef="ss" targetRef="fork"/><sequenceFlow id="sf2" sourceRef="fork" targetRef="warn"/>
      <sequenceFlow id="sf3" sourceRef="warn" targetRef="warned"/><sequenceFlow id="sf4" sourceRef="fork" targetRef="work"/>
      <sequenceFlow id="sf5" sourceRef="work" targetRef="se"/>
      <subProcess id="onLate" triggeredByEvent="true">
        <startEvent id="lateStart" isInterrupting="false"><escalationEventDefinition escalationRef="late"/></startEvent><endEvent id="noted"/>
        <sequenceFlow id="lf1" sourceRef="lateStart" targetRef="noted"/>
      </subProcess>
      <subProcess id="onHalt" triggeredByEvent="true">
        <startEvent id="haltStart"><signalEventDefinition signalRef="halt"/></startEvent><endEvent id="halted"/>
        <sequenceFlow id="hf1" sourceRef="haltStart" targetRef="halted"/>
      </subProcess>
    </subProcess><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/></process>`))
	inst := h.start("p", nil)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "noted"), "the escalation started its event sub-process")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "warned"), "a non-interrupting start lets the thrower go on")
	h.requireStatus(inst.ID, engine.StatusWaiting)

	_, err := h.e.Signal(h.ctx, "halt", nil)
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "halted"))
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "the signal interrupted the sub-process's task")
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"), "the sub-process completed, the process went on")
}

// TestTimerCycleNotations: R-1 (Camunda 8's spelling of for ever) and
// Rn/start/end intervals.
func TestTimerCycleNotations(t *testing.T) {
	t.Parallel()
	for cycle, want := range map[string]int{
		"R-1/PT1M": 5, // every minute, for ever: five in five minutes
		"R/PT1M":   5,
		"R2/" + epoch.Add(time.Minute).Format(time.RFC3339) + "/" + epoch.Add(2*time.Minute).Format(time.RFC3339): 2,
	} {
		t.Run(cycle, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.deploySource(espProcess("", `<startEvent id="espStart" isInterrupting="false"><timerEventDefinition><timeCycle>`+cycle+`</timeCycle></timerEventDefinition></startEvent>`))
			inst := h.start("p", nil)
			for range 5 {
				h.advance(time.Minute)
			}
			snap := h.requireStatus(inst.ID, engine.StatusWaiting)
			require.EqualValues(t, want, snap.Variables["hits"])
		})
	}
}

// TestCronTimeZoneInTheText: CRON_TZ= in a cron timeCycle is read.
func TestCronTimeZoneInTheText(t *testing.T) {
	t.Parallel()
	h := setup(t)
	// epoch is 09:00 UTC, 10:00 in Berlin: the 11:00 Berlin firing is an hour on.
	h.deploySource(espProcess("", `<startEvent id="espStart" isInterrupting="false"><timerEventDefinition><timeCycle>CRON_TZ=Europe/Berlin 0 11 * * *</timeCycle></timerEventDefinition></startEvent>`))
	inst := h.start("p", nil)
	h.advance(59 * time.Minute)
	require.Nil(t, h.instance(inst.ID).Variables["hits"])
	h.advance(time.Minute)
	require.EqualValues(t, 1, h.instance(inst.ID).Variables["hits"])
}

// TestEventSubWatchersSurviveRestart: the watcher of an event sub-process
// start inside a sub-process is stored as its subscription only; another
// engine on the same store (parking every waiting instance, as a large
// store does) still runs the event sub-process in that sub-process's
// scope, and it keeps watching.
func TestEventSubWatchersSurviveRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New(memstore.WithParking(0))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := engineOn(t, st)
	_, _, err := first.Deploy(ctx, engine.DeployRequest{Source: callBPMN(`<message id="m" name="nudge"/><process id="p" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub">
      <startEvent id="ss"/><userTask id="work"/><endEvent id="se"/>
      <sequenceFlow id="sf1" sourceRef="ss" targetRef="work"/><sequenceFlow id="sf2" sourceRef="work" targetRef="se"/>
      <subProcess id="esp" triggeredByEvent="true">
        <startEvent id="espStart" isInterrupting="false"><messageEventDefinition messageRef="m"/></startEvent>
        <scriptTask id="count" scriptFormat="javascript"><script>return {nudges: (typeof nudges === 'number' ? nudges : 0) + 1}</script></scriptTask>
        <endEvent id="espEnd"/>
        <sequenceFlow id="ef1" sourceRef="espStart" targetRef="count"/><sequenceFlow id="ef2" sourceRef="count" targetRef="espEnd"/>
      </subProcess>
    </subProcess>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="e"/></process>`)})
	require.NoError(t, err)
	inst, _, err := first.Start(ctx, engine.StartRequest{Definition: "p"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := first.Instance(ctx, inst.ID)
		return err == nil && snap.Status == engine.StatusWaiting
	}, 10*time.Second, 5*time.Millisecond)
	stored, err := st.Instance(ctx, inst.ID)
	require.NoError(t, err)
	require.Len(t, stored.Tokens, 2, "the sub-process's token and the task's: the watcher is stored as its subscription")
	watchers := 0
	for _, ts := range stored.TokenStates() {
		if ts.Watch {
			watchers++
			require.Equal(t, "espStart", ts.ElementID)
			require.NotZero(t, ts.Scope, "it watches the sub-process's scope")
		}
	}
	require.Equal(t, 1, watchers)
	first.Close()

	second := engineOn(t, st)
	for want := 1; want <= 2; want++ {
		require.Eventually(t, func() bool { // recovery loads the instance, and its subscription, in the background
			n, err := second.Correlate(ctx, engine.Message{Name: "nudge"})
			return err == nil && n == 1
		}, 10*time.Second, 5*time.Millisecond)
		require.Eventually(t, func() bool {
			snap, err := second.Instance(ctx, inst.ID)
			return err == nil && snap.Variables["nudges"] == int64(want)
		}, 10*time.Second, 5*time.Millisecond, "nudge %d ran the event sub-process", want)
	}
}
