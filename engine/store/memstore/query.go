package memstore

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/workflowpp/wfpp/engine"
)

func (s *Store) Tasks(_ context.Context, f engine.TaskFilter) ([]engine.Task, string, error) {
	s.mu.RLock()
	var all []engine.Task
	for _, t := range s.tasks {
		if matchTask(t, f) {
			all = append(all, t)
		}
	}
	err := s.parked.all(func(_ *engine.Snapshot, tasks []engine.Task) {
		for _, t := range tasks {
			if matchTask(t, f) {
				all = append(all, t)
			}
		}
	})
	s.mu.RUnlock()
	if err != nil {
		return nil, "", err
	}
	if f.ByDue {
		slices.SortFunc(all, compareTasksByDue)
	} else {
		slices.SortFunc(all, compareTasks)
	}
	page, next := paginate(all, f.Cursor, f.Limit, func(t engine.Task) string { return t.ID })
	return page, next, nil
}

// compareTasks orders by priority (high first), then due date (soonest
// first, none last), then creation.
func compareTasks(a, b engine.Task) int {
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	switch {
	case a.Due != nil && b.Due == nil:
		return -1
	case a.Due == nil && b.Due != nil:
		return 1
	case a.Due != nil && b.Due != nil:
		if c := a.Due.Compare(*b.Due); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.ID, b.ID)
}

// compareTasksByDue orders by due date (soonest first, none last), then
// priority (high first), then creation.
func compareTasksByDue(a, b engine.Task) int {
	switch {
	case a.Due != nil && b.Due == nil:
		return -1
	case a.Due == nil && b.Due != nil:
		return 1
	case a.Due != nil && b.Due != nil:
		if c := a.Due.Compare(*b.Due); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(b.Priority, a.Priority); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func matchTask(t engine.Task, f engine.TaskFilter) bool {
	switch {
	case f.InstanceID != "" && t.InstanceID != f.InstanceID,
		f.Assignee != "" && t.Assignee != f.Assignee,
		f.Status != "" && t.Status != f.Status:
		return false
	}
	if f.User == "" && len(f.Groups) == 0 {
		return true
	}
	if f.User != "" && t.Assignee == f.User {
		return true
	}
	if t.Assignee != "" {
		return false
	}
	if f.User != "" && slices.Contains(t.CandidateUsers, f.User) {
		return true
	}
	for _, g := range f.Groups {
		if slices.Contains(t.CandidateGroups, g) {
			return true
		}
	}
	return false
}

func (s *Store) Task(_ context.Context, id string) (engine.Task, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t, ok := s.tasks[id]; ok {
		return t, nil
	}
	if inst, ok := s.parked.instanceOfTask(id); ok {
		_, tasks, _, err := s.parked.get(inst)
		if err != nil {
			return engine.Task{}, err
		}
		for _, t := range tasks {
			if t.ID == id {
				return t, nil
			}
		}
	}
	return engine.Task{}, fmt.Errorf("task %s: %w", id, engine.ErrNotFound)
}

func (s *Store) Incidents(_ context.Context, f engine.IncidentFilter) ([]engine.Incident, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []engine.Incident
	for _, inc := range s.incidents {
		if (f.InstanceID == "" || inc.InstanceID == f.InstanceID) && (!f.Open || inc.Resolved == nil) {
			out = append(out, inc)
		}
	}
	slices.SortFunc(out, func(a, b engine.Incident) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

func (s *Store) DeadLetters(_ context.Context, f engine.DeadLetterFilter) ([]engine.DeadLetter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []engine.DeadLetter
	for _, d := range s.deadLetters {
		if f.Matches(d) {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b engine.DeadLetter) int { return cmp.Compare(b.ID, a.ID) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

func (s *Store) CountDeadLetters(_ context.Context, f engine.DeadLetterFilter) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, d := range s.deadLetters {
		if f.Matches(d) {
			n++
		}
	}
	return n, nil
}

func (s *Store) DeadLetter(_ context.Context, id string) (engine.DeadLetter, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.deadLetters[id]
	if !ok {
		return d, fmt.Errorf("dead letter %s: %w", id, engine.ErrNotFound)
	}
	return d, nil
}

func (s *Store) Incident(_ context.Context, id string) (engine.Incident, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	inc, ok := s.incidents[id]
	if !ok {
		return inc, fmt.Errorf("incident %s: %w", id, engine.ErrNotFound)
	}
	return inc, nil
}

func (s *Store) DeleteDeadLetter(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.deadLetters[id]; !ok {
		return fmt.Errorf("dead letter %s: %w", id, engine.ErrNotFound)
	}
	delete(s.deadLetters, id)
	return nil
}

func (s *Store) DeleteDeadLetters(_ context.Context, f engine.DeadLetterFilter) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, d := range s.deadLetters {
		if f.Matches(d) {
			delete(s.deadLetters, id)
			n++
		}
	}
	return n, nil
}

// paginate returns the items after cursor (an item id), at most limit, and
// the cursor of the next page ("" when this is the last).
func paginate[T any](items []T, cursor string, limit int, id func(T) string) ([]T, string) {
	if cursor != "" {
		for i, it := range items {
			if id(it) == cursor {
				items = items[i+1:]
				break
			}
		}
	}
	if limit <= 0 || len(items) <= limit {
		return items, ""
	}
	return items[:limit], id(items[limit-1])
}

func mapsKeys[K comparable, V any](m map[K]V) iter.Seq[K] { return maps.Keys(m) }
