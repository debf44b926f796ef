package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// waitsBPMN runs until its user task is done: a long-running instance.
var waitsBPMN = callBPMN(`<process id="waits" isExecutable="true">
    <startEvent id="s"/><userTask id="work"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`)

var quickBPMN = callBPMN(`<process id="quick" isExecutable="true">
    <startEvent id="s"/><endEvent id="e"/><sequenceFlow id="f1" sourceRef="s" targetRef="e"/></process>`)

// scheduled returns the instances the schedule started, by their scheduled time.
func (h *harness) scheduled(id string) map[time.Time]engine.ScheduleRun {
	h.t.Helper()
	v, err := h.e.ScheduleByID(h.ctx, id)
	require.NoError(h.t, err)
	out := map[time.Time]engine.ScheduleRun{}
	for _, r := range v.Runs {
		out[r.Scheduled.UTC()] = r
	}
	return out
}

func (h *harness) schedule(sc engine.Schedule) engine.ScheduleView {
	h.t.Helper()
	v, err := h.e.CreateSchedule(h.ctx, sc)
	require.NoError(h.t, err)
	return v
}

func TestScheduleCronAcrossDaylightSaving(t *testing.T) {
	t.Parallel()
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	cases := []struct {
		name  string
		from  time.Time // UTC
		cron  string
		want  []string // local wall times (Berlin), in order
		zones []string
	}{
		{ // 2026-03-29 02:00 CET jumps to 03:00 CEST: 02:30 does not exist and fires at 03:00
			name: "spring", from: time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC), cron: "30 2 * * *",
			want:  []string{"2026-03-28 02:30", "2026-03-29 03:00", "2026-03-30 02:30"},
			zones: []string{"CET", "CEST", "CEST"},
		},
		{ // 2026-10-25 03:00 CEST goes back to 02:00 CET: 02:30 occurs twice and fires once
			name: "autumn", from: time.Date(2026, 10, 23, 12, 0, 0, 0, time.UTC), cron: "30 2 * * *",
			want:  []string{"2026-10-24 02:30", "2026-10-25 02:30", "2026-10-26 02:30"},
			zones: []string{"CEST", "CEST", "CET"},
		},
		{ // every 30 minutes through the autumn night: the repeated hour does not run again
			name: "autumn half-hourly", from: time.Date(2026, 10, 24, 23, 10, 0, 0, time.UTC), cron: "0,30 1-3 * * *",
			want:  []string{"2026-10-25 01:30", "2026-10-25 02:00", "2026-10-25 02:30", "2026-10-25 03:00", "2026-10-25 03:30"},
			zones: []string{"CEST", "CEST", "CEST", "CET", "CET"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t, withConfig(func(c *engine.Config) { c.Clock = engine.NewVirtualClock(tc.from) }))
			h.deploySource(quickBPMN)
			sc := h.schedule(engine.Schedule{DefinitionKey: "quick", Cron: tc.cron, TimeZone: "Europe/Berlin", Enabled: true})
			var fired []string
			var zones []string
			for len(fired) < len(tc.want) {
				require.True(t, h.clock.AdvanceToNext())
				h.idle()
				runs := h.scheduled(sc.ID)
				if len(runs) == len(fired) {
					continue // another timer (none of the schedule's) fired
				}
				require.Len(t, runs, len(fired)+1, "one run per tick")
				now := h.clock.Now().In(berlin)
				r := runs[h.clock.Now().UTC()]
				require.Equal(t, engine.RunStarted, r.Status, "run at %s: %+v", now, runs)
				zone, _ := now.Zone()
				fired, zones = append(fired, now.Format("2006-01-02 15:04")), append(zones, zone)
			}
			require.Equal(t, tc.want, fired)
			require.Equal(t, tc.zones, zones)
		})
	}
}

