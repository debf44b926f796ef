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

// timerStartBPMN is process "ticker" whose timer start event "tick" has
// the given timer definition body.
func timerStartBPMN(timer string) []byte {
	return fmt.Appendf(nil, `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="ticker" isExecutable="true">
    <startEvent id="tick">%s</startEvent>
    <endEvent id="e"/><sequenceFlow id="f" sourceRef="tick" targetRef="e"/></process></definitions>`, timer)
}

const tickerSchedule = "bpmn:ticker:tick"

// tickerRuns returns the minutes after the epoch of the ticker's runs
// started, and how many it recorded skipped.
func tickerRuns(t *testing.T, e *engine.Engine) (started []int, skipped int) {
	t.Helper()
	v, err := e.ScheduleByID(t.Context(), tickerSchedule)
	require.NoError(t, err)
	for _, r := range v.Runs {
		switch r.Status {
		case engine.RunStarted:
			started = append(started, int(r.Scheduled.Sub(epoch)/time.Minute))
		case engine.RunSkipped:
			skipped++
		default:
			t.Fatalf("run %v: %s %s", r.Scheduled, r.Status, r.Error)
		}
	}
	return started, skipped
}

func instancesOf(t *testing.T, st engine.Store, key string) []*engine.Snapshot {
	t.Helper()
	page, _, err := st.Instances(t.Context(), engine.InstanceFilter{DefinitionKey: key})
	require.NoError(t, err)
	return page
}

// TestTimerStartCycleFiresOncePerTick: a cron timer start event is a stored
// schedule on its wall clock (wf:timeZone), each tick starts one instance
// at the timer event, and the schedule records the runs.
func TestTimerStartCycleFiresOncePerTick(t *testing.T) {
	t.Parallel()
	h := setup(t)
	// 0 * * * * in Kolkata (UTC+5:30) is half past every hour in UTC.
	h.deploySource(timerStartBPMN(`<timerEventDefinition wf:timeZone="Asia/Kolkata"><timeCycle>0 * * * *</timeCycle></timerEventDefinition>`))
	sc, err := h.e.ScheduleByID(h.ctx, tickerSchedule)
	require.NoError(t, err)
	require.Equal(t, engine.ScheduleSourceBPMN, sc.Source)
	require.Equal(t, engine.CatchUpLast, sc.CatchUp)
	require.Equal(t, epoch.Add(30*time.Minute), sc.NextFire.UTC())

	h.advance(30 * time.Minute)
	h.advance(30 * time.Minute) // 10:00 UTC: no tick
	require.Len(t, instancesOf(t, h.store, "ticker"), 1)
	h.advance(30 * time.Minute)
	page := instancesOf(t, h.store, "ticker")
	require.Len(t, page, 2, "one instance per tick")
	for _, inst := range page {
		require.Equal(t, "tick", h.instance(inst.ID).StartElement)
	}
	started, skipped := tickerRuns(t, h.e)
	require.Equal(t, []int{30, 90}, started)
	require.Zero(t, skipped)
	got, err := h.e.ScheduleByID(h.ctx, tickerSchedule)
	require.NoError(t, err)
	require.Len(t, got.Next, 5)
	require.Equal(t, epoch.Add(150*time.Minute), got.Next[0].UTC())
}

// TestTimerStartRepetitionAndOneShots: R2/PT1H fires twice and stops; a
// timeDuration start fires once, its duration after the deploy.
func TestTimerStartRepetitionAndOneShots(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(timerStartBPMN(`<timerEventDefinition><timeCycle>R2/PT1H</timeCycle></timerEventDefinition>`))
	h.deploySource(callBPMN(`<process id="later" isExecutable="true">
    <startEvent id="once"><timerEventDefinition><timeDuration>PT90M</timeDuration></timerEventDefinition></startEvent>
    <endEvent id="e"/><sequenceFlow id="f" sourceRef="once" targetRef="e"/></process>`))
	for range 4 {
		h.advance(time.Hour)
	}
	started, _ := tickerRuns(t, h.e)
	require.Equal(t, []int{60, 120}, started)
	require.Len(t, instancesOf(t, h.store, "later"), 1)
	later, err := h.e.ScheduleByID(h.ctx, "bpmn:later:once")
	require.NoError(t, err)
	require.Len(t, later.Runs, 1)
	require.Equal(t, epoch.Add(90*time.Minute), later.Runs[0].Scheduled.UTC())
	require.True(t, later.NextFire.IsZero(), "done")
}

// TestTimerStartCatchesUpAfterRestart: ticks missed while no engine ran
// catch up by the timer start events' policy, CatchUpLast: one run for all
// of them, the others recorded skipped.
func TestTimerStartCatchesUpAfterRestart(t *testing.T) {
	t.Parallel()
	st, clock := memstore.New(), engine.NewVirtualClock(epoch)
	e := startOn(t, st, clock)
	_, _, err := e.Deploy(t.Context(), engine.DeployRequest{Source: timerStartBPMN(`<timerEventDefinition><timeCycle>* * * * *</timeCycle></timerEventDefinition>`)})
	require.NoError(t, err)
	clock.Advance(time.Minute)
	require.NoError(t, e.WaitIdle(t.Context()))
	e.Close()

	// Ticks 2 to 10 pass with no engine; it comes back at 10:30, late for
	// ticks 2 to 9 by more than engine.ScheduleMisfire.
	clock.AdvanceTo(epoch.Add(10*time.Minute + 30*time.Second))
	e = startOn(t, st, clock)
	require.NoError(t, e.WaitIdle(t.Context()))
	started, skipped := tickerRuns(t, e)
	require.Equal(t, []int{1, 9, 10}, started, "tick 1, the last missed one, and the one on time")
	require.Equal(t, 7, skipped)
	require.Len(t, instancesOf(t, st, "ticker"), 3)
}

// TestTimerStartTwoEnginesFireOnce: two engines on one store both run the
// scheduler; each tick of a timer start event starts one instance. (The
// same on the embedded store: mongostore's TestTimerStartTwoEnginesFireOnce.)
func TestTimerStartTwoEnginesFireOnce(t *testing.T) {
	t.Parallel()
	st, clock := memstore.New(), engine.NewVirtualClock(epoch)
	a := startOn(t, st, clock)
	_, _, err := a.Deploy(t.Context(), engine.DeployRequest{Source: timerStartBPMN(`<timerEventDefinition><timeCycle>* * * * *</timeCycle></timerEventDefinition>`)})
	require.NoError(t, err)
	b := startOn(t, st, clock) // finds the schedule in the store
	for range 5 {
		clock.Advance(time.Minute)
		for _, e := range []*engine.Engine{a, b} {
			require.NoError(t, e.WaitIdle(context.Background()))
		}
	}
	started, skipped := tickerRuns(t, b)
	require.Equal(t, []int{1, 2, 3, 4, 5}, started)
	require.Zero(t, skipped)
	require.Len(t, instancesOf(t, st, "ticker"), 5, "one instance per tick")
}
