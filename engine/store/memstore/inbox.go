package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine"
)

func (s *Store) OpenTasks(_ context.Context, fn func(engine.Task) error) error {
	s.mu.RLock()
	var open []engine.Task
	for _, t := range s.tasks {
		if t.Status == engine.TaskOpen {
			open = append(open, t)
		}
	}
	err := s.parked.all(func(_ *engine.Snapshot, tasks []engine.Task) {
		for _, t := range tasks {
			if t.Status == engine.TaskOpen {
				open = append(open, t)
			}
		}
	})
	s.mu.RUnlock()
	if err != nil {
		return err
	}
	for _, t := range open {
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) SaveFilter(_ context.Context, f engine.SavedFilter) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.filters == nil {
		s.filters = map[string]engine.SavedFilter{}
	}
	f.ID = engine.SavedFilterID(f.User, f.Name)
	s.filters[f.ID] = f
	return nil
}

func (s *Store) Filters(_ context.Context, user string) ([]engine.SavedFilter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []engine.SavedFilter{}
	for _, f := range s.filters {
		if f.User == user {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(a, b engine.SavedFilter) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s *Store) DeleteFilter(_ context.Context, user, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := engine.SavedFilterID(user, name)
	if _, ok := s.filters[id]; !ok {
		return fmt.Errorf("filter %q of %s: %w", name, user, engine.ErrNotFound)
	}
	delete(s.filters, id)
	return nil
}
