package memstore

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.StepCache = (*Store)(nil)

// stepCache holds the step cache's entries by key; expired entries stay
// until they are replaced or deleted, unseen (the store is for tests and
// single runs, where they are few).
type stepCache struct {
	mu      sync.Mutex
	entries map[string]engine.CacheEntry
}

func (s *Store) CacheEntry(_ context.Context, key string, now time.Time) (engine.CacheEntry, error) {
	c := &s.steps
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || !now.Before(e.Expires) {
		return engine.CacheEntry{}, engine.ErrNotFound
	}
	e.Value = slices.Clone(e.Value)
	return e, nil
}

func (s *Store) PutCacheEntry(_ context.Context, e engine.CacheEntry) error {
	c := &s.steps
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]engine.CacheEntry{}
	}
	e.Value = slices.Clone(e.Value)
	c.entries[e.Key] = e
	return nil
}

func (s *Store) CacheEntries(_ context.Context, f engine.CacheFilter, now time.Time) ([]engine.CacheEntry, error) {
	c := &s.steps
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []engine.CacheEntry
	for _, e := range c.entries {
		if f.Matches(e) && now.Before(e.Expires) {
			e.Value = slices.Clone(e.Value)
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b engine.CacheEntry) int { return cmp.Compare(a.Key, b.Key) })
	return out, nil
}

func (s *Store) DeleteCacheEntry(_ context.Context, key string) error {
	c := &s.steps
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; !ok {
		return engine.ErrNotFound
	}
	delete(c.entries, key)
	return nil
}

func (s *Store) DeleteCacheEntries(_ context.Context, f engine.CacheFilter) (int, error) {
	c := &s.steps
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, e := range c.entries {
		if f.Matches(e) {
			delete(c.entries, k)
			n++
		}
	}
	return n, nil
}