func TestScheduleOverlapPolicies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy  engine.OverlapPolicy
		started int // of three ticks while the first run goes on
		skipped int
	}{
		{engine.OverlapSkip, 1, 2},
		{engine.OverlapQueue, 1, 0},
		{engine.OverlapAllow, 3, 0},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.deploySource(waitsBPMN)
			sc := h.schedule(engine.Schedule{DefinitionKey: "waits", Interval: "1m", Enabled: true, MaxConcurrentRuns: 1, Overlap: tc.policy})
			for range 3 { // three ticks; the first instance waits on its task all along
				h.advance(time.Minute)
			}
			count := func(status string) int {
				n := 0
				for _, r := range h.scheduled(sc.ID) {
					if r.Status == status {
						n++
					}
				}
				return n
			}
			require.Equal(t, tc.started, count(engine.RunStarted))
			require.Equal(t, tc.skipped, count(engine.RunSkipped))
			v, err := h.e.ScheduleByID(h.ctx, sc.ID)
			require.NoError(t, err)
			if tc.policy != engine.OverlapQueue {
				require.Empty(t, v.Pending)
				return
			}
			require.Len(t, v.Pending, 2, "two ticks queued behind the running instance")
			// The running instance ends: the queued ticks start one after another.
			for i := range 2 {
				var running string
				for _, r := range h.scheduled(sc.ID) {
					if r.Status == engine.RunStarted && !h.instance(r.InstanceID).Status.Done() {
						running = r.InstanceID
					}
				}
				require.NotEmpty(t, running, "round %d", i)
				_, err := h.e.Cancel(h.ctx, running)
				require.NoError(t, err)
				h.idle()
			}
			require.Equal(t, 3, count(engine.RunStarted))
			v, err = h.e.ScheduleByID(h.ctx, sc.ID)
			require.NoError(t, err)
			require.Empty(t, v.Pending)
		})
	}
}

// startOn starts an engine on st with clock, as a restarted server does.
func startOn(t *testing.T, st engine.Store, clock engine.Clock) *engine.Engine {
	t.Helper()
	e, err := engine.New(engine.Config{Store: st, Clock: clock, Partitions: 2, NodeWorkers: 2})
	require.NoError(t, err)
	require.NoError(t, e.Run(context.Background()))
	t.Cleanup(e.Close)
	return e
}

func TestScheduleCatchUpAfterOutage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy engine.CatchUpPolicy
		limit  int
		want   []int // minutes after the epoch of the ticks run after the outage; 11 is on time
	}{
		{engine.CatchUpNone, 0, []int{11}},
		{engine.CatchUpLast, 0, []int{10, 11}},
		{engine.CatchUpAll, 3, []int{8, 9, 10, 11}},
		{engine.CatchUpAll, 0, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, // the default limit, 10, holds them all
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			t.Parallel()
			st, clock := memstore.New(), engine.NewVirtualClock(epoch)
			e := startOn(t, st, clock)
			ctx := t.Context()
			_, _, err := e.Deploy(ctx, engine.DeployRequest{Source: quickBPMN})
			require.NoError(t, err)
			sc, err := e.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Cron: "* * * * *", Enabled: true, CatchUp: tc.policy, CatchUpLimit: tc.limit})
			require.NoError(t, err)
			e.Close()

			// Eleven ticks pass with no scheduler, then it comes back, late for
			// the first ten by more than engine.ScheduleMisfire.
			clock.AdvanceTo(epoch.Add(10*time.Minute + 90*time.Second))
			e = startOn(t, st, clock)
			require.NoError(t, e.WaitIdle(ctx))
			got, err := e.ScheduleByID(ctx, sc.ID)
			require.NoError(t, err)
			var ran []int
			skipped := 0
			for _, r := range got.Runs {
				switch r.Status {
				case engine.RunStarted:
					ran = append(ran, int(r.Scheduled.Sub(epoch)/time.Minute))
				case engine.RunSkipped:
					skipped++
				}
			}
			require.Equal(t, tc.want, ran)
			require.Equal(t, 11-len(tc.want), skipped, "every missed tick is recorded, run or skipped")
			require.Equal(t, epoch.Add(12*time.Minute), got.NextFire.UTC(), "on schedule again")
		})
	}
}

