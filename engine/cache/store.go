package cache

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/codec"
)

// Store is an engine.Store that reads definitions, and instances for reads
// that allow it, through Redis. Everything else goes to the inner store, the
// source of truth.
type Store struct {
	inner engine.Store
	c     *Cache
}

var _ engine.Store = (*Store)(nil)

// Store wraps inner. Invalidations go through Redis, so every replica must
// use the same Config.Prefix.
func (c *Cache) Store(inner engine.Store) *Store { return &Store{inner: inner, c: c} }

// Inner returns the wrapped store.
func (s *Store) Inner() engine.Store { return s.inner }

// Cache returns the cache the store reads through.
func (s *Store) Cache() *Cache { return s.c }

// Health reports the cache's health (see Cache.Health); the server's
// readiness check finds it on the engine's store.
func (s *Store) Health() (ok bool, detail string) { return s.c.Health() }

func (s *Store) def(id string) stale     { return stale{s.c.key("def", id), s.c.cfg.DefinitionTTL} }
func (s *Store) latest(key string) stale { return stale{s.c.key("latest", key), s.c.cfg.LatestTTL} }
func (s *Store) inst(id string) stale    { return stale{s.c.key("inst", id), s.c.cfg.InstanceTTL} }

type staleKey struct{}

// AllowStale marks a read that may be answered by an instance snapshot up to
// Config.InstanceTTL old: reads for people (the API, the UI), never for the
// engine, which must act on the latest commit.
func AllowStale(ctx context.Context) context.Context {
	return context.WithValue(ctx, staleKey{}, true)
}

func (s *Store) staleOK(ctx context.Context) bool {
	ok, _ := ctx.Value(staleKey{}).(bool)
	return ok || s.c.cfg.StaleInstanceReads
}

func (s *Store) SaveDefinition(ctx context.Context, rec engine.DefinitionRecord) (engine.DefinitionRecord, bool, error) {
	saved, created, err := s.inner.SaveDefinition(ctx, rec)
	if err == nil && created {
		// The id may be cached from a store that was wiped and began again.
		s.c.invalidate(ctx, s.latest(saved.Key), s.def(saved.ID))
	}
	return saved, created, err
}

func (s *Store) Definition(ctx context.Context, key string, version int) (engine.DefinitionRecord, error) {
	load := func() (engine.DefinitionRecord, error) { return s.inner.Definition(ctx, key, version) }
	k := s.def(engine.DefinitionID(key, version))
	if version <= 0 {
		k = s.latest(key)
	}
	return cached(ctx, s.c, k, load, codec.EncodeDefinition, codec.DecodeDefinition)
}

func (s *Store) DefinitionByID(ctx context.Context, id string) (engine.DefinitionRecord, error) {
	return cached(ctx, s.c, s.def(id),
		func() (engine.DefinitionRecord, error) { return s.inner.DefinitionByID(ctx, id) },
		codec.EncodeDefinition, codec.DecodeDefinition)
}

func (s *Store) SaveForm(ctx context.Context, rec engine.FormRecord) (engine.FormRecord, bool, error) {
	return s.inner.SaveForm(ctx, rec)
}

func (s *Store) FormVersions(ctx context.Context, formID string) ([]engine.FormRecord, error) {
	return s.inner.FormVersions(ctx, formID)
}

func (s *Store) Forms(ctx context.Context) ([]engine.FormRecord, error) { return s.inner.Forms(ctx) }

func (s *Store) OpenTasks(ctx context.Context, fn func(engine.Task) error) error {
	return s.inner.OpenTasks(ctx, fn)
}

func (s *Store) SaveFilter(ctx context.Context, f engine.SavedFilter) error {
	return s.inner.SaveFilter(ctx, f)
}

func (s *Store) Filters(ctx context.Context, user string) ([]engine.SavedFilter, error) {
	return s.inner.Filters(ctx, user)
}

func (s *Store) DeleteFilter(ctx context.Context, user, name string) error {
	return s.inner.DeleteFilter(ctx, user, name)
}

func (s *Store) Definitions(ctx context.Context) ([]engine.DefinitionRecord, error) {
	return s.inner.Definitions(ctx)
}

func (s *Store) SetDefinitionEnabled(ctx context.Context, id string, enabled bool) error {
	err := s.inner.SetDefinitionEnabled(ctx, id, enabled)
	keys := []stale{s.def(id)}
	if i := strings.LastIndexByte(id, ':'); i > 0 {
		keys = append(keys, s.latest(id[:i]))
	}
	s.c.invalidate(ctx, keys...) // also after an error: the write may have happened
	return err
}

func (s *Store) SetVersionStatus(ctx context.Context, id string, c engine.VersionChange) (engine.DefinitionRecord, error) {
	rec, err := s.inner.SetVersionStatus(ctx, id, c)
	keys := []stale{s.def(id)}
	if i := strings.LastIndexByte(id, ':'); i > 0 {
		keys = append(keys, s.latest(id[:i]))
	}
	s.c.invalidate(ctx, keys...) // also after an error: the write may have happened
	return rec, err
}

