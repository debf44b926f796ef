package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine/circuit"
)

// ExternalJob is a job an external worker fetched and locked.
type ExternalJob struct {
	Key         string            `json:"key"`
	InstanceID  string            `json:"instanceId"`
	ElementID   string            `json:"elementId"`
	Type        string            `json:"type"`
	Attempt     int               `json:"attempt"`
	Variables   map[string]any    `json:"variables"`
	Headers     map[string]string `json:"headers,omitempty"`
	Worker      string            `json:"worker"`
	LockedUntil time.Time         `json:"lockedUntil"`

	// Parameters are the task's parameters, rendered for this attempt.
	Parameters map[string]any `json:"parameters,omitempty"`
}

// externalJobs holds the jobs that wait for external workers, in arrival
// order per type. A lock expires by itself: the job is then fetched again.
type externalJobs struct {
	mu     sync.Mutex
	byKey  map[string]*externalEntry
	byType map[string][]*externalEntry
}

type externalEntry struct {
	run     *jobRun
	key     string
	worker  string
	until   time.Time
	circuit *circuit.Ticket // the breaker admitted the fetch (circuit.go)
	cache   *cacheLookup    // the step cache missed: the result goes there (step_cache.go)
}

func newExternalJobs() *externalJobs {
	return &externalJobs{byKey: map[string]*externalEntry{}, byType: map[string][]*externalEntry{}}
}

func externalKey(inst string, job uint64) string { return inst + ":" + strconv.FormatUint(job, 10) }

func (x *externalJobs) add(j *jobRun) {
	x.mu.Lock()
	defer x.mu.Unlock()
	k := externalKey(j.inst, j.job)
	if x.byKey[k] != nil {
		return
	}
	en := &externalEntry{run: j, key: k}
	x.byKey[k] = en
	typ := j.jobType()
	// Highest priority first, in arrival order among equals: fetches take from the front.
	list := x.byType[typ]
	i := len(list)
	for i > 0 && list[i-1].run.priority < j.priority {
		i--
	}
	x.byType[typ] = slices.Insert(list, i, en)
}

func (x *externalJobs) remove(k string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	en := x.byKey[k]
	if en == nil {
		return
	}
	delete(x.byKey, k)
	typ := en.run.jobType()
	x.byType[typ] = slices.DeleteFunc(x.byType[typ], func(o *externalEntry) bool { return o == en })
}

// dropWhere removes the jobs of the instances mine picks (those of a
// partition this replica lost): their workers' completions are refused.
func (x *externalJobs) dropWhere(mine func(inst string) bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for k, en := range x.byKey {
		if mine(en.run.inst) {
			delete(x.byKey, k)
		}
	}
	for typ, list := range x.byType {
		x.byType[typ] = slices.DeleteFunc(list, func(en *externalEntry) bool { return mine(en.run.inst) })
	}
}

// FetchAndLock gives a worker up to max jobs of a type that nobody holds,
// locked for lock; a lock that runs out frees the job for others. Each job
// comes with its task's parameters rendered; a job whose parameters do not
// render fails (as its handler would) instead of being handed out.
func (e *Engine) FetchAndLock(ctx context.Context, typ, worker string, max int, lock time.Duration) ([]ExternalJob, error) {
	if typ == "" || worker == "" || max < 1 || lock <= 0 {
		return nil, fmt.Errorf("fetch and lock needs a type, a worker name, max ≥ 1 and a positive lock duration: %w", ErrInvalidInput)
	}
	now := e.clock.Now()
	return e.withParameters(ctx, e.admitFetched(e.answerFromCache(ctx, e.external.fetch(typ, worker, max, now, lock))), worker, now), nil
}

// fetch locks up to max jobs of typ that nobody holds for worker, highest
// priority first.
func (x *externalJobs) fetch(typ, worker string, max int, now time.Time, lock time.Duration) []ExternalJob {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []ExternalJob
	for _, en := range x.byType[typ] {
		if len(out) == max {
			break
		}
		if en.worker != "" && now.Before(en.until) {
			continue
		}
		en.worker, en.until = worker, now.Add(lock)
		r := en.run
		headers := r.node.Job.Headers
		if r.listener != nil {
			headers = r.listener.headers()
		}
		out = append(out, ExternalJob{
			Key: en.key, InstanceID: r.inst, ElementID: r.node.ID, Type: typ,
			Attempt: r.attempt, Variables: r.vars, Headers: headers, Worker: worker, LockedUntil: en.until,
		})
	}
	return out
}

