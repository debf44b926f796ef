package engine_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// claimAheadLead is how long before a tick these tests look: inside the
// scheduler's claim-ahead window (5 s), so the tick is claimed, not due.
const claimAheadLead = 3 * time.Second

// claimedAhead starts an engine on a new store and virtual clock, creates
// an enabled schedule of "quick" with sc's timing, and moves the clock to
// claimAheadLead before its first tick (epoch plus a minute), which is then
// claimed. It returns the schedule's id and the tick.
func claimedAhead(t *testing.T, timing engine.Schedule) (*memstore.Store, *engine.VirtualClock, *engine.Engine, string, time.Time) {
	t.Helper()
	st, clock := memstore.New(), engine.NewVirtualClock(epoch)
	e := startOn(t, st, clock)
	_, _, err := e.Deploy(t.Context(), engine.DeployRequest{Source: quickBPMN})
	require.NoError(t, err)
	timing.DefinitionKey, timing.Enabled = "quick", true
	sc, err := e.CreateSchedule(t.Context(), timing)
	require.NoError(t, err)
	tick := epoch.Add(time.Minute)
	clock.AdvanceTo(tick.Add(-claimAheadLead))
	require.NoError(t, e.WaitIdle(t.Context()))
	return st, clock, e, sc.ID, tick
}

// TestScheduleClaimsTicksAhead: a tick is claimed a few seconds before it
// is due, with the id its instance will have, and the instance starts only
// when it is due. Until then the schedule shows the tick as its next fire
// time, not as a run.
func TestScheduleClaimsTicksAhead(t *testing.T) {
	t.Parallel()
	st, clock, e, id, tick := claimedAhead(t, engine.Schedule{Cron: "* * * * *"})
	ctx := t.Context()
	stored, err := st.Schedule(ctx, id)
	require.NoError(t, err)
	require.Equal(t, []time.Time{tick}, utc(stored.Pending), "claimed ahead")
	require.Equal(t, tick.Add(time.Minute), stored.NextFire.UTC())
	require.Len(t, stored.Runs, 1)
	chosen := stored.Runs[0].InstanceID
	require.NotEmpty(t, chosen)
	require.Empty(t, instancesOf(t, st, "quick"), "nothing starts before its tick")
	view, err := e.ScheduleByID(ctx, id)
	require.NoError(t, err)
	require.Equal(t, tick, view.NextFire.UTC(), "the claimed tick is still the next fire time")
	require.Equal(t, tick, view.Next[0].UTC())
	require.Len(t, view.Next, 5)
	require.Empty(t, view.Runs)
	require.Empty(t, view.Pending)

	clock.AdvanceTo(tick)
	require.NoError(t, e.WaitIdle(ctx))
	_, err = st.Instance(ctx, chosen)
	require.NoError(t, err, "started under the id its claim chose")
	require.Len(t, instancesOf(t, st, "quick"), 1)
	view, err = e.ScheduleByID(ctx, id)
	require.NoError(t, err)
	require.Len(t, view.Runs, 1)
	require.Equal(t, tick, view.Runs[0].Fired.UTC())
	require.Equal(t, tick.Add(time.Minute), view.NextFire.UTC())
}

// TestScheduleChangedAfterClaimAheadDropsTheTick: disabling a schedule, or
// changing its timing, after its next tick was claimed ahead means that
// tick does not run.
func TestScheduleChangedAfterClaimAheadDropsTheTick(t *testing.T) {
	t.Parallel()
	for _, change := range []string{"disable", "timing"} {
		t.Run(change, func(t *testing.T) {
			t.Parallel()
			st, clock, e, id, tick := claimedAhead(t, engine.Schedule{Cron: "* * * * *"})
			ctx := t.Context()
			sc, err := st.Schedule(ctx, id)
			require.NoError(t, err)
			require.Len(t, sc.Pending, 1, "claimed ahead")

			if change == "disable" {
				sc.Enabled = false
			} else {
				sc.Cron = "*/10 * * * *"
			}
			_, err = e.UpdateSchedule(ctx, sc)
			require.NoError(t, err)
			clock.AdvanceTo(tick.Add(time.Second))
			require.NoError(t, e.WaitIdle(ctx))
			require.Empty(t, instancesOf(t, st, "quick"), "the claimed tick does not run")
			stored, err := st.Schedule(ctx, id)
			require.NoError(t, err)
			require.Empty(t, stored.Pending)
			require.Empty(t, stored.Runs)

			if change == "disable" { // enabled again, it runs from its next tick on, once
				stored.Enabled = true
				_, err = e.UpdateSchedule(ctx, stored)
				require.NoError(t, err)
			}
			for m := 2; m <= 10; m++ {
				clock.AdvanceTo(epoch.Add(time.Duration(m) * time.Minute))
				require.NoError(t, e.WaitIdle(ctx))
			}
			want := 1 // the "*/10" tick at 09:10
			if change == "disable" {
				want = 9 // 09:02 to 09:10
			}
			require.Len(t, instancesOf(t, st, "quick"), want)
		})
	}
}

