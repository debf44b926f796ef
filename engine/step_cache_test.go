package engine_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// quoter prices a SKU, counting its calls; it fails while failing is set.
type quoter struct {
	calls   atomic.Int32
	failing atomic.Bool
}

func (q *quoter) Handle(_ context.Context, job *engine.Job) (map[string]any, error) {
	n := q.calls.Add(1)
	if q.failing.Load() {
		return nil, errors.New("pricing service unavailable")
	}
	return map[string]any{"price": float64(10 * n), "quotedFor": job.Variables["sku"]}, nil
}

// cacheSetup is a harness with a quoter for pricing.quote and the BPMN
// testdata/<name>.bpmn deployed.
func cacheSetup(t *testing.T, name string) (*harness, *quoter, string) {
	h := setup(t)
	q := &quoter{}
	h.e.RegisterHandler("pricing.quote", q)
	return h, q, h.deploy(name)
}

func (h *harness) cacheKeys() []string {
	h.t.Helper()
	all, err := h.e.CacheEntries(h.ctx, engine.CacheFilter{})
	require.NoError(h.t, err)
	var keys []string
	for _, e := range all {
		keys = append(keys, e.Key)
	}
	return keys
}

// TestStepCacheHit: the second instance with the same key reuses the first
// one's result without calling the handler; history says so, with the key
// hashed and the entry's age.
func TestStepCacheHit(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache")
	vars := map[string]any{"sku": "A-1", "cacheable": true}
	first := h.requireStatus(h.start(key, vars).ID, engine.StatusCompleted)
	h.advance(time.Minute)
	second := h.requireStatus(h.start(key, vars).ID, engine.StatusCompleted)

	require.EqualValues(t, 1, q.calls.Load(), "the handler ran once for two instances")
	require.Equal(t, first.Variables["price"], second.Variables["price"])
	require.Equal(t, "A-1", second.Variables["quotedFor"])
	require.Equal(t, []string{"definition:step_cache:pricing.quote:sku-A-1"}, h.cacheKeys())

	stored := h.eventsOf(first.ID, engine.EventJobCacheStored, "quote")
	require.Len(t, stored, 1)
	require.Zero(t, h.count(first.ID, engine.EventJobCached, ""))
	cached := h.eventsOf(second.ID, engine.EventJobCached, "quote")
	require.Len(t, cached, 1)
	require.Equal(t, stored[0].Detail["key"], cached[0].Detail["key"], "both name the same key")
	require.NotContains(t, cached[0].Detail["key"], "A-1", "history names the key by its hash")
	require.EqualValues(t, time.Minute.Milliseconds(), cached[0].Detail["ageMs"])
	require.Zero(t, h.count(second.ID, engine.EventJobCacheStored, ""))

	hits, misses := h.e.StepCacheStats()
	require.Equal(t, [2]uint64{1, 1}, [2]uint64{hits, misses})
}

// TestStepCacheOtherKey: another rendered key misses and runs.
func TestStepCacheOtherKey(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache")
	a := h.requireStatus(h.start(key, map[string]any{"sku": "A-1", "cacheable": true}).ID, engine.StatusCompleted)
	b := h.requireStatus(h.start(key, map[string]any{"sku": "B-2", "cacheable": true}).ID, engine.StatusCompleted)
	require.EqualValues(t, 2, q.calls.Load())
	require.NotEqual(t, a.Variables["price"], b.Variables["price"])
	require.Equal(t, "B-2", b.Variables["quotedFor"])
	require.Len(t, h.cacheKeys(), 2)
}

// TestStepCacheExpiry: an entry serves until its TTL has passed on the
// engine's clock, then the job runs again and stores a fresh one.
func TestStepCacheExpiry(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache")
	vars := map[string]any{"sku": "A-1", "cacheable": true}
	h.requireStatus(h.start(key, vars).ID, engine.StatusCompleted)
	h.advance(10*time.Minute - time.Second)
	h.requireStatus(h.start(key, vars).ID, engine.StatusCompleted)
	require.EqualValues(t, 1, q.calls.Load(), "still fresh a second before the TTL")

	h.advance(time.Second)
	require.Empty(t, h.cacheKeys(), "expired entries are not listed")
	late := h.requireStatus(h.start(key, vars).ID, engine.StatusCompleted)
	require.EqualValues(t, 2, q.calls.Load(), "expired: the job runs again")
	require.Equal(t, 1, h.count(late.ID, engine.EventJobCacheStored, "quote"))
	h.requireStatus(h.start(key, vars).ID, engine.StatusCompleted)
	require.EqualValues(t, 2, q.calls.Load(), "the fresh entry serves")
}

