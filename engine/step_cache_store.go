package engine

import (
	"context"
	"strings"
	"time"
)

// StepCache keeps the results of service tasks with a cache policy
// (model.CachePolicy, step_cache.go). Implementations: the stores
// (memstore, mongostore: a step_cache collection whose TTL index drops
// expired entries) and Redis (cache.StepCache). An expired entry is never
// returned, whether or not it has been dropped yet: expiry is judged by the
// engine's clock (now), not the store's.
type StepCache interface {
	// CacheEntry returns the live entry of key at now; ErrNotFound when
	// there is none or it expired.
	CacheEntry(ctx context.Context, key string, now time.Time) (CacheEntry, error)
	// PutCacheEntry stores an entry, replacing the one of the same key.
	PutCacheEntry(ctx context.Context, e CacheEntry) error
	// CacheEntries lists the live entries f selects at now, by key.
	CacheEntries(ctx context.Context, f CacheFilter, now time.Time) ([]CacheEntry, error)
	// DeleteCacheEntry removes the entry of key; ErrNotFound when there is none.
	DeleteCacheEntry(ctx context.Context, key string) error
	// DeleteCacheEntries removes the entries f selects and says how many.
	DeleteCacheEntries(ctx context.Context, f CacheFilter) (int, error)
}

// CacheEntry is the stored result of one service task's job.
type CacheEntry struct {
	Key        string    `json:"key" bson:"_id"` // scope prefix, job type and rendered key (stepCacheKey)
	Scope      string    `json:"scope" bson:"scope"`
	Definition string    `json:"definition" bson:"definition"` // the key of the definition that stored it
	JobType    string    `json:"jobType" bson:"job_type"`
	Value      []byte    `json:"-" bson:"value"` // the job's result variables, JSON
	Created    time.Time `json:"created" bson:"created_at"`
	Expires    time.Time `json:"expires" bson:"expires_at"`
}

// CacheFilter selects cache entries: those stored by Definition (when set)
// whose key starts with Prefix (when set).
type CacheFilter struct {
	Definition string
	Prefix     string
}

// Matches reports whether f selects e.
func (f CacheFilter) Matches(e CacheEntry) bool {
	return (f.Definition == "" || e.Definition == f.Definition) && strings.HasPrefix(e.Key, f.Prefix)
}
