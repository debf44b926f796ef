package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// callBPMN is a definition of processes; each is "id: body".
func callBPMN(processes ...string) []byte {
	src := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">`
	for _, p := range processes {
		src += p
	}
	return []byte(src + `</definitions>`)
}

const (
	callerDoubling = `<process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="doubler"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`
	doubler = `<process id="doubler" isExecutable="true">
    <startEvent id="s"/><scriptTask id="double" scriptFormat="javascript"><script>return {doubled: amount * 2}</script></scriptTask><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="double"/><sequenceFlow id="f2" sourceRef="double" targetRef="e"/></process>`
	waiter = `<process id="waiter" isExecutable="true">
    <startEvent id="s"/><userTask id="wait"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process>`
)

func (h *harness) deploySource(src []byte) engine.DefinitionRecord {
	h.t.Helper()
	rec, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: src})
	require.NoError(h.t, err)
	return rec
}

// children returns the instances id called.
func (h *harness) children(id string) []*engine.Snapshot {
	h.t.Helper()
	page, _, err := h.e.Queries().Instances(h.ctx, engine.InstanceFilter{ParentID: id})
	require.NoError(h.t, err)
	out := make([]*engine.Snapshot, len(page))
	for i, s := range page {
		out[i] = h.instance(s.ID)
	}
	return out
}

func TestCallActivityRunsTheCalledProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(callerDoubling, doubler))
	inst := h.start("caller", map[string]any{"amount": 21})

	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 42, snap.Variables["doubled"], "the child's variables come back")
	kids := h.children(inst.ID)
	require.Len(t, kids, 1)
	child := kids[0]
	require.Equal(t, engine.StatusCompleted, child.Status)
	require.Equal(t, "doubler", child.ProcessID)
	require.Equal(t, &engine.ParentRef{InstanceID: inst.ID, Token: child.Parent.Token, ElementID: "call", Depth: 1}, child.Parent)
	require.EqualValues(t, 21, child.Variables["amount"], "the caller's variables go in")
	require.Equal(t, 1, h.count(inst.ID, engine.EventCallStarted, "call"))
	require.Equal(t, 1, h.count(inst.ID, engine.EventCallEnded, "call"))
}

func TestCallActivityErrorReachesTheBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<error id="err" errorCode="NO_STOCK"/>
  <process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="failing"/><endEvent id="e"/>
    <boundaryEvent id="caught" attachedToRef="call"><errorEventDefinition errorRef="err"/></boundaryEvent><endEvent id="handled"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="caught" targetRef="handled"/></process>
  <process id="failing" isExecutable="true">
    <startEvent id="s"/><endEvent id="boom"><errorEventDefinition errorRef="err"/></endEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="boom"/></process>`))
	inst := h.start("caller", nil)

	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "handled"), "the boundary caught the child's error")
	require.Zero(t, h.count(inst.ID, engine.EventElementCompleted, "e"))
	kids := h.children(inst.ID)
	require.Len(t, kids, 1)
	require.Equal(t, engine.StatusFailed, kids[0].Status, "the child ended by the error it passed on")
}

func TestCallActivityUncaughtErrorIsAnIncidentOfTheCaller(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<error id="err" errorCode="NO_STOCK"/>
  <process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="failing"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>
  <process id="failing" isExecutable="true">
    <startEvent id="s"/><endEvent id="boom"><errorEventDefinition errorRef="err"/></endEvent>
    <sequenceFlow id="f1" sourceRef="s" targetRef="boom"/></process>`))
	inst := h.start("caller", nil)
	h.requireStatus(inst.ID, engine.StatusIncident)
	incs := h.openIncidents(inst.ID)
	require.Len(t, incs, 1)
	require.Equal(t, "call", incs[0].ElementID)
	require.Contains(t, incs[0].Message, `unhandled BPMN error "NO_STOCK"`)
}