// TestStepCacheConditionFalse: while the condition does not hold, the
// cache is neither read nor filled.
func TestStepCacheConditionFalse(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache")
	off := map[string]any{"sku": "A-1", "cacheable": false}
	inst := h.requireStatus(h.start(key, off).ID, engine.StatusCompleted)
	require.Empty(t, h.cacheKeys(), "not filled")
	require.Zero(t, h.count(inst.ID, engine.EventJobCacheStored, ""))

	h.requireStatus(h.start(key, map[string]any{"sku": "A-1", "cacheable": true}).ID, engine.StatusCompleted)
	require.EqualValues(t, 2, q.calls.Load())
	bypass := h.requireStatus(h.start(key, off).ID, engine.StatusCompleted)
	require.EqualValues(t, 3, q.calls.Load(), "not read: the entry is there, the job runs")
	require.Zero(t, h.count(bypass.ID, engine.EventJobCached, ""))
	hits, misses := h.e.StepCacheStats()
	require.Equal(t, [2]uint64{0, 1}, [2]uint64{hits, misses}, "only the consulted lookup counts")
}

// TestStepCacheInstanceScope: instance-scoped entries are not shared
// between instances.
func TestStepCacheInstanceScope(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache_instance")
	one := h.requireStatus(h.start(key, map[string]any{"sku": "A-1"}).ID, engine.StatusCompleted)
	two := h.requireStatus(h.start(key, map[string]any{"sku": "A-1"}).ID, engine.StatusCompleted)
	require.EqualValues(t, 2, q.calls.Load())
	require.ElementsMatch(t, []string{
		"instance:" + one.ID + ":pricing.quote:A-1", "instance:" + two.ID + ":pricing.quote:A-1",
	}, h.cacheKeys())
}

// TestStepCacheFailureNotCached: a failed job stores nothing; the next
// instance calls the handler again.
func TestStepCacheFailureNotCached(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache")
	q.failing.Store(true)
	vars := map[string]any{"sku": "A-1", "cacheable": true}
	failed := h.requireStatus(h.start(key, vars).ID, engine.StatusIncident)
	require.Empty(t, h.cacheKeys())
	require.Zero(t, h.count(failed.ID, engine.EventJobCacheStored, ""))

	q.failing.Store(false)
	h.requireStatus(h.start(key, vars).ID, engine.StatusCompleted)
	require.EqualValues(t, 2, q.calls.Load(), "the failure was not served from the cache")
	require.Len(t, h.cacheKeys(), 1, "the success was stored")
}

// TestStepCacheInvalidate: an invalidated entry is gone; the next job runs.
func TestStepCacheInvalidate(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache")
	for _, sku := range []string{"A-1", "B-2"} {
		h.requireStatus(h.start(key, map[string]any{"sku": sku, "cacheable": true}).ID, engine.StatusCompleted)
	}
	n, err := h.e.InvalidateCache(h.ctx, engine.CacheFilter{Definition: "step_cache", Prefix: "definition:step_cache:pricing.quote:sku-A"})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []string{"definition:step_cache:pricing.quote:sku-B-2"}, h.cacheKeys())
	require.NoError(t, h.e.DeleteCacheEntry(h.ctx, "definition:step_cache:pricing.quote:sku-B-2"))
	require.ErrorIs(t, h.e.DeleteCacheEntry(h.ctx, "definition:step_cache:pricing.quote:sku-B-2"), engine.ErrNotFound)
	h.requireStatus(h.start(key, map[string]any{"sku": "A-1", "cacheable": true}).ID, engine.StatusCompleted)
	require.EqualValues(t, 3, q.calls.Load())
}

// TestStepCacheExternalWorker: the first fetch hands the job out and the
// worker's result is stored; the next instance's job completes from the
// cache and is never handed out.
func TestStepCacheExternalWorker(t *testing.T) {
	t.Parallel()
	h := setup(t)
	key := h.deploy("step_cache_external")
	first := h.start(key, map[string]any{"sku": "A-1"})
	jobs, err := h.e.FetchAndLock(h.ctx, "pricing.quote", "w1", 5, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.NoError(t, h.e.CompleteJob(h.ctx, jobs[0].Key, "w1", map[string]any{"price": 99.0}))
	h.idle()
	h.requireStatus(first.ID, engine.StatusCompleted)
	require.Equal(t, 1, h.count(first.ID, engine.EventJobCacheStored, "quote"))

	second := h.start(key, map[string]any{"sku": "A-1"})
	jobs, err = h.e.FetchAndLock(h.ctx, "pricing.quote", "w1", 5, time.Minute)
	require.NoError(t, err)
	require.Empty(t, jobs, "answered from the cache, not handed out")
	h.idle()
	snap := h.requireStatus(second.ID, engine.StatusCompleted)
	require.Equal(t, 99.0, snap.Variables["price"])
	require.Equal(t, 1, h.count(second.ID, engine.EventJobCached, "quote"))
}

// TestStepCacheSurvivesRestart: entries live in the store, so an engine
// started on it after a restart reuses them.
func TestStepCacheSurvivesRestart(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	src, err := os.ReadFile(filepath.Join("testdata", "step_cache.bpmn"))
	require.NoError(t, err)
	q := &quoter{}
	run := func(e *engine.Engine) *engine.Snapshot {
		inst, _, err := e.Start(ctx, engine.StartRequest{Definition: "step_cache", Variables: map[string]any{"sku": "A-1", "cacheable": true}})
		require.NoError(t, err)
		var snap *engine.Snapshot
		require.Eventually(t, func() bool {
			snap, err = e.Instance(ctx, inst.ID)
			return err == nil && snap.Status == engine.StatusCompleted
		}, 10*time.Second, 5*time.Millisecond)
		return snap
	}
	first := engineOn(t, st)
	first.RegisterHandler("pricing.quote", q)
	_, _, err = first.Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	before := run(first)
	first.Close()

	second := engineOn(t, st)
	second.RegisterHandler("pricing.quote", q)
	after := run(second)
	require.EqualValues(t, 1, q.calls.Load(), "the restarted engine reused the stored result")
	require.Equal(t, before.Variables["price"], after.Variables["price"])
}

// TestStepCacheDeployErrors: a cache policy without a TTL, with an unknown
// scope or on a task without a job is refused at deploy, naming the task.
func TestStepCacheDeployErrors(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for attrs, want := range map[string]string{
		`wf:cacheKey="${sku}"`: "a TTL is required",
		`wf:cacheKey="${sku}" wf:cacheTtl="PT1M" wf:cacheScope="user"`: `wf:cacheScope "user" is not a scope`,
		`wf:cacheTtl="PT1M"`:                      "set wf:cacheKey",
		`wf:cacheKey="${sku}" wf:cacheTtl="soon"`: "wf:cacheTtl",
	} {
		src := strings.Replace(mustRead(t, "step_cache_instance.bpmn"),
			`wf:cacheKey="${sku}" wf:cacheTtl="PT10M" wf:cacheScope="instance"`, attrs, 1)
		_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: []byte(src)})
		require.ErrorContains(t, err, want, attrs)
		require.ErrorContains(t, err, "quote", "the problem names the task")
	}
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return string(b)
}

