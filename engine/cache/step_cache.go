package cache

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/workflowpp/wfpp/engine"
)

// StepCache keeps the step cache (engine.StepCache) in Redis, shared by
// every replica: one string per entry, its JSON, set with PX so Redis
// drops it once it expires. Reads still judge expiry by the engine's clock
// (the entry's Expires), which a test may move faster than Redis's.
type StepCache struct {
	cfg StepCacheConfig
}

var _ engine.StepCache = (*StepCache)(nil)

// StepCacheConfig configures a StepCache.
type StepCacheConfig struct {
	Client    redis.UniversalClient // required; wfpp serve shares the cache's
	Prefix    string                // of its keys; default StepCachePrefixDefault
	OpTimeout time.Duration         // of each Redis call; default StepCacheOpTimeoutDefault
}

// StepCache defaults.
const (
	StepCachePrefixDefault    = PrefixDefault + "step:"
	StepCacheOpTimeoutDefault = time.Second
)

// NewStepCache returns a StepCache on cfg.Client.
func NewStepCache(cfg StepCacheConfig) (*StepCache, error) {
	if cfg.Client == nil {
		return nil, errors.New("step cache: Client is required")
	}
	cfg.Prefix = cmp.Or(cfg.Prefix, StepCachePrefixDefault)
	cfg.OpTimeout = cmp.Or(cfg.OpTimeout, StepCacheOpTimeoutDefault)
	return &StepCache{cfg: cfg}, nil
}

// stepEntry is an entry as Redis keeps it.
type stepEntry struct {
	engine.CacheEntry
	Value json.RawMessage `json:"value"`
}

func (s *StepCache) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.cfg.OpTimeout)
}

func (s *StepCache) CacheEntry(ctx context.Context, key string, now time.Time) (engine.CacheEntry, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	data, err := s.cfg.Client.Get(ctx, s.cfg.Prefix+key).Bytes()
	if errors.Is(err, redis.Nil) {
		return engine.CacheEntry{}, fmt.Errorf("cache entry %s: %w", key, engine.ErrNotFound)
	}
	if err != nil {
		return engine.CacheEntry{}, unavailable(err, "reading cache entry "+key)
	}
	e, err := decodeStep(data)
	if err != nil {
		return engine.CacheEntry{}, err
	}
	if !now.Before(e.Expires) {
		return engine.CacheEntry{}, fmt.Errorf("cache entry %s: %w", key, engine.ErrNotFound)
	}
	return e, nil
}

func (s *StepCache) PutCacheEntry(ctx context.Context, e engine.CacheEntry) error {
	ttl := e.Expires.Sub(e.Created)
	if ttl <= 0 {
		return fmt.Errorf("cache entry %s expires before it is created", e.Key)
	}
	data, err := json.Marshal(stepEntry{CacheEntry: e, Value: e.Value})
	if err != nil {
		return err
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	if err := s.cfg.Client.Set(ctx, s.cfg.Prefix+e.Key, data, ttl).Err(); err != nil {
		return unavailable(err, "storing cache entry "+e.Key)
	}
	return nil
}

func (s *StepCache) CacheEntries(ctx context.Context, f engine.CacheFilter, now time.Time) ([]engine.CacheEntry, error) {
	var out []engine.CacheEntry
	err := s.scan(ctx, f, func(e engine.CacheEntry) {
		if now.Before(e.Expires) {
			out = append(out, e)
		}
	})
	slices.SortFunc(out, func(a, b engine.CacheEntry) int { return cmp.Compare(a.Key, b.Key) })
	return out, err
}

func (s *StepCache) DeleteCacheEntry(ctx context.Context, key string) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	n, err := s.cfg.Client.Del(ctx, s.cfg.Prefix+key).Result()
	if err != nil {
		return unavailable(err, "deleting cache entry "+key)
	}
	if n == 0 {
		return fmt.Errorf("cache entry %s: %w", key, engine.ErrNotFound)
	}
	return nil
}

func (s *StepCache) DeleteCacheEntries(ctx context.Context, f engine.CacheFilter) (int, error) {
	var keys []string
	if err := s.scan(ctx, f, func(e engine.CacheEntry) { keys = append(keys, s.cfg.Prefix+e.Key) }); err != nil {
		return 0, err
	}
	deleted := 0
	for batch := range slices.Chunk(keys, 500) {
		octx, cancel := s.op(ctx)
		n, err := s.cfg.Client.Del(octx, batch...).Result()
		cancel()
		if err != nil {
			return deleted, unavailable(err, "deleting cache entries")
		}
		deleted += int(n)
	}
	return deleted, nil
}

// scan calls fn for every entry f selects, expired or not, reading the
// keys under the prefix (and f.Prefix) a page at a time.
func (s *StepCache) scan(ctx context.Context, f engine.CacheFilter, fn func(engine.CacheEntry)) error {
	var cursor uint64
	for {
		octx, cancel := s.op(ctx)
		keys, next, err := s.cfg.Client.Scan(octx, cursor, s.cfg.Prefix+escapeGlob(f.Prefix)+"*", 500).Result()
		var values []any
		if err == nil && len(keys) > 0 {
			values, err = s.cfg.Client.MGet(octx, keys...).Result()
		}
		cancel()
		if err != nil {
			return unavailable(err, "listing cache entries")
		}
		for _, v := range values {
			data, ok := v.(string)
			if !ok { // expired between the scan and the read
				continue
			}
			e, err := decodeStep([]byte(data))
			if err != nil {
				return err
			}
			if f.Matches(e) {
				fn(e)
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

func decodeStep(data []byte) (engine.CacheEntry, error) {
	var se stepEntry
	if err := json.Unmarshal(data, &se); err != nil {
		return engine.CacheEntry{}, fmt.Errorf("a step cache entry in Redis is not one: %w", err)
	}
	e := se.CacheEntry
	e.Value = []byte(se.Value)
	return e, nil
}

// escapeGlob quotes the characters a SCAN pattern gives a meaning to.
func escapeGlob(s string) string {
	out := make([]byte, 0, len(s))
	for i := range len(s) {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func unavailable(err error, what string) error {
	return fmt.Errorf("%s: %w: %w", what, engine.ErrUnavailable, err)
}
