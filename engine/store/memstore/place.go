package memstore

import (
	"context"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.PlaceStore = (*Store)(nil)

func (s *Store) TakePlace(ctx context.Context, key, id string, max int) (bool, error) {
	return s.places.TakePlace(ctx, key, id, max)
}

func (s *Store) ReleasePlace(ctx context.Context, key, id string) error {
	return s.places.ReleasePlace(ctx, key, id)
}

func (s *Store) Places(ctx context.Context) (map[string][]string, error) {
	return s.places.Places(ctx)
}
