package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine"
)

func (s *Store) SaveForm(_ context.Context, rec engine.FormRecord) (engine.FormRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forms == nil {
		s.forms = map[string][]engine.FormRecord{}
	}
	versions := s.forms[rec.FormID]
	if n := len(versions); n > 0 && versions[n-1].Checksum == rec.Checksum {
		return versions[n-1], false, nil
	}
	rec.Version = len(versions) + 1
	rec.ID = engine.DefinitionID(rec.FormID, rec.Version)
	s.forms[rec.FormID] = append(versions, rec)
	return rec, true, nil
}

func (s *Store) FormVersions(_ context.Context, formID string) ([]engine.FormRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	versions := s.forms[formID]
	if len(versions) == 0 {
		return nil, fmt.Errorf("form %q: %w", formID, engine.ErrNotFound)
	}
	out := slices.Clone(versions)
	slices.Reverse(out)
	return out, nil
}

func (s *Store) Forms(context.Context) ([]engine.FormRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []engine.FormRecord{}
	for _, id := range slices.Sorted(mapsKeys(s.forms)) {
		v := s.forms[id]
		out = append(out, v[len(v)-1])
	}
	return out, nil
}