// withParameters renders the parameters of the jobs worker just locked,
// outside the lock of the job list. A job whose parameters do not render
// fails and is left out; it stays locked, so should the failure not get
// through, the lock runs out and the next fetch tries again.
func (e *Engine) withParameters(ctx context.Context, jobs []ExternalJob, worker string, now time.Time) []ExternalJob {
	kept := jobs[:0]
	for _, job := range jobs {
		r, err := e.external.lockedBy(job.Key, worker, now)
		switch {
		case err != nil: // completed or withdrawn since
			continue
		case r.listener != nil: // a listener's job has no parameters of its own
			kept = append(kept, job)
			continue
		}
		if job.Parameters, err = e.jobParameters(ctx, r); err != nil {
			if _, ferr := e.call(ctx, command{kind: cmdJobFailed, inst: r.inst, token: r.token, job: r.job, err: err}); ferr != nil {
				e.cfg.Logger.Error("failing an external job whose parameters do not render", "instance_id", r.inst, "element_id", r.node.ID, "err", ferr)
			}
			continue
		}
		kept = append(kept, job)
	}
	return kept
}

// lockedBy checks that worker holds the job's lock and returns its run.
func (x *externalJobs) lockedBy(key, worker string, now time.Time) (*jobRun, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	en := x.byKey[key]
	switch {
	case en == nil:
		return nil, fmt.Errorf("job %s is not open (completed, cancelled or unknown): %w", key, ErrNotFound)
	case en.worker == "" || now.After(en.until):
		return nil, fmt.Errorf("job %s is not locked: fetch and lock it first: %w", key, ErrInvalidState)
	case worker != "" && en.worker != worker:
		return nil, fmt.Errorf("job %s is locked by worker %q: %w", key, en.worker, ErrConflict)
	}
	return en.run, nil
}

// CompleteJob completes an external job with its result.
func (e *Engine) CompleteJob(ctx context.Context, key, worker string, vars map[string]any) error {
	if err := e.checkVariables(vars); err != nil {
		return err
	}
	if err := e.ownsJob(ctx, key); err != nil {
		return err
	}
	r, err := e.external.lockedBy(key, worker, e.clock.Now())
	if err != nil {
		return err
	}
	if r.listener != nil && r.listener.Detached {
		e.external.remove(key) // a cancelling listener: nothing waits for it
		return nil
	}
	e.recordFetched(key, nil)
	note := e.storeFetched(ctx, key, vars)
	_, err = e.call(ctx, command{kind: cmdJobDone, inst: r.inst, token: r.token, job: r.job, vars: vars, cache: note})
	return err
}

// FailJob fails an attempt of an external job: it is retried after retryAfter
// (or the task's backoff when zero) while retries last, then an incident.
// A non-empty errorCode throws that BPMN error instead.
func (e *Engine) FailJob(ctx context.Context, key, worker, message, errorCode string, retryAfter time.Duration) error {
	if err := e.ownsJob(ctx, key); err != nil {
		return err
	}
	r, err := e.external.lockedBy(key, worker, e.clock.Now())
	if err != nil {
		return err
	}
	if r.listener != nil && r.listener.Detached {
		e.external.remove(key) // a cancelling listener: nothing waits for it
		return nil
	}
	jobErr := errors.New(message)
	if errorCode != "" {
		jobErr = ThrowError(errorCode, message)
	}
	e.recordFetched(key, jobErr)
	_, err = e.call(ctx, command{kind: cmdJobFailed, inst: r.inst, token: r.token, job: r.job, err: jobErr, after: retryAfter})
	return err
}

// ExtendLock gives the worker holding a job more time.
func (e *Engine) ExtendLock(ctx context.Context, key, worker string, lock time.Duration) (time.Time, error) {
	if err := e.ownsJob(ctx, key); err != nil {
		return time.Time{}, err
	}
	now := e.clock.Now()
	if _, err := e.external.lockedBy(key, worker, now); err != nil {
		return time.Time{}, err
	}
	e.external.mu.Lock()
	defer e.external.mu.Unlock()
	en := e.external.byKey[key]
	if en == nil {
		return time.Time{}, fmt.Errorf("job %s: %w", key, ErrNotFound)
	}
	en.until = now.Add(lock)
	return en.until, nil
}
