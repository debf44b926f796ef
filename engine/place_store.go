package engine

import (
	"context"
	"slices"
	"sync"
)

// PlaceStore keeps the places of the definitions whose running instances
// are capped (Limits.MaxConcurrent, limits.go): which instances hold one,
// per definition key, so that every replica of a cluster counts the same
// instances. Every store of this module implements it (memstore;
// mongostore: the places collection, one document per key).
type PlaceStore interface {
	// TakePlace gives instance id one of the max places of definition key
	// in one single-document conditional update: ok is false when max
	// other instances hold one. Taking a place id holds already succeeds
	// and changes nothing, so a repeated attempt never counts twice.
	TakePlace(ctx context.Context, key, id string, max int) (ok bool, err error)
	// ReleasePlace gives back the place of id; nothing when it holds none.
	ReleasePlace(ctx context.Context, key, id string) error
	// Places lists the instances that hold a place, by definition key.
	Places(ctx context.Context) (map[string][]string, error)
}

// LocalPlaces is a PlaceStore in memory, for the processes of one engine:
// memstore's, and the engine's own when its store keeps no places (a
// test's wrapper of a Store). Its zero value is ready.
type LocalPlaces struct {
	mu    sync.Mutex
	byKey map[string][]string
}

func (p *LocalPlaces) TakePlace(_ context.Context, key, id string, max int) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	held := p.byKey[key]
	switch {
	case slices.Contains(held, id):
		return true, nil
	case len(held) >= max:
		return false, nil
	}
	if p.byKey == nil {
		p.byKey = map[string][]string{}
	}
	p.byKey[key] = append(held, id)
	return true, nil
}

func (p *LocalPlaces) ReleasePlace(_ context.Context, key, id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byKey[key] = slices.DeleteFunc(p.byKey[key], func(o string) bool { return o == id })
	return nil
}

func (p *LocalPlaces) Places(context.Context) (map[string][]string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string][]string, len(p.byKey))
	for k, ids := range p.byKey {
		if len(ids) > 0 {
			out[k] = slices.Clone(ids)
		}
	}
	return out, nil
}