func TestScheduleTicksOnceAcrossRestart(t *testing.T) {
	t.Parallel()
	st, clock := memstore.New(), engine.NewVirtualClock(epoch)
	e := startOn(t, st, clock)
	ctx := t.Context()
	_, _, err := e.Deploy(ctx, engine.DeployRequest{Source: quickBPMN})
	require.NoError(t, err)
	created, err := e.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Interval: "PT1M", Enabled: true})
	require.NoError(t, err)
	clock.Advance(time.Minute) // tick 1
	require.NoError(t, e.WaitIdle(ctx))
	clock.Advance(time.Minute) // tick 2
	require.NoError(t, e.WaitIdle(ctx))

	// A crash after claiming tick 3 and starting its instance, before the
	// run was recorded; and one after claiming tick 4, before its start.
	t3, t4 := epoch.Add(3*time.Minute), epoch.Add(4*time.Minute)
	_, _, err = e.Start(ctx, engine.StartRequest{Definition: "quick", RequestID: engine.ScheduleRequestID(created.ID, t3)})
	require.NoError(t, err)
	e.Close()
	sc, err := st.Schedule(ctx, created.ID)
	require.NoError(t, err)
	claimed := sc
	claimed.Pending, claimed.NextFire, claimed.Rev = []time.Time{t3, t4}, epoch.Add(5*time.Minute), sc.Rev+1
	require.NoError(t, st.UpdateSchedule(ctx, claimed, sc.Rev))

	clock.AdvanceTo(t4.Add(10 * time.Second))
	e = startOn(t, st, clock)
	require.NoError(t, e.WaitIdle(ctx))
	clock.Advance(time.Minute) // tick 5
	require.NoError(t, e.WaitIdle(ctx))

	page, _, err := st.Instances(ctx, engine.InstanceFilter{DefinitionKey: "quick"})
	require.NoError(t, err)
	require.Len(t, page, 5, "ticks 1 to 5, one instance each")
	got, err := e.ScheduleByID(ctx, sc.ID)
	require.NoError(t, err)
	require.Empty(t, got.Pending)
	byTick := map[int]string{}
	for _, r := range got.Runs {
		require.Equal(t, engine.RunStarted, r.Status)
		byTick[int(r.Scheduled.Sub(epoch)/time.Minute)] = r.InstanceID
	}
	require.Len(t, byTick, 5)
	var ids, recorded []string
	for _, inst := range page {
		ids = append(ids, inst.ID)
	}
	for _, id := range byTick {
		recorded = append(recorded, id)
	}
	require.ElementsMatch(t, ids, recorded, "each instance is the run of one tick")
}

func TestScheduleEndDateStopsIt(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(quickBPMN)
	end := epoch.Add(3 * time.Minute)
	sc := h.schedule(engine.Schedule{DefinitionKey: "quick", Interval: "1m", End: &end, Enabled: true})
	require.Len(t, sc.Next, 3, "ticks at 1, 2 and 3 minutes, then the end")
	for range 10 {
		h.advance(time.Minute)
	}
	require.Len(t, h.scheduled(sc.ID), 3)
	v, err := h.e.ScheduleByID(h.ctx, sc.ID)
	require.NoError(t, err)
	require.True(t, v.NextFire.IsZero())
	require.Empty(t, v.Next)
}

