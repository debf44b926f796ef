package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.ChangeDigests = (*Store)(nil)

func (s *Store) PublishDigest(_ context.Context, d engine.ChangeDigest) error {
	d.Changes = slices.Clone(d.Changes)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.digests[d.Replica] = d
	return nil
}

func (s *Store) Digests(_ context.Context, except string) ([]engine.ChangeDigest, error) {
	s.mu.RLock()
	out := slices.Collect(maps.Values(s.digests))
	s.mu.RUnlock()
	out = slices.DeleteFunc(out, func(d engine.ChangeDigest) bool { return d.Replica == except })
	for i := range out {
		out[i].Changes = slices.Clone(out[i].Changes)
	}
	slices.SortFunc(out, func(a, b engine.ChangeDigest) int { return cmp.Compare(a.Replica, b.Replica) })
	return out, nil
}

func (s *Store) RemoveDigests(_ context.Context, before time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	maps.DeleteFunc(s.digests, func(_ string, d engine.ChangeDigest) bool { return d.Published.Before(before) })
	return nil
}
