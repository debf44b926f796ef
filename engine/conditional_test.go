package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func TestConditionalCatchWaitsUntilTrue(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <intermediateCatchEvent id="ready"><conditionalEventDefinition><condition>stock &gt;= 10</condition></conditionalEventDefinition></intermediateCatchEvent>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="ready"/><sequenceFlow id="f2" sourceRef="ready" targetRef="e"/></process>`))
	already := h.start("p", map[string]any{"stock": 12})
	h.requireStatus(already.ID, engine.StatusCompleted) // true on entry: it fires at once

	inst := h.start("p", map[string]any{"stock": 1})
	h.requireStatus(inst.ID, engine.StatusWaiting)
	_, err := h.e.SetVariables(h.ctx, inst.ID, "ops", map[string]any{"stock": 5})
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusWaiting)
	_, err = h.e.SetVariables(h.ctx, inst.ID, "ops", map[string]any{"stock": 10})
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(inst.ID, engine.EventConditionMet, "ready"))
}

func TestConditionalBoundaryAndVariableFilter(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/><userTask id="work"/><endEvent id="e"/>
    <boundaryEvent id="hot" attachedToRef="work" cancelActivity="false">
      <conditionalEventDefinition camunda:variableName="temp"><condition>temp &gt; 30</condition></conditionalEventDefinition>
    </boundaryEvent>
    <scriptTask id="alarm" scriptFormat="javascript"><script>return {alarms: (typeof alarms === 'number' ? alarms : 0) + 1}</script></scriptTask><endEvent id="ae"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
    <sequenceFlow id="f3" sourceRef="hot" targetRef="alarm"/><sequenceFlow id="f4" sourceRef="alarm" targetRef="ae"/></process>`))
	inst := h.start("p", map[string]any{"temp": 20, "other": 0})
	set := func(vars map[string]any) {
		_, err := h.e.SetVariables(h.ctx, inst.ID, "ops", vars)
		require.NoError(t, err)
		h.idle()
	}
	set(map[string]any{"temp": 35}) // false → true: fires
	set(map[string]any{"temp": 40}) // still true: not again
	set(map[string]any{"temp": 25}) // false
	set(map[string]any{"other": 1}) // not a variable it listens to
	set(map[string]any{"temp": 31}) // true again: fires
	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.EqualValues(t, 2, snap.Variables["alarms"], "non-interrupting: once per time it becomes true")
	h.complete(inst.ID, "work", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

func TestConditionalEventSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(espProcess("", `<startEvent id="espStart"><conditionalEventDefinition><condition>cancelled == true</condition></conditionalEventDefinition></startEvent>`))
	inst := h.start("p", map[string]any{"cancelled": false})
	h.requireStatus(inst.ID, engine.StatusWaiting)
	_, err := h.e.SetVariables(h.ctx, inst.ID, "ops", map[string]any{"cancelled": true})
	require.NoError(t, err)
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, snap.Variables["hits"])
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "the interrupting event sub-process ended the task")
}

// TestStartByConditions: the latest version of a process whose conditional
// start event holds for the given variables starts with them; one whose
// condition does not, or is empty, does not.
func TestStartByConditions(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="big" isExecutable="true">
    <startEvent id="s"><conditionalEventDefinition><condition>amount &gt; 1000</condition></conditionalEventDefinition></startEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process>`))
	h.deploySource(callBPMN(`<process id="drawn" isExecutable="true">
    <startEvent id="s"><conditionalEventDefinition><condition/></conditionalEventDefinition></startEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process>`))
	n, err := h.e.StartByConditions(h.ctx, map[string]any{"amount": 10}, "")
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = h.e.StartByConditions(h.ctx, map[string]any{"amount": 5000}, "order-9")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	h.idle()
	started, _, err := h.e.Queries().Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "big"})
	require.NoError(t, err)
	require.Len(t, started, 1)
	require.Equal(t, "order-9", started[0].BusinessKey)
	require.Equal(t, engine.StatusCompleted, h.instance(started[0].ID).Status)
}