func TestCallActivityWithdrawnCancelsTheChild(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="waiter"/><endEvent id="e"/>
    <boundaryEvent id="late" attachedToRef="call"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent><endEvent id="gaveUp"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="late" targetRef="gaveUp"/></process>`, waiter))

	byTimer := h.start("caller", nil)
	byCancel := h.start("caller", nil)
	for _, id := range []string{byTimer.ID, byCancel.ID} {
		kids := h.children(id)
		require.Len(t, kids, 1)
		require.Equal(t, engine.StatusWaiting, kids[0].Status, "the child waits at its user task")
	}
	_, err := h.e.Cancel(h.ctx, byCancel.ID)
	require.NoError(t, err)
	h.advance(time.Hour)

	h.requireStatus(byTimer.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(byTimer.ID, engine.EventElementCompleted, "gaveUp"))
	h.requireStatus(byCancel.ID, engine.StatusCancelled)
	for _, id := range []string{byTimer.ID, byCancel.ID} {
		require.Equal(t, engine.StatusCancelled, h.children(id)[0].Status, "withdrawing the call activity cancels its child")
	}
}

func TestCallActivityDepthLimit(t *testing.T) {
	t.Parallel()
	h := setup(t, withConfig(func(c *engine.Config) { c.MaxCallDepth = 3 }))
	h.deploySource(callBPMN(`<process id="again" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="again"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`))
	root := h.start("again", nil)
	id, depth := root.ID, 0
	for {
		kids := h.children(id)
		if len(kids) == 0 {
			break
		}
		require.Len(t, kids, 1)
		id, depth = kids[0].ID, depth+1
	}
	require.Equal(t, 3, depth, "three nested calls, then no more")
	h.requireStatus(id, engine.StatusIncident)
	incs := h.openIncidents(id)
	require.Len(t, incs, 1)
	require.Contains(t, incs[0].Message, "nest calls 4 deep, more than 3")
}

func TestCallActivityCamundaMappings(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="caller" isExecutable="true">
    <startEvent id="s"/>
    <callActivity id="call" calledElement="doubler">
      <extensionElements>
        <camunda:in source="price" target="amount"/>
        <camunda:in businessKey="#{execution.processBusinessKey}"/>
        <camunda:out source="doubled" target="total"/>
      </extensionElements>
    </callActivity><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`, doubler))
	snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "caller", BusinessKey: "order-7", Variables: map[string]any{"price": 5, "secret": "x"}})
	require.NoError(t, err)
	h.idle()

	done := h.requireStatus(snap.ID, engine.StatusCompleted)
	require.EqualValues(t, 10, done.Variables["total"])
	require.NotContains(t, done.Variables, "doubled", "only what camunda:out names comes back")
	child := h.children(snap.ID)[0]
	require.Equal(t, map[string]any{"amount": int64(5), "doubled": int64(10)}, normalizeNumbers(child.Variables), "only what camunda:in names goes in")
	require.Equal(t, "order-7", child.BusinessKey)
}

func normalizeNumbers(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = asInt64(v)
	}
	return out
}

// asInt64 gives a whole number as int64, whatever the store made of it.
func asInt64(v any) any {
	switch n := v.(type) {
	case int:
		return int64(n)
	case float64:
		return int64(n)
	}
	return v
}

func TestCallActivityBindings(t *testing.T) {
	t.Parallel()
	h := setup(t)
	version := func(n int) []byte {
		return callBPMN(fmt.Sprintf(`<process id="callee" isExecutable="true">
    <startEvent id="s"/><scriptTask id="mark" scriptFormat="javascript"><script>return {v: %d}</script></scriptTask><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="mark"/><sequenceFlow id="f2" sourceRef="mark" targetRef="e"/></process>`, n))
	}
	h.deploySource(version(1))
	h.deploySource(version(2))
	h.deploySource(callBPMN(`<process id="caller" isExecutable="true">
    <startEvent id="s"/><parallelGateway id="fork"/>
    <callActivity id="latest" calledElement="callee"><extensionElements><camunda:out source="v" target="latestV"/></extensionElements></callActivity>
    <callActivity id="first" calledElement="callee" camunda:calledElementBinding="version" camunda:calledElementVersion="1"><extensionElements><camunda:out source="v" target="firstV"/></extensionElements></callActivity>
    <parallelGateway id="join"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
    <sequenceFlow id="f2" sourceRef="fork" targetRef="latest"/><sequenceFlow id="f3" sourceRef="fork" targetRef="first"/>
    <sequenceFlow id="f4" sourceRef="latest" targetRef="join"/><sequenceFlow id="f5" sourceRef="first" targetRef="join"/>
    <sequenceFlow id="f6" sourceRef="join" targetRef="e"/></process>`))
	inst := h.start("caller", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 2, snap.Variables["latestV"])
	require.EqualValues(t, 1, snap.Variables["firstV"])

	missing := h.deploySource(callBPMN(`<process id="lost" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="nowhere"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`))
	lost := h.start(missing.Key, nil)
	h.requireStatus(lost.ID, engine.StatusIncident)
	require.Contains(t, h.openIncidents(lost.ID)[0].Message, `no deployed definition holds process "nowhere"`)
}

