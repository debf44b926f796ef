package mongostore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	mevent "go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

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

// TestSchedulesSingleWriterRestart: a single-writer store started on
// schedules another one stored checks its claims against the revs it
// listed, without reading each schedule again, and still refuses a stale
// one.
func TestSchedulesSingleWriterRestart(t *testing.T) {
	ctx := t.Context()
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close(context.Background())) })
	var finds atomic.Int64
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetMonitor(&mevent.CommandMonitor{
		Started: func(_ context.Context, e *mevent.CommandStartedEvent) {
			if e.CommandName == "find" {
				finds.Add(1)
			}
		},
	}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, client.Disconnect(context.Background())) })
	open := func() *mongostore.Store {
		st, err := mongostore.New(ctx, client.Database("restart"), mongostore.Config{SingleWriter: true})
		require.NoError(t, err)
		return st
	}
	epoch := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	before := open()
	var claims []engine.ScheduleUpdate
	for i := range 40 {
		sc := engine.Schedule{ID: fmt.Sprintf("s%02d", i), DefinitionKey: "quick", Cron: "* * * * *", Enabled: true, NextFire: epoch, Rev: 1}
		require.NoError(t, before.CreateSchedule(ctx, sc))
		sc.NextFire, sc.Pending, sc.Rev = epoch.Add(time.Minute), []time.Time{epoch}, 2
		claims = append(claims, engine.ScheduleUpdate{Schedule: sc, PrevRev: 1})
	}
	claims[7].PrevRev = 4 // stale: s07 is at rev 1

	after := open() // the next process
	listed, err := after.Schedules(ctx)
	require.NoError(t, err)
	require.Len(t, listed, 40)
	finds.Store(0)
	for i, err := range after.UpdateSchedules(ctx, claims) {
		if i == 7 {
			require.ErrorIs(t, err, engine.ErrConflict)
			continue
		}
		require.NoError(t, err)
	}
	require.Zero(t, finds.Load(), "claims of listed schedules read none of them")
	require.NoError(t, after.UpdateSchedule(ctx, claims[7].Schedule, 1))
	listed, err = after.Schedules(ctx)
	require.NoError(t, err)
	for _, sc := range listed {
		require.Equal(t, int64(2), sc.Rev, sc.ID)
	}
}