// The heads are read from the inner store: they change with every move of
// the default, which other replicas must see at once.

func (s *Store) SetDefaultVersion(ctx context.Context, key string, c engine.DefaultChange) error {
	return s.inner.SetDefaultVersion(ctx, key, c)
}

func (s *Store) DefinitionHead(ctx context.Context, key string) (engine.DefinitionHead, error) {
	return s.inner.DefinitionHead(ctx, key)
}

func (s *Store) DefinitionHeads(ctx context.Context) ([]engine.DefinitionHead, error) {
	return s.inner.DefinitionHeads(ctx)
}

// CreateInstance does not invalidate: instance ids are new UUIDs.
func (s *Store) CreateInstance(ctx context.Context, snap *engine.Snapshot) (*engine.Snapshot, error) {
	return s.inner.CreateInstance(ctx, snap)
}

// Commit invalidates every changed instance once the inner store has
// answered, also after an error: part of the batch may have been stored.
// A change that creates its instance has nothing to invalidate: no one can
// have read an instance before it is stored (as for CreateInstance). Most
// short instances run start to end in that one commit.
func (s *Store) Commit(ctx context.Context, b *engine.Batch) error {
	keys := make([]stale, 0, len(b.Changes)) // before: the inner store owns the snapshots after
	for _, ch := range b.Changes {
		if ch.Snapshot != nil && !ch.Create {
			keys = append(keys, s.inst(ch.Snapshot.ID))
		}
	}
	err := s.inner.Commit(ctx, b)
	s.c.invalidate(ctx, keys...)
	return err
}

// Instance reads through the cache only when ctx allows a stale answer (AllowStale).
func (s *Store) Instance(ctx context.Context, id string) (*engine.Snapshot, error) {
	if !s.staleOK(ctx) {
		return s.inner.Instance(ctx, id)
	}
	return cached(ctx, s.c, s.inst(id),
		func() (*engine.Snapshot, error) { return s.inner.Instance(ctx, id) },
		codec.EncodeSnapshot, codec.DecodeSnapshot)
}

func (s *Store) Instances(ctx context.Context, f engine.InstanceFilter) ([]*engine.Snapshot, string, error) {
	return s.inner.Instances(ctx, f)
}

func (s *Store) Unfinished(ctx context.Context, fn func(*engine.Snapshot) error) error {
	return s.inner.Unfinished(ctx, fn)
}

func (s *Store) Events(ctx context.Context, instanceID string, after uint64, limit int) ([]engine.Event, error) {
	return s.inner.Events(ctx, instanceID, after, limit)
}

func (s *Store) Tasks(ctx context.Context, f engine.TaskFilter) ([]engine.Task, string, error) {
	return s.inner.Tasks(ctx, f)
}

func (s *Store) Task(ctx context.Context, id string) (engine.Task, error) {
	return s.inner.Task(ctx, id)
}

func (s *Store) Incidents(ctx context.Context, f engine.IncidentFilter) ([]engine.Incident, error) {
	return s.inner.Incidents(ctx, f)
}

func (s *Store) DeadLetters(ctx context.Context, f engine.DeadLetterFilter) ([]engine.DeadLetter, error) {
	return s.inner.DeadLetters(ctx, f)
}

func (s *Store) CountDeadLetters(ctx context.Context, f engine.DeadLetterFilter) (int, error) {
	return s.inner.CountDeadLetters(ctx, f)
}

func (s *Store) DeadLetter(ctx context.Context, id string) (engine.DeadLetter, error) {
	return s.inner.DeadLetter(ctx, id)
}

func (s *Store) Incident(ctx context.Context, id string) (engine.Incident, error) {
	return s.inner.Incident(ctx, id)
}

func (s *Store) DeleteDeadLetter(ctx context.Context, id string) error {
	return s.inner.DeleteDeadLetter(ctx, id)
}

func (s *Store) DeleteDeadLetters(ctx context.Context, f engine.DeadLetterFilter) (int, error) {
	return s.inner.DeleteDeadLetters(ctx, f)
}

// Ping pings the inner store only: without Redis the store still answers.
func (s *Store) Ping(ctx context.Context) error { return s.inner.Ping(ctx) }

// cached reads key, or loads and fills it. A value that does not decode is
// treated as a miss and replaced.
func cached[T any](ctx context.Context, c *Cache, k stale,
	load func() (T, error), enc func(T) ([]byte, error), dec func([]byte) (T, error),
) (T, error) {
	l := c.get(ctx, k.key, k.ttl)
	if l.hit {
		if v, err := dec(l.data); err == nil {
			return v, nil
		}
		c.invalidate(ctx, k)
		l.canFill = false
	}
	v, err := load()
	if err != nil || !l.canFill {
		return v, err
	}
	data, err := enc(v)
	if err != nil {
		if !errors.Is(err, codec.ErrUnsupported) {
			c.cfg.Logger.Debug("not caching a value that does not encode", "key", k.key, "err", err)
		}
		return v, nil
	}
	c.fill(ctx, k.key, l, data, k.ttl)
	return v, nil
}

