package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// The step cache lets a service task with a cache policy (Node.Cache) reuse
// the result a job of the same type stored under the same key instead of
// running its handler, or handing its job to an external worker. Before a
// job runs (or is handed out), the policy's condition is evaluated over the
// job's variables: when it holds, the key is rendered and looked up in
// Config.StepCache. A live entry completes the job with its value and the
// history records EventJobCached; else the job runs, and its result, only
// when it succeeds, is stored for the policy's TTL (EventJobCacheStored).
// A cache that fails lets the job run: it saves work, it must not stop it.
//
// The key is the scope's prefix, the job type and the rendered template:
// "global:<type>:<key>", "definition:<definition key>:<type>:<key>" or
// "instance:<instance id>:<type>:<key>".

// stepCacheStats counts the lookups of the step cache, for the metrics.
type stepCacheStats struct {
	hits, misses atomic.Uint64
}

// StepCacheStats returns how many lookups of the step cache found an entry
// and how many did not, since the engine started.
func (e *Engine) StepCacheStats() (hits, misses uint64) {
	return e.cacheStats.hits.Load(), e.cacheStats.misses.Load()
}

// cacheLookup is the step cache's answer for one job: hit holds the entry
// found; a miss keeps what storing the job's result needs.
type cacheLookup struct {
	key    string
	policy *model.CachePolicy
	defKey string
	typ    string
	hit    *CacheEntry
}

// cacheNote is what the step cache did for a job, for its history.
type cacheNote struct {
	hit     bool
	keyHash string
	age     time.Duration // of the entry a hit used
}

func (n *cacheNote) event() EventType {
	if n.hit {
		return EventJobCached
	}
	return EventJobCacheStored
}

func (n *cacheNote) detail() map[string]any {
	d := map[string]any{"key": n.keyHash}
	if n.hit {
		d["ageMs"] = n.age.Milliseconds()
	}
	return d
}

// stepCacheKey is the full key of rendered under the policy's scope.
func stepCacheKey(scope, defKey, inst, typ, rendered string) string {
	switch scope {
	case model.CacheGlobal:
		return "global:" + typ + ":" + rendered
	case model.CacheInstance:
		return "instance:" + inst + ":" + typ + ":" + rendered
	}
	return "definition:" + defKey + ":" + typ + ":" + rendered
}

// cacheKeyHash is how history names a key: the key may hold variables'
// values, which history does not repeat.
func cacheKeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// lookupCache consults the step cache for j: nil when the policy's
// condition does not hold or the cache cannot answer (the job runs
// uncached); an error when the condition or key does not evaluate, which
// fails the job for good, as a parameter that does not render does.
func (e *Engine) lookupCache(ctx context.Context, j *jobRun) (*cacheLookup, error) {
	p := j.node.Cache
	if p.Condition != "" {
		prog, err := compileExpr(p.Condition)
		if err != nil {
			return nil, Permanent(fmt.Errorf("cache condition of %q: %w", j.node.ID, err))
		}
		holds, err := e.eval.EvalBool(ctx, prog, j.vars)
		if err != nil {
			return nil, Permanent(fmt.Errorf("cache condition of %q: %w", j.node.ID, err))
		}
		if !holds {
			return nil, nil
		}
	}
	f := filler{e: e, ctx: ctx, node: j.node.ID, vars: j.vars}
	if j.readModel {
		f.scope = readModelScope(j.vars)
	}
	rendered, err := f.value("cache key", p.Key)
	if err != nil {
		return nil, Permanent(err)
	}
	typ := j.jobType()
	l := &cacheLookup{
		key: stepCacheKey(p.Scope, j.defKey, j.inst, typ, fmt.Sprint(rendered)), policy: p, defKey: j.defKey, typ: typ,
	}
	entry, err := e.cfg.StepCache.CacheEntry(ctx, l.key, e.clock.Now())
	switch {
	case err == nil:
		e.cacheStats.hits.Add(1)
		l.hit = &entry
	case errors.Is(err, ErrNotFound):
		e.cacheStats.misses.Add(1)
	default:
		e.cfg.Logger.Warn("step cache unavailable: the job runs", "element_id", j.node.ID, "instance_id", j.inst, "err", err)
		return nil, nil
	}
	return l, nil
}

