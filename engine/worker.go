package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/queue"
	"github.com/workflowpp/wfpp/engine/script"
)

// jobRun is one attempt of a job on its way to a worker.
type jobRun struct {
	inst    string
	token   uint64
	job     uint64
	attempt int
	node    *model.Node
	defKey  string
	vars    map[string]any
	settled atomic.Bool // its outcome went back to the applier (a lease may run it twice)
	// A task listener's job (Camunda 8): its own type and headers; a
	// detached one (cancelling) has no token to report back to.
	listener *PendingTransition
	priority int // 0..100 (model.Job.Priority): higher runs and is fetched first
	// readModel: a JSON DAG node's job, whose {{ }} templates see the read
	// model (readmodel.go).
	readModel bool
}

// queuePriority is the ring of a node queue a job of priority p goes to.
func queuePriority(p int) queue.Priority {
	switch {
	case p > 66:
		return queue.PriorityHigh
	case p < 34:
		return queue.PriorityLow
	}
	return queue.PriorityNormal
}

// jobType is the type workers fetch the job by.
func (j *jobRun) jobType() string {
	if j.listener != nil {
		return j.listener.Type
	}
	return jobType(j.node)
}

// Defaults for the node queues.
const (
	// leaseMargin is how long past its timeout a job's lease lasts before the
	// job is leased to another worker (a worker stuck in a handler that
	// ignores its context).
	leaseMargin = 30 * time.Second
	// leaseAttempts is how many leases a job gets before it is failed as stuck.
	leaseAttempts = 3
)

// workerPools runs jobs: one leasing queue (a lock-free ring per priority,
// leases with a visibility timeout, a concurrency limit and an optional
// rate limit) and a pool of workers per executable node, created when the
// node first gets work.
type workerPools struct {
	e      *Engine
	mu     sync.Mutex
	pools  map[*model.Node]*nodePool
	closed bool // no pool starts after close
	wg     sync.WaitGroup
}

type nodePool struct {
	q *queue.NodeQueue[*jobRun]
}

func newWorkerPools(e *Engine) *workerPools {
	return &workerPools{e: e, pools: map[*model.Node]*nodePool{}}
}

// dispatch queues a job without ever blocking the applier: when the node's
// ring is full, a goroutine waits for room (backpressure without loss).
func (w *workerPools) dispatch(j *jobRun) {
	p := w.pool(j.node)
	if p == nil {
		w.e.settleQuietly(j) // the engine is stopping; the job runs again after a restart
		return
	}
	item := queue.Item[*jobRun]{ID: j.job, Payload: j, Priority: queuePriority(j.priority)}
	ok, err := p.q.TryEnqueue(item)
	switch {
	case err != nil:
		w.e.settle(j, command{kind: cmdJobFailed, err: Permanent(err)})
	case !ok:
		go func() {
			if err := p.q.Enqueue(w.e.ctx, item); err != nil {
				w.e.settleQuietly(j) // the engine is stopping; the job runs again after a restart
			}
		}()
	}
}

func (w *workerPools) pool(n *model.Node) *nodePool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := w.pools[n]; p != nil || w.closed {
		return p
	}
	e := w.e
	workers := cmp.Or(n.Job.Concurrency, e.cfg.NodeWorkers)
	timeout := cmp.Or(n.Job.Timeout, e.cfg.JobTimeout)
	q, err := queue.NewNodeQueue(queue.Config[*jobRun]{
		Clock:             e.clock,
		Capacity:          e.cfg.NodeQueue,
		VisibilityTimeout: timeout + leaseMargin,
		MaxAttempts:       leaseAttempts,
		Concurrency:       workers,
		RateLimit:         n.Job.RateLimit,
		Burst:             max(1, int(n.Job.RateLimit)),
		DeadLetter: func(item queue.Item[*jobRun], reason error) {
			e.settle(item.Payload, command{kind: cmdJobFailed, err: Permanent(fmt.Errorf("the job's worker did not finish: %w", reason))})
		},
	})
	if err != nil {
		panic(fmt.Sprintf("node queue config for %q: %v", n.ID, err)) // the config above is valid by construction
	}
	p := &nodePool{q: q}
	w.pools[n] = p
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		q.Run(e.ctx) // re-queues jobs whose lease ran out
	}()
	for range workers {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.work(p)
		}()
	}
	return p
}

func (w *workerPools) work(p *nodePool) {
	for {
		l, err := p.q.Lease(w.e.ctx)
		if err != nil {
			return
		}
		w.e.runJob(l.Item.Payload)
		_ = p.q.Ack(l) // a lease that ran out was re-queued; the second run's result is stale
	}
}

func (w *workerPools) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.wg.Wait()
}

// QueueDepths reports how many jobs wait in each node's queue, by element id.
func (e *Engine) QueueDepths() map[string]int {
	e.workers.mu.Lock()
	defer e.workers.mu.Unlock()
	out := make(map[string]int, len(e.workers.pools))
	for n, p := range e.workers.pools {
		st := p.q.Stats()
		for _, d := range st.Depth {
			out[n.ID] += d
		}
	}
	return out
}