func TestScheduleVariablesTemplateAndDisable(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(quickBPMN)
	sc := h.schedule(engine.Schedule{DefinitionKey: "quick", Interval: "PT1M", Enabled: true, Vars: map[string]any{
		"at": "${scheduledTime}", "label": "run of ${scheduleId}", "nested": []any{map[string]any{"n": 1.0}},
	}})
	h.advance(time.Minute)
	runs := h.scheduled(sc.ID)
	require.Len(t, runs, 1)
	inst := h.instance(runs[epoch.Add(time.Minute)].InstanceID)
	require.Equal(t, "2026-01-05T09:01:00Z", inst.Variables["at"])
	require.Equal(t, "run of "+sc.ID, inst.Variables["label"])
	require.Equal(t, []any{map[string]any{"n": 1.0}}, inst.Variables["nested"])

	sc.Enabled = false
	_, err := h.e.UpdateSchedule(h.ctx, sc.Schedule)
	require.ErrorIs(t, err, engine.ErrConflict, "a stale read is refused")
	v, err := h.e.ScheduleByID(h.ctx, sc.ID)
	require.NoError(t, err)
	v.Enabled = false
	_, err = h.e.UpdateSchedule(h.ctx, v.Schedule)
	require.NoError(t, err)
	for range 5 {
		h.advance(time.Minute)
	}
	require.Len(t, h.scheduled(sc.ID), 1, "a disabled schedule does not fire")
}

func TestScheduleRetriesAFailedStart(t *testing.T) {
	t.Parallel()
	h := setup(t)
	rec := h.deploySource(quickBPMN)
	sc := h.schedule(engine.Schedule{
		DefinitionKey: "quick", Interval: "1h", Enabled: true,
		OnFailure: &engine.ScheduleRetry{Attempts: 3, Delay: time.Minute, Factor: 2},
	})
	require.NoError(t, h.e.SetDefinitionEnabled(h.ctx, rec.ID, false, ""))
	h.advance(time.Hour) // fails; retries after 1 minute, then after 2
	h.advance(time.Minute)
	require.NoError(t, h.e.SetDefinitionEnabled(h.ctx, rec.ID, true, ""))
	_, err := h.e.Rollback(h.ctx, "quick", rec.Version, "") // enabling again does not make it the default
	require.NoError(t, err)
	h.advance(2 * time.Minute)
	r := h.scheduled(sc.ID)[epoch.Add(time.Hour)]
	require.Equal(t, engine.RunStarted, r.Status)
	require.Equal(t, epoch.Add(time.Hour+3*time.Minute), r.Fired.UTC(), "the third attempt")
}

func TestScheduleBadInputNamesTheField(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(quickBPMN)
	for field, sc := range map[string]engine.Schedule{
		"definitionKey":     {Cron: "* * * * *"},
		"cron":              {DefinitionKey: "quick", Cron: "61 * * * *"},
		"interval":          {DefinitionKey: "quick", Interval: "P1M"},
		"timeZone":          {DefinitionKey: "quick", Cron: "* * * * *", TimeZone: "Mars/Olympus"},
		"overlap":           {DefinitionKey: "quick", Cron: "* * * * *", Overlap: "drop"},
		"catchUp":           {DefinitionKey: "quick", Cron: "* * * * *", CatchUp: "some"},
		"variables":         {DefinitionKey: "quick", Cron: "* * * * *", Vars: map[string]any{"x": "${nope}"}},
		"maxConcurrentRuns": {DefinitionKey: "quick", Cron: "* * * * *", MaxConcurrentRuns: -1},
		"onFailure":         {DefinitionKey: "quick", Cron: "* * * * *", OnFailure: &engine.ScheduleRetry{}},
	} {
		_, err := h.e.CreateSchedule(h.ctx, sc)
		require.ErrorIs(t, err, engine.ErrInvalidInput, field)
		var fe *engine.FieldError
		require.ErrorAs(t, err, &fe, field)
		require.Equal(t, field, fe.Field, err.Error())
	}
	_, err := h.e.CreateSchedule(h.ctx, engine.Schedule{DefinitionKey: "absent", Cron: "* * * * *"})
	var fe *engine.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "definitionKey", fe.Field)
}