// TestStepCacheDAG: a JSON DAG node's policies.cache renders its key from
// the read model ({{ }}) and reuses the result of the same key.
func TestStepCacheDAG(t *testing.T) {
	t.Parallel()
	h := setup(t)
	q := &quoter{}
	h.e.RegisterHandler("pricing.quote", q)
	key := h.deploySource([]byte(`{"id": "quotes", "startNode": "quote", "nodes": [
		{"id": "quote", "actionType": "pricing.quote",
		 "policies": {"cache": {"key": "sku-{{ trigger.sku }}", "ttlMs": 60000, "scope": "global"}}}]}`)).Key
	for _, sku := range []string{"A-1", "A-1", "B-2"} {
		h.requireStatus(h.start(key, map[string]any{"sku": sku}).ID, engine.StatusCompleted)
	}
	require.EqualValues(t, 2, q.calls.Load())
	require.Equal(t, []string{"global:pricing.quote:sku-A-1", "global:pricing.quote:sku-B-2"}, h.cacheKeys())

	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: []byte(`{"id": "nottl", "startNode": "quote", "nodes": [
		{"id": "quote", "actionType": "pricing.quote", "policies": {"cache": {"key": "{{ trigger.sku }}"}}}]}`)})
	require.ErrorContains(t, err, "ttlMs", "a cache without a TTL is refused")
}

// TestStepCacheGraph: a graph Task's configuration.cache caches its
// action's result, while its condition holds.
func TestStepCacheGraph(t *testing.T) {
	t.Parallel()
	h := setup(t)
	q := &quoter{}
	h.e.RegisterHandler("pricing.quote", q)
	rec := h.deploySource([]byte(`
graphId: graphquotes
nodes:
  - nodeId: quote
    type: Task
    configuration: {actionType: pricing.quote, cache: {key: "${sku}", ttlMs: 60000, condition: "sku != 'fresh'"}}
`))
	for _, sku := range []string{"A-1", "A-1", "fresh", "fresh"} {
		h.requireStatus(h.start(rec.Key, map[string]any{"sku": sku}).ID, engine.StatusCompleted)
	}
	require.EqualValues(t, 3, q.calls.Load(), "A-1 once, fresh every time")
	require.Equal(t, []string{"definition:graphquotes:pricing.quote:A-1"}, h.cacheKeys())

	_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: []byte(`
graphId: badscope
nodes:
  - nodeId: quote
    type: Task
    configuration: {actionType: pricing.quote, cache: {key: "${sku}", ttlMs: 60000, scope: user}}
`)})
	require.ErrorContains(t, err, `scope "user"`)
}

// TestStepCacheConditionError: a condition that does not evaluate fails
// the job for good, naming the task, without calling the handler.
func TestStepCacheConditionError(t *testing.T) {
	t.Parallel()
	h, q, key := cacheSetup(t, "step_cache")
	inst := h.requireStatus(h.start(key, map[string]any{"sku": "A-1"}).ID, engine.StatusIncident) // no cacheable
	require.Zero(t, q.calls.Load())
	failed := h.eventsOf(inst.ID, engine.EventJobFailed, "quote")
	require.Len(t, failed, 1)
	require.Contains(t, failed[0].Detail["error"], `cache condition of "quote"`)
}