// settle hands a job's outcome to the applier, once however often it ran.
func (e *Engine) settle(j *jobRun, c command) {
	if !j.settled.CompareAndSwap(false, true) {
		return
	}
	c.inst, c.token, c.job = j.inst, j.token, j.job
	_ = e.submit(e.ctx, c)
	e.done()
}

// settleQuietly marks a job settled without an outcome (the engine stops).
func (e *Engine) settleQuietly(j *jobRun) {
	if j.settled.CompareAndSwap(false, true) {
		e.done()
	}
}

// runJob does one attempt and hands the outcome back to the applier.
func (e *Engine) runJob(j *jobRun) {
	var (
		vars   map[string]any
		err    error
		cached *cacheLookup
		note   *cacheNote
	)
	if e.cluster != nil && e.partitionOf(j.inst).epoch.Load() == 0 {
		e.settleQuietly(j) // its partition was lost: the replica that took it runs the job
		return
	}
	if j.listener != nil || e.runsWork(j.node) {
		timeout := e.cfg.JobTimeout
		if j.node.Job.Timeout > 0 {
			timeout = j.node.Job.Timeout
		}
		ctx, cancel := context.WithTimeout(e.ctx, timeout)
		if e.cachesJob(j) {
			cached, err = e.lookupCache(ctx, j)
			if c, ok := e.hitCommand(cached); ok {
				cancel()
				e.settle(j, c)
				return
			}
		}
		if err == nil {
			vars, err = e.work(ctx, j)
			if err == nil && cached != nil {
				note = e.storeCache(ctx, cached, vars)
			}
		}
		cancel()
	}
	c := command{kind: cmdJobDone, vars: vars, cache: note}
	if err != nil {
		c.kind, c.err, c.vars = cmdJobFailed, err, nil
		var ra *retryAfter
		if errors.As(err, &ra) {
			c.after = ra.after
		}
	}
	e.settle(j, c)
}

// runsWork reports whether a job has work to run; without (JobsNoop and no
// handler) it completes at once with no output.
func (e *Engine) runsWork(n *model.Node) bool {
	return n.Kind == model.KindScriptTask || e.handlers.get(n.Job.Type) != nil
}

func (e *Engine) work(ctx context.Context, j *jobRun) (vars map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	n := j.node
	if j.listener != nil { // a listener's job: its own type's handler, if any
		h := e.handlers.get(j.listener.Type)
		if h == nil {
			return nil, nil
		}
		return h.Handle(ctx, &Job{
			Key:        j.inst + "/" + n.ID + "/" + j.listener.Event + "/" + strconv.Itoa(j.listener.Index) + "/" + strconv.Itoa(j.attempt),
			InstanceID: j.inst, DefinitionKey: j.defKey, ElementID: n.ID, Type: j.listener.Type,
			Attempt: j.attempt, Variables: j.vars, Headers: j.listener.headers(),
		})
	}
	if n.Kind == model.KindScriptTask {
		return e.runScript(ctx, n, j.vars)
	}
	h := e.handlers.get(n.Job.Type)
	if h == nil {
		return nil, nil
	}
	job := &Job{
		Key:        j.inst + "/" + n.ID + "/" + strconv.Itoa(j.attempt),
		InstanceID: j.inst, DefinitionKey: j.defKey, ElementID: n.ID, Type: n.Job.Type,
		Attempt: j.attempt, Variables: j.vars, Headers: n.Job.Headers, RetryOnStatus: n.Retry.RetryOnStatus,
		eng: e, run: j,
	}
	if job.Parameters, err = e.jobParameters(ctx, j); err != nil {
		return nil, err
	}
	return e.handle(ctx, h, n, job)
}

// runScript runs a script task: an object result is merged into the
// variables, any result is stored in resultVariable when the task names one.
func (e *Engine) runScript(ctx context.Context, n *model.Node, vars map[string]any) (map[string]any, error) {
	var (
		result any
		err    error
	)
	switch n.Script.Format {
	case "feel", model.ScriptExpression:
		text := n.Script.Source
		if n.Script.Format == "feel" {
			text = ensureFEEL(text)
		}
		prog, cerr := compileExpr(text)
		if cerr != nil {
			return nil, Permanent(cerr)
		}
		result, err = e.eval.Eval(ctx, prog, vars)
	default:
		prog, cerr := script.CompileScript(n.Script.Source)
		if cerr != nil {
			return nil, Permanent(cerr)
		}
		result, err = e.eval.RunScript(ctx, prog, vars)
	}
	if err != nil {
		return nil, fmt.Errorf("script of %q: %w", n.ID, err)
	}
	if n.Script.ResultVariable != "" {
		return map[string]any{n.Script.ResultVariable: result}, nil
	}
	if m, ok := result.(map[string]any); ok {
		return maps.Clone(m), nil
	}
	return nil, nil
}

func ensureFEEL(src string) string {
	if len(src) > 0 && src[0] == '=' {
		return src
	}
	return "=" + src
}
