package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// adHocProcess holds an ad-hoc sub-process of three activities: two user
// tasks and a script that counts its runs.
func adHocProcess(attrs, inner string) []byte {
	return callBPMN(`<process id="p" isExecutable="true">
    <startEvent id="s"/>
    <adHocSubProcess id="work" ` + attrs + `>
      ` + inner + `
      <userTask id="research"/>
      <userTask id="write"/>
      <scriptTask id="count" scriptFormat="javascript"><script>return {runs: (typeof runs === 'number' ? runs : 0) + 1}</script></scriptTask>
    </adHocSubProcess>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`)
}

func TestAdHocStartsWhatItsCollectionLists(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(adHocProcess(``, `<extensionElements><zeebe:adHoc activeElementsCollection="=todo"/></extensionElements>`))
	inst := h.start("p", map[string]any{"todo": []any{"research", "count"}})
	h.idle()
	require.Len(t, h.tasks(inst.ID, engine.TaskOpen), 1, "research started, write did not")
	require.EqualValues(t, 1, h.instance(inst.ID).Variables["runs"])
	h.complete(inst.ID, "research", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted) // no completion condition: done when what started has ended
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "write"))
}

func TestAdHocActivatedOnDemandUntilItsConditionHolds(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(adHocProcess(``, `<completionCondition>runs >= 2</completionCondition>`))
	inst := h.start("p", nil)
	h.idle()
	require.Equal(t, engine.StatusWaiting, h.instance(inst.ID).Status, "nothing listed: it waits for activations")

	_, err := h.e.ActivateAdHoc(h.ctx, inst.ID, "work", []string{"write", "count"}, map[string]any{"topic": "bpmn"})
	require.NoError(t, err)
	h.idle()
	snap := h.instance(inst.ID)
	require.Equal(t, "bpmn", snap.Variables["topic"])
	require.EqualValues(t, 1, snap.Variables["runs"])
	require.Equal(t, engine.StatusWaiting, snap.Status, "runs >= 2 does not hold yet")

	_, err = h.e.ActivateAdHoc(h.ctx, inst.ID, "work", []string{"count"}, nil)
	require.NoError(t, err)
	h.idle()
	h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Empty(t, h.tasks(inst.ID, engine.TaskOpen), "the condition held: the open task was cancelled (cancelRemainingInstances)")
	require.Equal(t, 1, h.count(inst.ID, engine.EventAdHocCompleting, "work"))

	_, err = h.e.ActivateAdHoc(h.ctx, inst.ID, "work", []string{"count"}, nil)
	require.Error(t, err, "a completed instance runs no ad-hoc sub-process")
}

func TestAdHocWaitsForRemainingWhenTold(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(adHocProcess(`cancelRemainingInstances="false"`, `<completionCondition>runs >= 1</completionCondition>`))
	inst := h.start("p", nil)
	_, err := h.e.ActivateAdHoc(h.ctx, inst.ID, "work", []string{"write", "count"}, nil)
	require.NoError(t, err)
	h.idle()
	require.Equal(t, engine.StatusWaiting, h.instance(inst.ID).Status, "the condition held, but write still runs")
	_, err = h.e.ActivateAdHoc(h.ctx, inst.ID, "work", []string{"research"}, nil)
	require.ErrorIs(t, err, engine.ErrConflict, "a completing ad-hoc sub-process starts nothing more")
	h.complete(inst.ID, "write", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

func TestAdHocSequentialRunsOneAtATime(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(adHocProcess(`ordering="Sequential"`, `<extensionElements><zeebe:adHoc activeElementsCollection="=[&quot;research&quot;, &quot;write&quot;]"/></extensionElements>`))
	inst := h.start("p", nil)
	h.idle()
	open := h.tasks(inst.ID, engine.TaskOpen)
	require.Len(t, open, 1)
	require.Equal(t, "research", open[0].ElementID)
	h.complete(inst.ID, "research", nil)
	h.idle()
	open = h.tasks(inst.ID, engine.TaskOpen)
	require.Len(t, open, 1)
	require.Equal(t, "write", open[0].ElementID, "write started once research was done")
	h.complete(inst.ID, "write", nil)
	h.requireStatus(inst.ID, engine.StatusCompleted)
}

func TestAdHocRefusesWhatItCannotStart(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(adHocProcess(``, ``))
	inst := h.start("p", nil)
	_, err := h.e.ActivateAdHoc(h.ctx, inst.ID, "work", []string{"nope"}, nil)
	require.ErrorIs(t, err, engine.ErrInvalidInput)
	require.ErrorContains(t, err, `ad-hoc sub-process "work" cannot start "nope": it starts research, write, count`)
	_, err = h.e.ActivateAdHoc(h.ctx, inst.ID, "s", []string{"count"}, nil)
	require.ErrorIs(t, err, engine.ErrNotFound)

	_, _, err = h.e.Deploy(h.ctx, engine.DeployRequest{Source: adHocProcess(``, `<startEvent id="bad"/>`)})
	require.ErrorContains(t, err, "an ad-hoc sub-process has no start events")
}
