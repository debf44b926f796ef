package cache_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/engine/store/storetest"
)

func TestStoreConformance(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	for _, stale := range []bool{false, true} {
		name := map[bool]string{false: "FreshInstanceReads", true: "StaleInstanceReads"}[stale]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			storetest.Run(t, func(t *testing.T) engine.Store {
				c := open(t, srv, cache.Config{StaleInstanceReads: stale})
				return c.Store(memstore.New())
			})
			if stale {
				return // stale reads are the API's, which sees no epochs
			}
			// Leases and fenced commits pass through to the store, with
			// the instance cache in the way of the commits.
			storetest.RunLeases(t, func(t *testing.T) storetest.LeaseStore {
				return open(t, srv, cache.Config{}).Store(memstore.New())
			})
		})
	}
}

func def(key, checksum string) engine.DefinitionRecord {
	return engine.DefinitionRecord{
		Key: key, Name: key, Format: "bpmn", Checksum: checksum, Source: []byte("<definitions/>"),
		Enabled: true, Deployed: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), Processes: []string{key},
	}
}

func TestDefinitionsAreCached(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	inner := newCounting()
	s := open(t, srv, cache.Config{}).Store(inner)
	ctx := t.Context()
	v1, _, err := s.SaveDefinition(ctx, def("order", "a"))
	require.NoError(t, err)

	for range 3 {
		got, err := s.DefinitionByID(ctx, v1.ID)
		require.NoError(t, err)
		require.Equal(t, v1, got)
	}
	require.Equal(t, 1, inner.defByID, "later reads come from Redis")

	latest, err := s.Definition(ctx, "order", 0)
	require.NoError(t, err)
	require.Equal(t, 1, latest.Version)
	v2, created, err := s.SaveDefinition(ctx, def("order", "b"))
	require.NoError(t, err)
	require.True(t, created)
	latest, err = s.Definition(ctx, "order", 0)
	require.NoError(t, err)
	require.Equal(t, v2.ID, latest.ID, "a new version invalidates the latest")

	require.NoError(t, s.SetDefinitionEnabled(ctx, v1.ID, false))
	got, err := s.DefinitionByID(ctx, v1.ID)
	require.NoError(t, err)
	require.False(t, got.Enabled, "disabling invalidates")
	got, err = s.Definition(ctx, "order", 1)
	require.NoError(t, err)
	require.False(t, got.Enabled)
}

func TestInstanceReads(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	inner := newCounting()
	s := open(t, srv, cache.Config{InstanceTTL: time.Minute}).Store(inner)
	ctx := t.Context()
	vars := map[string]any{
		"int": int64(42), "one": 1.0, "float": 1.5, "str": "x", "bool": true, "null": nil,
		"list":   []any{int64(1), "two", 3.5, map[string]any{"k": "v"}, []any{}},
		"nested": map[string]any{"a": map[string]any{"b": []any{true, int64(-1)}}},
		"empty":  map[string]any{}, "time": time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), "bytes": []byte{0, 1},
	}
	sn := &engine.Snapshot{
		ID: "i-1", DefinitionID: "order:1", DefinitionKey: "order", Version: 1, ProcessID: "order",
		Status: engine.StatusRunning, NextID: 7, Variables: vars,
		Tokens: []engine.TokenState{{ID: 1, ElementID: "a", Local: map[string]any{"n": int64(2)}}},
		Tasks:  []engine.Task{{ID: "t-1", InstanceID: "i-1", TokenID: 1, Variables: vars, Status: engine.TaskOpen}},
	}
	_, err := s.CreateInstance(ctx, sn)
	require.NoError(t, err)
	want, err := inner.Store.Instance(ctx, "i-1")
	require.NoError(t, err)

	// The engine's reads (no AllowStale) always reach the store.
	_, err = s.Instance(ctx, "i-1")
	require.NoError(t, err)
	require.Equal(t, 1, inner.instance)

	stale := cache.AllowStale(ctx)
	for range 3 {
		got, err := s.Instance(stale, "i-1")
		require.NoError(t, err)
		require.Equal(t, want, got, "a cached snapshot is the inner store's, types and all")
	}
	require.Equal(t, 2, inner.instance, "later stale-allowed reads come from Redis")

	next := *want
	next.Seq, next.Status = 1, engine.StatusCompleted
	next.Pending = []engine.Event{{InstanceID: "i-1", Seq: 1, Type: engine.EventInstanceCompleted}}
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: &next, PrevSeq: 0}}}))
	got, err := s.Instance(stale, "i-1")
	require.NoError(t, err)
	require.Equal(t, engine.StatusCompleted, got.Status, "a commit invalidates")
	require.Equal(t, uint64(1), got.Seq)
}

// A commit that creates its instance writes nothing to Redis: no one can
// have read the instance before. A later commit marks it changed.
func TestCommitCreatingAnInstanceInvalidatesNothing(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	s := open(t, srv, cache.Config{Prefix: prefix}).Store(memstore.New())
	rdb := srv.Client()
	defer rdb.Close()
	ctx := t.Context()
	key := prefix + "inst:i-1"

	sn := &engine.Snapshot{ID: "i-1", DefinitionID: "order:1", DefinitionKey: "order", Version: 1, ProcessID: "order", Status: engine.StatusRunning}
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: sn, Create: true}}}))
	n, err := rdb.Exists(ctx, key).Result()
	require.NoError(t, err)
	require.Zero(t, n, "creating an instance writes no invalidation")

	next := *sn
	next.Seq, next.Status = 1, engine.StatusCompleted
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: &next, PrevSeq: 0}}}))
	n, err = rdb.Exists(ctx, key).Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "a later commit invalidates the instance")
}
