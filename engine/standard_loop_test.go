package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// loopProcess is a process whose script task "count" loops with the given
// standardLoopCharacteristics attributes and loop condition.
func loopProcess(attrs, condition string) []byte {
	cond := ""
	if condition != "" {
		cond = `<loopCondition>` + condition + `</loopCondition>`
	}
	return callBPMN(`<process id="loop" isExecutable="true">
    <startEvent id="s"/>
    <scriptTask id="count" scriptFormat="javascript">
      <standardLoopCharacteristics ` + attrs + `>` + cond + `</standardLoopCharacteristics>
      <script>return {n: n + 1, seen: seen.concat([loopCounter])}</script>
    </scriptTask><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="count"/><sequenceFlow id="f2" sourceRef="count" targetRef="e"/></process>`)
}

func TestStandardLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, attrs, condition string
		runs                   int
	}{
		{"do-while", ``, `n &lt; 3`, 3},
		{"do-while runs once though false", ``, `false`, 1},
		{"test before", `testBefore="true"`, `n &lt; 3`, 3},
		{"test before, false at once", `testBefore="true"`, `false`, 0},
		{"maximum", `loopMaximum="2"`, `true`, 2},
		{"maximum without condition", `loopMaximum="4"`, ``, 4},
		{"drawn only", ``, ``, 1},
		{"loopCounter is the runs done", ``, `loopCounter &lt; 5`, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.deploySource(loopProcess(tc.attrs, tc.condition))
			inst := h.start("loop", map[string]any{"n": 0, "seen": []any{}})
			snap := h.requireStatus(inst.ID, engine.StatusCompleted)
			require.EqualValues(t, tc.runs, snap.Variables["n"])
			want := []any{}
			for i := 1; i <= tc.runs; i++ {
				want = append(want, int64(i))
			}
			require.Equal(t, want, normalizeList(snap.Variables["seen"]), "each run sees its loopCounter from 1")
			require.Equal(t, 1, h.count(inst.ID, engine.EventElementCompleted, "e"))
		})
	}
}

func TestStandardLoopUserTask(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="review" isExecutable="true">
    <startEvent id="s"/>
    <userTask id="check"><standardLoopCharacteristics><loopCondition>!approved</loopCondition></standardLoopCharacteristics></userTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="check"/><sequenceFlow id="f2" sourceRef="check" targetRef="e"/></process>`))
	inst := h.start("review", nil)
	for i := range 3 {
		h.requireStatus(inst.ID, engine.StatusWaiting)
		h.complete(inst.ID, "check", map[string]any{"approved": i == 2})
	}
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Len(t, h.tasks(inst.ID, engine.TaskCompleted), 3, "one task per run")
}

func TestStandardLoopConditionErrorIsAnIncident(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(loopProcess(``, `missing.field &gt; 1`))
	inst := h.start("loop", map[string]any{"n": 0, "seen": []any{}})
	h.requireStatus(inst.ID, engine.StatusIncident)
	incs := h.openIncidents(inst.ID)
	require.Len(t, incs, 1)
	require.Contains(t, incs[0].Message, `loop condition of "count"`)
}

func TestStandardLoopSubProcessAndCallActivity(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="loops" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="sub">
      <standardLoopCharacteristics><loopCondition>n &lt; 3</loopCondition></standardLoopCharacteristics>
      <startEvent id="ss"/><scriptTask id="inc" scriptFormat="javascript"><script>return {n: n + 1}</script></scriptTask><endEvent id="se"/>
      <sequenceFlow id="sf1" sourceRef="ss" targetRef="inc"/><sequenceFlow id="sf2" sourceRef="inc" targetRef="se"/>
    </subProcess>
    <callActivity id="call" calledElement="doubler">
      <standardLoopCharacteristics loopMaximum="2"/>
    </callActivity>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/><sequenceFlow id="f2" sourceRef="sub" targetRef="call"/><sequenceFlow id="f3" sourceRef="call" targetRef="e"/></process>`, doubler))
	inst := h.start("loops", map[string]any{"n": 0, "amount": 1})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 3, snap.Variables["n"], "the sub-process ran three times")
	require.Len(t, h.children(inst.ID), 2, "the call activity ran twice")
}