// TestCallActivitySurvivesRestart: a caller and its waiting child are
// stored; another engine on the same store finishes the child, and the
// caller goes on.
func TestCallActivitySurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := engineOn(t, st)
	_, _, err := first.Deploy(ctx, engine.DeployRequest{Source: callBPMN(`<process id="caller" isExecutable="true">
    <startEvent id="s"/><callActivity id="call" calledElement="waiter"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`, waiter)})
	require.NoError(t, err)
	caller, _, err := first.Start(ctx, engine.StartRequest{Definition: "caller", Variables: map[string]any{"n": 1}})
	require.NoError(t, err)
	var child *engine.Snapshot
	require.Eventually(t, func() bool {
		page, _, err := st.Instances(ctx, engine.InstanceFilter{ParentID: caller.ID})
		if err != nil || len(page) != 1 || len(page[0].Tasks) != 1 {
			return false
		}
		child = page[0]
		return true
	}, 10*time.Second, 5*time.Millisecond)
	first.Close()

	second := engineOn(t, st)
	_, err = second.CompleteTask(ctx, child.Tasks[0].ID, "tester", map[string]any{"answer": 42})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := second.Instance(ctx, caller.ID)
		return err == nil && snap.Status == engine.StatusCompleted && snap.Variables["answer"] == 42
	}, 10*time.Second, 5*time.Millisecond, "the caller goes on with the child's variables")
}

// TestCallActivityMultiInstance: a parallel multi-instance call activity
// starts one child per item and collects what each passes back.
func TestCallActivityMultiInstance(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="caller" isExecutable="true">
    <startEvent id="s"/>
    <callActivity id="call" calledElement="doubler">
      <multiInstanceLoopCharacteristics>
        <extensionElements><zeebe:loopCharacteristics inputCollection="=items" inputElement="amount" outputCollection="results" outputElement="=doubled"/></extensionElements>
      </multiInstanceLoopCharacteristics>
    </callActivity><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`, doubler))
	inst := h.start("caller", map[string]any{"items": []any{1, 2, 3}})

	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []any{int64(2), int64(4), int64(6)}, normalizeList(snap.Variables["results"]))
	require.Len(t, h.children(inst.ID), 3, "one child per item")
}

func normalizeList(v any) []any {
	l, _ := v.([]any)
	out := make([]any, len(l))
	for i, x := range l {
		out[i] = asInt64(x)
	}
	return out
}

// TestCallActivityVersionTagBinding: a call bound to a version tag starts
// the newest version of the called process with that tag.
func TestCallActivityVersionTagBinding(t *testing.T) {
	t.Parallel()
	h := setup(t)
	version := func(tag string, v int) []byte {
		return callBPMN(fmt.Sprintf(`<process id="callee" isExecutable="true">
    <extensionElements><zeebe:versionTag value="%s"/></extensionElements>
    <startEvent id="s"/><scriptTask id="mark" scriptFormat="javascript"><script>return {v: %d}</script></scriptTask><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="mark"/><sequenceFlow id="f2" sourceRef="mark" targetRef="e"/></process>`, tag, v))
	}
	h.deploySource(version("stable", 1))
	h.deploySource(version("stable", 2))
	h.deploySource(version("beta", 3))
	h.deploySource(callBPMN(`<process id="caller" isExecutable="true">
    <startEvent id="s"/>
    <callActivity id="call"><extensionElements><zeebe:calledElement processId="callee" bindingType="versionTag" versionTag="stable"/></extensionElements></callActivity>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="call"/><sequenceFlow id="f2" sourceRef="call" targetRef="e"/></process>`))
	inst := h.start("caller", nil)
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 2, snap.Variables["v"], "the newest version tagged stable, not the newer beta")
}

// TestCallRunsInTheCallersRound: a child that runs to its end at once
// commits with its caller, so the caller is complete in the store when
// Start returns (the child shares its caller's applier).
func TestCallRunsInTheCallersRound(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(callerDoubling, `<process id="doubler" isExecutable="true">
    <startEvent id="s"/><task id="double"><extensionElements><zeebe:ioMapping><zeebe:output source="=amount * 2" target="doubled"/></zeebe:ioMapping></extensionElements></task><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="double"/><sequenceFlow id="f2" sourceRef="double" targetRef="e"/></process>`))
	for range 20 { // with two partitions, ids landing by chance would fail about half of these
		inst, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "caller", Variables: map[string]any{"amount": 4}})
		require.NoError(t, err)
		stored, err := h.store.Instance(h.ctx, inst.ID)
		require.NoError(t, err)
		require.Equal(t, engine.StatusCompleted, stored.Status)
		require.EqualValues(t, 8, stored.Variables["doubled"])
	}
}