// TestScheduleClaimedAheadStartsOnceAfterRestart: a process that claimed a
// tick ahead and stopped before it was due leaves it pending; the next
// process starts it when it is due, under the id the claim chose, once.
func TestScheduleClaimedAheadStartsOnceAfterRestart(t *testing.T) {
	t.Parallel()
	st, clock, e, id, tick := claimedAhead(t, engine.Schedule{Interval: "PT1M"})
	ctx := t.Context()
	e.Close()
	sc, err := st.Schedule(ctx, id)
	require.NoError(t, err)
	require.Len(t, sc.Runs, 1)
	chosen := sc.Runs[0].InstanceID

	e = startOn(t, st, clock)
	require.NoError(t, e.WaitIdle(ctx))
	require.Empty(t, instancesOf(t, st, "quick"), "not before its tick")
	clock.AdvanceTo(tick.Add(time.Second))
	require.NoError(t, e.WaitIdle(ctx))
	clock.AdvanceTo(tick.Add(time.Minute + time.Second))
	require.NoError(t, e.WaitIdle(ctx))
	page := instancesOf(t, st, "quick")
	require.Len(t, page, 2, "the claimed tick and the next, once each")
	_, err = st.Instance(ctx, chosen)
	require.NoError(t, err)
}

// TestScheduleClaimedAheadIsReadAgainInACluster: in a cluster another
// replica may disable a schedule after this one claimed its tick ahead, so
// a replica reads a tick's schedule again before starting it.
func TestScheduleClaimedAheadIsReadAgainInACluster(t *testing.T) {
	t.Parallel()
	// Started 10 s past the minute, the replica's own reading of every
	// schedule (each 30 s) does not come between the claim and the tick.
	st, clock := memstore.New(), engine.NewVirtualClock(epoch.Add(10*time.Second))
	r := startReplica(t, st, "a", 10*time.Second, withConfig(func(c *engine.Config) { c.Clock = clock }))
	ctx := t.Context()
	deployOn(t, r, quickBPMN)
	created, err := r.e.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Cron: "* * * * *", Enabled: true})
	require.NoError(t, err)
	kept, err := r.e.CreateSchedule(ctx, engine.Schedule{DefinitionKey: "quick", Cron: "* * * * *", Enabled: true})
	require.NoError(t, err)
	tick := epoch.Add(time.Minute)
	clock.AdvanceTo(tick.Add(-claimAheadLead))
	require.NoError(t, r.e.WaitIdle(ctx))
	sc, err := st.Schedule(ctx, created.ID)
	require.NoError(t, err)
	require.Len(t, sc.Pending, 1, "claimed ahead")

	// What UpdateSchedule on another replica writes: this one hears
	// nothing of it.
	disabled := sc
	disabled.Enabled, disabled.Pending, disabled.Runs, disabled.Rev = false, nil, nil, sc.Rev+1
	require.NoError(t, st.UpdateSchedule(ctx, disabled, sc.Rev))

	clock.AdvanceTo(tick.Add(time.Second))
	require.NoError(t, r.e.WaitIdle(ctx))
	view, err := r.e.ScheduleByID(ctx, kept.ID)
	require.NoError(t, err)
	require.Len(t, view.Runs, 1)
	page := instancesOf(t, st, "quick")
	require.Len(t, page, 1, "the disabled schedule's claimed tick does not run, the other's does")
	require.Equal(t, view.Runs[0].InstanceID, page[0].ID)
}
