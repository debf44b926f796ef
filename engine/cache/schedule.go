package cache

import (
	"context"

	"github.com/workflowpp/wfpp/engine"
)

// Schedules are claimed with guarded writes: they always go to the inner store.

func (s *Store) CreateSchedule(ctx context.Context, sc engine.Schedule) error {
	return s.inner.CreateSchedule(ctx, sc)
}

func (s *Store) UpdateSchedule(ctx context.Context, sc engine.Schedule, prevRev int64) error {
	return s.inner.UpdateSchedule(ctx, sc, prevRev)
}

func (s *Store) UpdateSchedules(ctx context.Context, updates []engine.ScheduleUpdate) []error {
	return s.inner.UpdateSchedules(ctx, updates)
}

func (s *Store) DeleteSchedule(ctx context.Context, id string) error {
	return s.inner.DeleteSchedule(ctx, id)
}

func (s *Store) Schedule(ctx context.Context, id string) (engine.Schedule, error) {
	return s.inner.Schedule(ctx, id)
}

func (s *Store) Schedules(ctx context.Context) ([]engine.Schedule, error) {
	return s.inner.Schedules(ctx)
}