func TestTimerStartEventsAreListedAsSchedules(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="nightly" isExecutable="true">
    <startEvent id="at2"><timerEventDefinition wf:timeZone="Europe/Berlin"><timeCycle>0 2 * * *</timeCycle></timerEventDefinition></startEvent>
    <endEvent id="e"/><sequenceFlow id="f" sourceRef="at2" targetRef="e"/></process></definitions>`))
	all, err := h.e.Schedules(h.ctx)
	require.NoError(t, err)
	require.Len(t, all, 1)
	v := all[0]
	require.Equal(t, engine.ScheduleSourceBPMN, v.Source)
	require.Equal(t, "nightly", v.DefinitionKey)
	require.Equal(t, "0 2 * * *", v.Cron)
	require.Len(t, v.Next, 5)
	require.Equal(t, time.Date(2026, 1, 6, 1, 0, 0, 0, time.UTC), v.Next[0].UTC(), "02:00 in Berlin (CET)")
	one, err := h.e.ScheduleByID(h.ctx, v.ID)
	require.NoError(t, err)
	require.Equal(t, v.Next, one.Next)

	// Its timing is the BPMN's; whether it runs is the schedule's.
	recron := v.Schedule
	recron.Cron = "0 3 * * *"
	_, err = h.e.UpdateSchedule(h.ctx, recron)
	require.ErrorIs(t, err, engine.ErrReadOnly)
	require.ErrorContains(t, err, `timer start event "at2" of definition "nightly"`)
	require.ErrorIs(t, h.e.DeleteSchedule(h.ctx, v.ID), engine.ErrReadOnly)
	off := v.Schedule
	off.Enabled = false
	got, err := h.e.UpdateSchedule(h.ctx, off)
	require.NoError(t, err)
	require.False(t, got.Enabled)
	h.advance(24 * time.Hour)
	page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "nightly"})
	require.NoError(t, err)
	require.Empty(t, page, "disabled: no run")

	// A redeploy keeps it disabled.
	h.deploySource([]byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="nightly" isExecutable="true">
    <startEvent id="at2"><timerEventDefinition wf:timeZone="Europe/Berlin"><timeCycle>0 4 * * *</timeCycle></timerEventDefinition></startEvent>
    <endEvent id="e"/><sequenceFlow id="f" sourceRef="at2" targetRef="e"/></process></definitions>`))
	again, err := h.e.ScheduleByID(h.ctx, v.ID)
	require.NoError(t, err)
	require.Equal(t, "0 4 * * *", again.Cron)
	require.Equal(t, 2, again.Version)
	require.False(t, again.Enabled)
}

// TestGraphTimerTriggerIsASchedule: the graph format's Timer trigger (a
// cron schedule no edge enters) becomes a timer start event, listed as a
// read-only schedule, and each tick starts one instance.
func TestGraphTimerTriggerIsASchedule(t *testing.T) {
	t.Parallel()
	h := setup(t)
	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: []byte(`
graphId: sweep
nodes:
  - {nodeId: every10, type: Timer, configuration: {schedule: "*/10 * * * *", timeZone: Europe/Berlin}}
  - {nodeId: work, type: Task, configuration: {actionType: sweep.run}}
edges:
  - {sourceNodeId: every10, targetNodeId: work}
`)})
	require.NoError(t, err)
	all, err := h.e.Schedules(h.ctx)
	require.NoError(t, err)
	require.Len(t, all, 1)
	require.Equal(t, engine.ScheduleSourceBPMN, all[0].Source)
	require.Equal(t, "sweep", all[0].DefinitionKey)
	require.Equal(t, "*/10 * * * *", all[0].Cron)
	require.Equal(t, epoch.Add(10*time.Minute), all[0].Next[0].UTC())
	require.Equal(t, epoch.Add(50*time.Minute), all[0].Next[4].UTC())

	h.advance(10 * time.Minute)
	h.advance(10 * time.Minute)
	page, _, err := h.store.Instances(h.ctx, engine.InstanceFilter{DefinitionKey: "sweep"})
	require.NoError(t, err)
	require.Len(t, page, 2, "one instance per tick")
}