// TestMarkersOnlyDrawn: a multi-instance marker that says neither which
// items nor how many runs one instance, as a loop marker without a
// condition runs once.
func TestMarkersOnlyDrawn(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="drawn" isExecutable="true">
    <startEvent id="s"/>
    <scriptTask id="count" scriptFormat="javascript"><multiInstanceLoopCharacteristics/><script>return {n: n + 1}</script></scriptTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="count"/><sequenceFlow id="f2" sourceRef="count" targetRef="e"/></process>`))
	inst := h.start("drawn", map[string]any{"n": 0})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.EqualValues(t, 1, snap.Variables["n"])
}

// TestCamundaListMapScriptParameters: camunda:list, camunda:map and a
// JavaScript camunda:script in input and output parameters run.
func TestCamundaListMapScriptParameters(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="io" isExecutable="true">
    <startEvent id="s"/>
    <task id="a"><extensionElements><camunda:inputOutput>
      <camunda:inputParameter name="items"><camunda:list><camunda:value>x</camunda:value><camunda:value>${n + 1}</camunda:value></camunda:list></camunda:inputParameter>
      <camunda:inputParameter name="cfg"><camunda:map><camunda:entry key="mode">fast</camunda:entry></camunda:map></camunda:inputParameter>
      <camunda:outputParameter name="summary"><camunda:script scriptFormat="javascript">items.length + ":" + items[1] + ":" + cfg.mode</camunda:script></camunda:outputParameter>
    </camunda:inputOutput></extensionElements></task>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="a"/><sequenceFlow id="f2" sourceRef="a" targetRef="e"/></process>`))
	inst := h.start("io", map[string]any{"n": 1})
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, "2:2:fast", snap.Variables["summary"])
}

// TestMultiInstanceSubProcess: each instance of a multi-instance
// sub-process has its own item, loopCounter and inputs; a variable an
// input declares stays the instance's own, so parallel instances do not
// overwrite each other, and the output element collects each one's.
func TestMultiInstanceSubProcess(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(callBPMN(`<process id="mi" isExecutable="true">
    <startEvent id="s"/>
    <subProcess id="each">
      <multiInstanceLoopCharacteristics>
        <extensionElements><zeebe:loopCharacteristics inputCollection="=items" inputElement="item" outputCollection="doubles" outputElement="=double"/></extensionElements>
      </multiInstanceLoopCharacteristics>
      <extensionElements><zeebe:ioMapping><zeebe:input source="=null" target="double"/></zeebe:ioMapping></extensionElements>
      <startEvent id="is"/>
      <userTask id="review"/>
      <scriptTask id="calc" scriptFormat="javascript"><script>return {double: item * 2, seen: loopCounter}</script></scriptTask>
      <endEvent id="ie"/>
      <sequenceFlow id="if1" sourceRef="is" targetRef="review"/><sequenceFlow id="if2" sourceRef="review" targetRef="calc"/><sequenceFlow id="if3" sourceRef="calc" targetRef="ie"/>
    </subProcess><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="each"/><sequenceFlow id="f2" sourceRef="each" targetRef="e"/></process>`))
	inst := h.start("mi", map[string]any{"items": []any{1, 2, 3}})
	tasks := h.tasks(inst.ID, engine.TaskOpen)
	require.Len(t, tasks, 3, "three instances at once")
	for i := len(tasks) - 1; i >= 0; i-- { // finish them in reverse order
		_, err := h.e.CompleteTask(h.ctx, tasks[i].ID, "tester", nil)
		require.NoError(t, err)
		h.idle()
	}
	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Equal(t, []any{int64(2), int64(4), int64(6)}, normalizeList(snap.Variables["doubles"]), "in item order, each instance's own")
	require.NotContains(t, snap.Variables, "double", "the instances' own variable did not leak into the process")
	require.NotContains(t, snap.Variables, "item")
}