// The step cache goes to the wrapped store: wfpp serve keeps it in Redis
// through StepCache, not through this read cache.

func (s *Store) CacheEntry(ctx context.Context, key string, now time.Time) (engine.CacheEntry, error) {
	return s.stepCache().CacheEntry(ctx, key, now)
}

func (s *Store) PutCacheEntry(ctx context.Context, e engine.CacheEntry) error {
	return s.stepCache().PutCacheEntry(ctx, e)
}

func (s *Store) CacheEntries(ctx context.Context, f engine.CacheFilter, now time.Time) ([]engine.CacheEntry, error) {
	return s.stepCache().CacheEntries(ctx, f, now)
}

func (s *Store) DeleteCacheEntry(ctx context.Context, key string) error {
	return s.stepCache().DeleteCacheEntry(ctx, key)
}

func (s *Store) DeleteCacheEntries(ctx context.Context, f engine.CacheFilter) (int, error) {
	return s.stepCache().DeleteCacheEntries(ctx, f)
}

// stepCache is the wrapped store's step cache; every store has one.
func (s *Store) stepCache() engine.StepCache { return s.inner.(engine.StepCache) }

// Buffered messages, running-instance places and partition leases go to
// the wrapped store: they are shared state whose single-document updates
// carry correctness, never a cache's to answer (every store in this module
// keeps them).

func (s *Store) BufferMessage(ctx context.Context, m engine.BufferedMessage) error {
	return s.messages().BufferMessage(ctx, m)
}

func (s *Store) BufferedMessages(ctx context.Context, f engine.MessageFilter, now time.Time, limit int) ([]engine.BufferedMessage, error) {
	return s.messages().BufferedMessages(ctx, f, now, limit)
}

func (s *Store) CountBufferedMessages(ctx context.Context, now time.Time) (int, error) {
	return s.messages().CountBufferedMessages(ctx, now)
}

func (s *Store) TakeBufferedMessage(ctx context.Context, id string) error {
	return s.messages().TakeBufferedMessage(ctx, id)
}

func (s *Store) ExpireBufferedMessages(ctx context.Context, now time.Time) (int, error) {
	return s.messages().ExpireBufferedMessages(ctx, now)
}

func (s *Store) messages() engine.MessageStore { return s.inner.(engine.MessageStore) }

func (s *Store) TakePlace(ctx context.Context, key, id string, max int) (bool, error) {
	return s.places().TakePlace(ctx, key, id, max)
}

func (s *Store) ReleasePlace(ctx context.Context, key, id string) error {
	return s.places().ReleasePlace(ctx, key, id)
}

func (s *Store) Places(ctx context.Context) (map[string][]string, error) {
	return s.places().Places(ctx)
}

func (s *Store) places() engine.PlaceStore { return s.inner.(engine.PlaceStore) }

func (s *Store) Heartbeat(ctx context.Context, r engine.Replica) error {
	return s.leases().Heartbeat(ctx, r)
}

func (s *Store) Replicas(ctx context.Context) ([]engine.Replica, error) {
	return s.leases().Replicas(ctx)
}

func (s *Store) RemoveReplica(ctx context.Context, id string) error {
	return s.leases().RemoveReplica(ctx, id)
}

func (s *Store) AcquirePartition(ctx context.Context, p int, owner string, now time.Time, ttl time.Duration) (engine.PartitionLease, bool, error) {
	return s.leases().AcquirePartition(ctx, p, owner, now, ttl)
}

func (s *Store) RenewPartition(ctx context.Context, l engine.PartitionLease, now time.Time, ttl time.Duration) (engine.PartitionLease, error) {
	return s.leases().RenewPartition(ctx, l, now, ttl)
}

func (s *Store) ReleasePartition(ctx context.Context, l engine.PartitionLease) error {
	return s.leases().ReleasePartition(ctx, l)
}

func (s *Store) Partitions(ctx context.Context) ([]engine.PartitionLease, error) {
	return s.leases().Partitions(ctx)
}

func (s *Store) FencePartition(ctx context.Context, p int, epoch int64) error {
	return s.leases().FencePartition(ctx, p, epoch)
}

func (s *Store) UnfinishedIn(ctx context.Context, p int, fn func(*engine.Snapshot) error) error {
	return s.leases().UnfinishedIn(ctx, p, fn)
}

func (s *Store) UnfinishedCounts(ctx context.Context) (map[int]int, error) {
	return s.leases().UnfinishedCounts(ctx)
}

func (s *Store) leases() engine.LeaseStore { return s.inner.(engine.LeaseStore) }
