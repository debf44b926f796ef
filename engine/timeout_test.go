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

// timeoutProcess waits at a user task (and a timer boundary that would fire
// after the timeout) in a process with the given wf: attributes.
func timeoutProcess(id, attrs string) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="%s" isExecutable="true" %s>
    <startEvent id="start"/>
    <userTask id="review"/>
    <boundaryEvent id="late" attachedToRef="review"><timerEventDefinition><timeDuration>PT2H</timeDuration></timerEventDefinition></boundaryEvent>
    <endEvent id="end"/>
    <endEvent id="lateEnd"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="end"/>
    <sequenceFlow id="f3" sourceRef="late" targetRef="lateEnd"/>
  </process>
</definitions>`, id, attrs)
}

func TestWorkflowTimeout(t *testing.T) {
	t.Parallel()
	t.Run("an instance running longer ends failed, its work cancelled", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.start(h.deploySource(timeoutProcess("slow", `wf:timeout="PT1H"`)).Key, nil)
		snap := h.requireStatus(inst.ID, engine.StatusWaiting)
		require.NotNil(t, snap.Deadline)
		require.Equal(t, epoch.Add(time.Hour), *snap.Deadline)

		h.advance(59 * time.Minute)
		h.requireStatus(inst.ID, engine.StatusWaiting)
		h.advance(time.Minute)

		snap = h.requireStatus(inst.ID, engine.StatusFailed)
		require.Equal(t, epoch.Add(time.Hour), *snap.Ended)
		failed := h.eventsOf(inst.ID, engine.EventInstanceFailed, "")
		require.Len(t, failed, 1)
		require.Equal(t, "timed out after 1h0m0s (wf:timeout)", failed[0].Detail["reason"])
		require.Equal(t, engine.TimeoutCode, failed[0].Detail["error"])
		require.Len(t, h.tasks(inst.ID, engine.TaskCancelled), 1, "the open task is cancelled")
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, "review"))
		require.Zero(t, h.clock.Pending(), "the boundary timer is disarmed")
	})
	t.Run("an instance that ends in time is not touched", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.start(h.deploySource(timeoutProcess("quick", `wf:timeout="PT1H"`)).Key, nil)
		h.advance(30 * time.Minute)
		h.complete(inst.ID, "review", nil)
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Zero(t, h.clock.Pending(), "its deadline's timer is stopped")
		h.advance(time.Hour)
		h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Zero(t, h.count(inst.ID, engine.EventInstanceFailed, ""))
	})
	t.Run("without a timeout nothing is armed", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.start(h.deploySource(timeoutProcess("open", ``)).Key, nil)
		require.Nil(t, h.instance(inst.ID).Deadline)
		h.advance(2 * time.Hour)
		h.requireStatus(inst.ID, engine.StatusCompleted) // the boundary timer's path
	})
}

// TestWorkflowTimeoutSurvivesRestart: the deadline is stored with the
// instance; a restarted engine arms it again. The first engine runs on a
// virtual clock in January; the restarted one on the wall clock, for which
// the deadline is long past: the instance fails as soon as it is recovered.
// A restart before the deadline keeps waiting for it.
func TestWorkflowTimeoutSurvivesRestart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := memstore.New()
	clock := engine.NewVirtualClock(epoch)
	e1, err := engine.New(engine.Config{Store: st, Clock: clock})
	require.NoError(t, err)
	require.NoError(t, e1.Run(ctx))
	rec, _, err := e1.Deploy(ctx, engine.DeployRequest{Source: cappedProcess("slow", `wf:timeout="PT1H"`)})
	require.NoError(t, err)
	inst, _, err := e1.Start(ctx, engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	require.NoError(t, e1.WaitIdle(ctx))
	e1.Close()

	// Restarted on a virtual clock before the deadline: still waiting; after it: failed.
	clock2 := engine.NewVirtualClock(epoch.Add(30 * time.Minute))
	e2, err := engine.New(engine.Config{Store: st, Clock: clock2})
	require.NoError(t, err)
	require.NoError(t, e2.Run(ctx))
	require.NoError(t, e2.WaitIdle(ctx))
	snap, err := st.Instance(ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusWaiting, snap.Status)
	clock2.Advance(30 * time.Minute)
	require.NoError(t, e2.WaitIdle(ctx))
	snap, err = st.Instance(ctx, inst.ID)
	require.NoError(t, err)
	require.Equal(t, engine.StatusFailed, snap.Status)
	e2.Close()

	// A second instance, recovered by a server on the wall clock long after its deadline.
	e3, err := engine.New(engine.Config{Store: st, Clock: engine.NewVirtualClock(epoch)})
	require.NoError(t, err)
	require.NoError(t, e3.Run(ctx))
	late, _, err := e3.Start(ctx, engine.StartRequest{Definition: rec.Key})
	require.NoError(t, err)
	require.NoError(t, e3.WaitIdle(ctx))
	e3.Close()
	e4 := engineOn(t, st)
	require.Eventually(t, func() bool {
		s, err := st.Instance(ctx, late.ID)
		return err == nil && s.Status == engine.StatusFailed
	}, 10*time.Second, 5*time.Millisecond, "the recovered instance never timed out")
	require.NoError(t, e4.WaitIdle(ctx))
	evs, err := st.Events(ctx, late.ID, 0, 0)
	require.NoError(t, err)
	require.Equal(t, engine.EventInstanceFailed, evs[len(evs)-1].Type)
	require.Contains(t, evs[len(evs)-1].Detail["reason"], "timed out after 1h0m0s")
}