// TestScheduleClaimedTickStartsOnceAfterCrash: the claim of a schedule
// without a cap records its tick's run with the instance's id, and the
// start uses that id. After a crash between the claim and the start the
// tick's instance is started under that id; a tick started before the
// crash is not started again; the next claim takes both out of Pending.
func TestScheduleClaimedTickStartsOnceAfterCrash(t *testing.T) {
	t.Parallel()
	st, clock := memstore.New(), engine.NewVirtualClock(epoch)
	e := startOn(t, st, clock)
	ctx := t.Context()
	_, _, err := e.Deploy(ctx, engine.DeployRequest{Source: quickBPMN})
	require.NoError(t, err)
	created, err := e.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Interval: "PT1M", Enabled: true})
	require.NoError(t, err)
	clock.Advance(time.Minute) // tick 1: claimed and started
	require.NoError(t, e.WaitIdle(ctx))
	e.Close()

	// A crash right after claiming tick 2.
	t1, t2 := epoch.Add(time.Minute), epoch.Add(2*time.Minute)
	const chosen = "0193c7e0-0000-7000-8000-000000000002"
	sc, err := st.Schedule(ctx, created.ID)
	require.NoError(t, err)
	require.Equal(t, []time.Time{t1}, utc(sc.Pending), "tick 1 leaves Pending with the next claim")
	claimed := sc
	claimed.Pending = append(slices.Clone(sc.Pending), t2)
	claimed.Runs = append(slices.Clone(sc.Runs), engine.ScheduleRun{Scheduled: t2, Fired: t2, InstanceID: chosen, Status: engine.RunStarted})
	claimed.NextFire, claimed.Rev = epoch.Add(3*time.Minute), sc.Rev+1
	require.NoError(t, st.UpdateSchedule(ctx, claimed, sc.Rev))

	clock.AdvanceTo(t2.Add(10 * time.Second))
	e = startOn(t, st, clock)
	require.NoError(t, e.WaitIdle(ctx))
	_, err = st.Instance(ctx, chosen)
	require.NoError(t, err, "tick 2 started under the id its claim chose")
	require.Len(t, instancesOf(t, st, "quick"), 2, "tick 1 not started again")
	view, err := e.ScheduleByID(ctx, created.ID)
	require.NoError(t, err)
	require.Empty(t, view.Pending, "both have their instances")

	clock.Advance(time.Minute) // tick 3
	require.NoError(t, e.WaitIdle(ctx))
	sc, err = st.Schedule(ctx, created.ID)
	require.NoError(t, err)
	require.Equal(t, []time.Time{epoch.Add(3 * time.Minute)}, utc(sc.Pending))
	require.Len(t, instancesOf(t, st, "quick"), 3)
}

func utc(ts []time.Time) []time.Time {
	out := make([]time.Time, len(ts))
	for i, t := range ts {
		out[i] = t.UTC()
	}
	return out
}

// TestScheduleCreatedElsewhereFiresAfterResync: a schedule created through
// another engine on the store, which then stops, fires here once this
// engine has read the schedules again (every engine.ScheduleMisfire/2 for
// a replica).
func TestScheduleCreatedElsewhereFiresAfterResync(t *testing.T) {
	t.Parallel()
	st, clock := memstore.New(), engine.NewVirtualClock(epoch)
	ctx := t.Context()
	here := startOn(t, st, clock)
	_, _, err := here.Deploy(ctx, engine.DeployRequest{Source: quickBPMN})
	require.NoError(t, err)
	there := startOn(t, st, clock)
	sc, err := there.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Interval: "PT1M", Enabled: true})
	require.NoError(t, err)
	there.Close()

	require.NoError(t, engine.ResyncSchedules(ctx, here))
	clock.Advance(time.Minute)
	require.NoError(t, here.WaitIdle(ctx))
	got, err := here.ScheduleByID(ctx, sc.ID)
	require.NoError(t, err)
	require.Len(t, got.Runs, 1)
	require.Equal(t, engine.RunStarted, got.Runs[0].Status)
	require.Len(t, instancesOf(t, st, "quick"), 1)
}
