package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/workflowpp/wfpp/engine/script"
)

// Errors the engine's operations return; the server maps them to HTTP codes.
var (
	ErrClosed        = errors.New("engine is closed")
	ErrNotRunning    = errors.New("engine is not running: call Run first")
	ErrTaskNotOpen   = errors.New("task is not open: it was completed or cancelled already")
	ErrInstanceEnded = errors.New("instance has ended")
	ErrInvalidState  = errors.New("not possible in the instance's current state")
	ErrDisabled      = errors.New("definition version is disabled: enable it to start instances")
	ErrInvalidInput  = errors.New("invalid input")
)

// Engine runs process instances. Create it with New, start it with Run.
type Engine struct {
	cfg        Config
	store      Store
	clock      Clock
	eval       *script.Evaluator
	partitions []*partition
	seed       maphash.Seed
	cluster    *cluster // the lease manager with Config.Cluster (cluster.go); nil: every partition is this engine's

	defs     *deployments
	versions *versionRecords // the records default-version starts pick from
	handlers *handlerRegistry
	workers  *workerPools
	messages *messageIndex
	buffer   *messageBuffer // messages published with a TTL that wait for a subscriber
	external *externalJobs
	sched    *scheduler      // stored schedules (scheduler.go)
	limits   *limiter        // caps of running instances (limits.go)
	progress *progressBoard  // what running jobs report (progress.go)
	timings  *versionTimings // how long versions' instances take, for progress estimates

	cacheStats stepCacheStats // lookups of the step cache (step_cache.go)

	busy   atomic.Int64 // commands and jobs under way; zero means idle
	idleCh chan struct{}

	subsMu      sync.RWMutex
	subscribers []*subscriber

	runOnce sync.Once
	running atomic.Bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// New returns an engine; it does nothing until Run.
func New(cfg Config) (*Engine, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	eval, err := script.NewEvaluator(cfg.Script)
	if err != nil {
		return nil, fmt.Errorf("engine config: %w", err)
	}
	e := &Engine{
		cfg:      cfg,
		store:    cfg.Store,
		clock:    cfg.Clock,
		eval:     eval,
		seed:     maphash.MakeSeed(),
		idleCh:   make(chan struct{}, 1),
		handlers: newHandlerRegistry(),
		messages: newMessageIndex(),
		external: newExternalJobs(),
	}
	e.buffer = newMessageBuffer(e, cfg.MessageBuffer)
	e.progress = newProgressBoard(e)
	e.timings = newVersionTimings(cfg.Store)
	e.defs = newDeployments(e)
	e.versions = newVersionRecords()
	e.limits = newLimiter(e)
	e.sched = newScheduler(e)
	e.workers = newWorkerPools(e)
	appliers := cfg.Partitions
	if cfg.Cluster != nil { // one applier per partition a replica may lease
		if e.cluster, err = newCluster(e, *cfg.Cluster); err != nil {
			return nil, err
		}
		appliers = e.cluster.cfg.Partitions
	}
	for i := range appliers {
		e.partitions = append(e.partitions, newPartition(e, i))
	}
	if cfg.Exporter != nil {
		e.subscribers = append(e.subscribers, &subscriber{cfg.Exporter})
	}
	registerBuiltins(e.handlers)
	return e, nil
}

// Run starts the appliers and worker pools, recovers unfinished instances
// from the store, and returns once they run. They stop when ctx is done or
// Close is called.
func (e *Engine) Run(ctx context.Context) error {
	err := ErrClosed
	e.runOnce.Do(func() {
		e.ctx, e.cancel = context.WithCancel(context.WithoutCancel(ctx))
		for _, p := range e.partitions {
			e.wg.Add(1)
			go func() { defer e.wg.Done(); p.run(e.ctx) }()
		}
		e.running.Store(true)
		go func() {
			select {
			case <-ctx.Done():
				e.Close()
			case <-e.ctx.Done():
			}
		}()
		if err = e.recover(ctx); err == nil {
			err = e.sched.run(ctx)
		}
	})
	return err
}

// Close stops the appliers and workers and waits for them. Work under way is
// abandoned, not lost: it is in the store and resumes on the next Run.
func (e *Engine) Close() {
	if e.cancel == nil {
		return
	}
	if e.cluster != nil && e.running.Load() {
		e.cluster.close() // hand the partitions back while the appliers still run
	}
	e.running.Store(false)
	e.cancel()
	e.buffer.close()
	e.workers.close()
	e.progress.close()
	e.wg.Wait()
}

// Subscribe adds an exporter that receives every event after it is stored.
// The returned func removes it.
func (e *Engine) Subscribe(x Exporter) (unsubscribe func()) {
	e.subsMu.Lock()
	defer e.subsMu.Unlock()
	sub := &subscriber{x} // compared by pointer: exporters may be funcs, which do not compare
	e.subscribers = append(e.subscribers, sub)
	return func() {
		e.subsMu.Lock()
		defer e.subsMu.Unlock()
		for i, s := range e.subscribers {
			if s == sub {
				e.subscribers = append(e.subscribers[:i:i], e.subscribers[i+1:]...)
				return
			}
		}
	}
}

func (e *Engine) export(events []Event) {
	if len(events) == 0 {
		return
	}
	e.progress.settle(events)
	e.subsMu.RLock()
	defer e.subsMu.RUnlock()
	for _, s := range e.subscribers {
		s.x.Export(events)
	}
	e.limits.ended(events) // after the exporters: a queued start follows the end they saw
}

func (e *Engine) exportTasks(tasks []Task) {
	if len(tasks) == 0 {
		return
	}
	e.subsMu.RLock()
	defer e.subsMu.RUnlock()
	for _, s := range e.subscribers {
		if tx, ok := s.x.(TaskExporter); ok {
			tx.ExportTasks(tasks)
		}
	}
}

type subscriber struct{ x Exporter }

// partitionOf returns the applier that owns an instance: in a cluster the
// one of its partition (PartitionOf, the same on every replica).
func (e *Engine) partitionOf(instanceID string) *partition {
	switch {
	case e.cluster != nil:
		return e.partitions[PartitionOf(instanceID, len(e.partitions))]
	case len(e.partitions) == 1:
		return e.partitions[0]
	}
	return e.partitions[maphash.String(e.seed, instanceID)%uint64(len(e.partitions))]
}

// submit hands a command to the instance's applier, waiting while its
// inbox is full. In a cluster, a command for a partition this replica does
// not hold is refused with a NotOwnerError.
func (e *Engine) submit(ctx context.Context, c command) error {
	if !e.running.Load() {
		return ErrNotRunning
	}
	p := e.partitionOf(c.inst)
	if e.cluster != nil && p.epoch.Load() == 0 {
		return e.notOwner(ctx, p.id)
	}
	e.busy.Add(1)
	select {
	case p.inbox <- c:
		return nil
	case <-ctx.Done():
		e.done()
		return ctx.Err()
	case <-e.ctx.Done():
		e.done()
		return ErrClosed
	}
}

// call submits a command and waits for its reply.
func (e *Engine) call(ctx context.Context, c command) (reply, error) {
	if err := e.checkVariables(c.incoming()); err != nil {
		return reply{}, err
	}
	ch := make(chan reply, 1)
	c.reply = ch
	if err := e.submit(ctx, c); err != nil {
		return reply{}, err
	}
	select {
	case r := <-ch:
		return r, r.err
	case <-ctx.Done():
		return reply{}, ctx.Err()
	case <-e.ctx.Done():
		return reply{}, ErrClosed
	}
}

// done marks one command or job as finished.
func (e *Engine) done() {
	if e.busy.Add(-1) == 0 {
		select {
		case e.idleCh <- struct{}{}:
		default:
		}
	}
}

// WaitIdle waits until no command is queued and no job runs: every instance
// waits for something outside the engine (a task, a message, a timer, an
// external worker) or has ended.
func (e *Engine) WaitIdle(ctx context.Context) error {
	for e.busy.Load() != 0 {
		select {
		case <-e.idleCh:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func defaultRandom() float64 { return rand.Float64() }
