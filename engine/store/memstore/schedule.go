package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine"
)

func (s *Store) CreateSchedule(_ context.Context, sc engine.Schedule) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.schedules[sc.ID]; ok {
		return fmt.Errorf("schedule %s: %w", sc.ID, engine.ErrDuplicate)
	}
	s.schedules[sc.ID] = cloneSchedule(sc)
	return nil
}

func (s *Store) UpdateSchedule(_ context.Context, sc engine.Schedule, prevRev int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateSchedule(sc, prevRev)
}

func (s *Store) UpdateSchedules(_ context.Context, updates []engine.ScheduleUpdate) []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := make([]error, len(updates))
	for i, u := range updates {
		errs[i] = s.updateSchedule(u.Schedule, u.PrevRev)
	}
	return errs
}

// updateSchedule replaces a schedule at rev prevRev; s.mu is held.
func (s *Store) updateSchedule(sc engine.Schedule, prevRev int64) error {
	old, ok := s.schedules[sc.ID]
	switch {
	case !ok:
		return fmt.Errorf("schedule %s: %w", sc.ID, engine.ErrNotFound)
	case old.Rev != prevRev:
		return fmt.Errorf("schedule %s is at rev %d, not %d: %w", sc.ID, old.Rev, prevRev, engine.ErrConflict)
	}
	s.schedules[sc.ID] = cloneSchedule(sc)
	return nil
}

func (s *Store) DeleteSchedule(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.schedules[id]; !ok {
		return fmt.Errorf("schedule %s: %w", id, engine.ErrNotFound)
	}
	delete(s.schedules, id)
	return nil
}

func (s *Store) Schedule(_ context.Context, id string) (engine.Schedule, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sc, ok := s.schedules[id]
	if !ok {
		return engine.Schedule{}, fmt.Errorf("schedule %s: %w", id, engine.ErrNotFound)
	}
	return cloneSchedule(sc), nil
}

func (s *Store) Schedules(_ context.Context) ([]engine.Schedule, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]engine.Schedule, 0, len(s.schedules))
	for _, sc := range s.schedules {
		out = append(out, cloneSchedule(sc))
	}
	slices.SortFunc(out, func(a, b engine.Schedule) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// cloneSchedule copies what a caller could change in place (the variables
// template is only read, never changed, by the engine).
func cloneSchedule(sc engine.Schedule) engine.Schedule {
	sc.Pending, sc.Runs, sc.Vars = slices.Clone(sc.Pending), slices.Clone(sc.Runs), maps.Clone(sc.Vars)
	return sc
}
