package mongostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

var tickerBPMN = []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="ticker" isExecutable="true">
    <startEvent id="tick"><timerEventDefinition><timeCycle>* * * * *</timeCycle></timerEventDefinition></startEvent>
    <endEvent id="e"/><sequenceFlow id="f" sourceRef="tick" targetRef="e"/></process></definitions>`)

// TestTimerStartTwoEnginesFireOnce: two engines on one embedded store both
// run the scheduler; the guarded claim lets each tick of a timer start
// event start one instance.
func TestTimerStartTwoEnginesFireOnce(t *testing.T) {
	ctx := t.Context()
	st, err := mongostore.New(ctx, embedded.NewTestDatabase(t), mongostore.Config{})
	require.NoError(t, err)
	epoch := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	clock := engine.NewVirtualClock(epoch)
	open := func() *engine.Engine {
		e, err := engine.New(engine.Config{Store: st, Clock: clock, Partitions: 2, NodeWorkers: 2})
		require.NoError(t, err)
		require.NoError(t, e.Run(ctx))
		t.Cleanup(e.Close)
		return e
	}
	a := open()
	_, _, err = a.Deploy(ctx, engine.DeployRequest{Source: tickerBPMN})
	require.NoError(t, err)
	b := open() // finds the schedule in the store
	for range 3 {
		clock.Advance(time.Minute)
		for _, e := range []*engine.Engine{a, b} {
			require.NoError(t, e.WaitIdle(ctx))
		}
	}
	sc, err := st.Schedule(ctx, "bpmn:ticker:tick")
	require.NoError(t, err)
	var ticks []time.Time
	for _, r := range sc.Runs {
		require.Equal(t, engine.RunStarted, r.Status, r.Error)
		ticks = append(ticks, r.Scheduled.UTC())
	}
	require.Equal(t, []time.Time{epoch.Add(time.Minute), epoch.Add(2 * time.Minute), epoch.Add(3 * time.Minute)}, ticks)
	page, _, err := st.Instances(ctx, engine.InstanceFilter{DefinitionKey: "ticker"})
	require.NoError(t, err)
	require.Len(t, page, 3, "one instance per tick")
}

// TestSchedulesTwoEnginesFireOnce: two engines on one store race to claim
// the ticks of many schedules due at once, whose claims each sends in
// batches (Store.UpdateSchedules): a batch that loses some of its claims
// still starts one instance per tick.
func TestSchedulesTwoEnginesFireOnce(t *testing.T) {
	ctx := t.Context()
	st, err := mongostore.New(ctx, embedded.NewTestDatabase(t), mongostore.Config{})
	require.NoError(t, err)
	epoch := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	clock := engine.NewVirtualClock(epoch)
	open := func() *engine.Engine {
		e, err := engine.New(engine.Config{Store: st, Clock: clock, Partitions: 2, NodeWorkers: 2})
		require.NoError(t, err)
		require.NoError(t, e.Run(ctx))
		t.Cleanup(e.Close)
		return e
	}
	a := open()
	_, _, err = a.Deploy(ctx, engine.DeployRequest{Source: []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="q" targetNamespace="t">
  <process id="quick" isExecutable="true"><startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/></process></definitions>`)})
	require.NoError(t, err)
	const schedules, ticks = 100, 3
	for range schedules {
		_, err := a.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Cron: "* * * * *", Enabled: true})
		require.NoError(t, err)
	}
	b := open() // finds the schedules in the store
	for range ticks {
		clock.Advance(time.Minute)
		for _, e := range []*engine.Engine{a, b} {
			require.NoError(t, e.WaitIdle(ctx))
		}
	}
	all, err := st.Schedules(ctx)
	require.NoError(t, err)
	require.Len(t, all, schedules)
	instances := map[string]bool{}
	for _, sc := range all {
		var fired []time.Time
		for _, r := range sc.Runs {
			require.Equal(t, engine.RunStarted, r.Status, r.Error)
			fired = append(fired, r.Scheduled.UTC())
			instances[r.InstanceID] = true
		}
		require.Equal(t, []time.Time{epoch.Add(time.Minute), epoch.Add(2 * time.Minute), epoch.Add(3 * time.Minute)}, fired, sc.ID)
	}
	require.Len(t, instances, schedules*ticks, "an instance id of its own for each tick")
	var started int
	for next := ""; ; {
		page, more, err := st.Instances(ctx, engine.InstanceFilter{DefinitionKey: "quick", Cursor: next, Limit: 1000})
		require.NoError(t, err)
		for _, snap := range page {
			require.True(t, instances[snap.ID], "instance %s belongs to no run", snap.ID)
			started++
		}
		if more == "" {
			break
		}
		next = more
	}
	require.Equal(t, schedules*ticks, started, "one instance per tick")
}
