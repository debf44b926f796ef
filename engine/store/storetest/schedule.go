package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// testSchedules: a schedule round-trips, and an update guarded by a stale
// rev is refused, so two schedulers cannot both claim one tick.
func testSchedules(t *testing.T, s engine.Store) {
	c := ctx(t)
	end := base.Add(48 * time.Hour)
	sc := engine.Schedule{
		ID: "s1", DefinitionKey: "order", Cron: "0 9 * * *", TimeZone: "Europe/Berlin", End: &end,
		Vars: map[string]any{"at": "${scheduledTime}"}, MaxConcurrentRuns: 1, Overlap: engine.OverlapQueue,
		CatchUp: engine.CatchUpAll, CatchUpLimit: 3, OnFailure: &engine.ScheduleRetry{Attempts: 3, Delay: time.Second, Factor: 2},
		Enabled: true, Source: engine.ScheduleSourceAPI, NextFire: base, Rev: 1, Created: base, Updated: base,
	}
	require.NoError(t, s.CreateSchedule(c, sc))
	require.ErrorIs(t, s.CreateSchedule(c, sc), engine.ErrDuplicate)
	got, err := s.Schedule(c, "s1")
	require.NoError(t, err)
	require.Equal(t, sc.Cron, got.Cron)
	require.Equal(t, end, got.End.UTC())
	require.Equal(t, sc.OnFailure, got.OnFailure)
	require.Equal(t, "${scheduledTime}", got.Vars["at"])

	// Two claims of the same tick from rev 1: the first wins.
	claim := got
	claim.NextFire, claim.Pending, claim.Rev = base.Add(24*time.Hour), []time.Time{base}, 2
	require.NoError(t, s.UpdateSchedule(c, claim, 1))
	require.ErrorIs(t, s.UpdateSchedule(c, claim, 1), engine.ErrConflict)
	got, err = s.Schedule(c, "s1")
	require.NoError(t, err)
	require.Equal(t, int64(2), got.Rev)
	require.Len(t, got.Pending, 1)
	require.True(t, base.Equal(got.Pending[0]))

	require.NoError(t, s.CreateSchedule(c, engine.Schedule{ID: "s0", DefinitionKey: "other", Interval: "PT1M", Rev: 1}))
	all, err := s.Schedules(c)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "s0", all[0].ID)

	require.NoError(t, s.DeleteSchedule(c, "s1"))
	require.ErrorIs(t, s.DeleteSchedule(c, "s1"), engine.ErrNotFound)
	_, err = s.Schedule(c, "s1")
	require.ErrorIs(t, err, engine.ErrNotFound)
	require.ErrorIs(t, s.UpdateSchedule(c, claim, 2), engine.ErrNotFound)
}

// testScheduleBatch: UpdateSchedules writes each update on its own, over
// more than one store command, and tells which were refused: a stale rev,
// a schedule gone.
func testScheduleBatch(t *testing.T, s engine.Store) {
	c := ctx(t)
	const n = 70 // more than one update command of the Mongo store
	var updates []engine.ScheduleUpdate
	for i := range n {
		sc := engine.Schedule{ID: fmt.Sprintf("s%02d", i), DefinitionKey: "order", Interval: "PT1M", Enabled: true, NextFire: base, Rev: 1, Created: base, Updated: base}
		require.NoError(t, s.CreateSchedule(c, sc))
		sc.NextFire, sc.Pending, sc.Rev = base.Add(time.Minute), []time.Time{base}, 2
		updates = append(updates, engine.ScheduleUpdate{Schedule: sc, PrevRev: 1})
	}
	stale, gone := 5, 40
	require.NoError(t, s.UpdateSchedule(c, updates[stale].Schedule, 1)) // another scheduler's claim came first
	require.NoError(t, s.DeleteSchedule(c, updates[gone].Schedule.ID))

	errs := s.UpdateSchedules(c, updates)
	require.Len(t, errs, n)
	for i, err := range errs {
		switch i {
		case stale:
			require.ErrorIs(t, err, engine.ErrConflict)
		case gone:
			require.ErrorIs(t, err, engine.ErrNotFound)
		default:
			require.NoError(t, err, updates[i].Schedule.ID)
		}
	}
	all, err := s.Schedules(c)
	require.NoError(t, err)
	require.Len(t, all, n-1)
	for _, sc := range all {
		require.Equal(t, int64(2), sc.Rev, sc.ID)
		require.Len(t, sc.Pending, 1, sc.ID)
	}

	// The same updates again: every one is stale now.
	for i, err := range s.UpdateSchedules(c, updates) {
		if i == gone {
			require.ErrorIs(t, err, engine.ErrNotFound)
			continue
		}
		require.ErrorIs(t, err, engine.ErrConflict, updates[i].Schedule.ID)
	}
}