// hitCommand is the command that completes a job with the entry l found;
// false when l found none, or one that does not decode (the job runs).
func (e *Engine) hitCommand(l *cacheLookup) (command, bool) {
	if l == nil || l.hit == nil {
		return command{}, false
	}
	var vars map[string]any
	if err := json.Unmarshal(l.hit.Value, &vars); err != nil {
		e.cfg.Logger.Warn("step cache: an entry that does not decode is not used", "key", cacheKeyHash(l.key), "err", err)
		return command{}, false
	}
	note := &cacheNote{hit: true, keyHash: cacheKeyHash(l.key), age: e.clock.Now().Sub(l.hit.Created)}
	return command{kind: cmdJobDone, vars: vars, cache: note}, true
}

// storeCache stores a job's successful result under l's key and returns
// the note for its history; nil when it could not be stored (the job's
// result goes on all the same).
func (e *Engine) storeCache(ctx context.Context, l *cacheLookup, vars map[string]any) *cacheNote {
	value, err := json.Marshal(vars)
	if err != nil {
		e.cfg.Logger.Warn("step cache: a result that is not JSON is not stored", "key", cacheKeyHash(l.key), "err", err)
		return nil
	}
	now := e.clock.Now()
	scope := l.policy.Scope
	if scope == "" {
		scope = model.CacheDefinition
	}
	err = e.cfg.StepCache.PutCacheEntry(ctx, CacheEntry{
		Key: l.key, Scope: scope, Definition: l.defKey, JobType: l.typ,
		Value: value, Created: now, Expires: now.Add(l.policy.TTL),
	})
	if err != nil {
		e.cfg.Logger.Warn("step cache unavailable: a result was not stored", "key", cacheKeyHash(l.key), "err", err)
		return nil
	}
	return &cacheNote{keyHash: cacheKeyHash(l.key)}
}

// CacheEntries lists the live entries of the step cache f selects.
func (e *Engine) CacheEntries(ctx context.Context, f CacheFilter) ([]CacheEntry, error) {
	return e.cfg.StepCache.CacheEntries(ctx, f, e.clock.Now())
}

// DeleteCacheEntry removes one entry of the step cache; ErrNotFound when
// there is none.
func (e *Engine) DeleteCacheEntry(ctx context.Context, key string) error {
	return e.cfg.StepCache.DeleteCacheEntry(ctx, key)
}

// InvalidateCache removes the entries of the step cache f selects and says
// how many; the next job of each key runs again.
func (e *Engine) InvalidateCache(ctx context.Context, f CacheFilter) (int, error) {
	return e.cfg.StepCache.DeleteCacheEntries(ctx, f)
}

// cachesJob reports whether j goes through the step cache: a service
// task's job (not a listener's) with a cache policy, when there is a cache.
func (e *Engine) cachesJob(j *jobRun) bool {
	return j.listener == nil && j.node.Cache != nil && e.cfg.StepCache != nil
}

// answerFromCache puts the jobs a worker fetched through the step cache:
// those it has a result for complete with it and are not handed out; for
// the others a worker's completion fills it.
func (e *Engine) answerFromCache(ctx context.Context, jobs []ExternalJob) []ExternalJob {
	kept := jobs[:0]
	for _, job := range jobs {
		r := e.external.run(job.Key)
		if r == nil || !e.cachesJob(r) {
			kept = append(kept, job)
			continue
		}
		l, err := e.lookupCache(ctx, r)
		c, hit := e.hitCommand(l)
		switch {
		case err != nil:
			c = command{kind: cmdJobFailed, err: err}
		case !hit:
			e.external.missed(job.Key, l)
			kept = append(kept, job)
			continue
		}
		c.inst, c.token, c.job = r.inst, r.token, r.job
		_ = e.submit(e.ctx, c)
	}
	return kept
}

// storeFetched stores the result a worker completed a job with, when the
// step cache missed it at the fetch.
func (e *Engine) storeFetched(ctx context.Context, key string, vars map[string]any) *cacheNote {
	if l := e.external.takeMiss(key); l != nil {
		return e.storeCache(ctx, l, vars)
	}
	return nil
}

// missed notes the step cache's miss of a fetched job.
func (x *externalJobs) missed(key string, l *cacheLookup) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if en := x.byKey[key]; en != nil {
		en.cache = l
	}
}

// takeMiss returns the step cache's miss of a fetched job, once.
func (x *externalJobs) takeMiss(key string) *cacheLookup {
	x.mu.Lock()
	defer x.mu.Unlock()
	en := x.byKey[key]
	if en == nil {
		return nil
	}
	l := en.cache
	en.cache = nil
	return l
}
