package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// Defaults of ReplicaConfig.
const (
	PollIntervalDefault       = 500 * time.Millisecond
	FanoutPollIntervalDefault = 10 * time.Second
)

const (
	// pollOverlap widens each poll back past the previous one: an
	// instance's Updated is stamped when its change is applied, before the
	// commit lands, and replicas' clocks differ a little. Events read
	// twice are dropped by sequence.
	pollOverlap = 3 * time.Second
	// pollPage is how many instance heads one poll query reads.
	pollPage = 1000
	// pollChunk is how many events of a poll go to the hub at once; the
	// chunks are spread over half the poll interval.
	pollChunk = 256
	// pollTail bounds the events read of an instance this source has not
	// seen yet but which started before the poll window: only its events
	// of the window are new.
	pollTail = 256
	// seenKeep is how long the last sequence of an instance is kept after
	// its last event, at least: far longer than a copy of an event is late
	// through Redis. Entries inside the poll's window are kept too, so a
	// poll after a long store outage does not deliver again what came.
	seenKeep = time.Minute
	// replicaPendingMax bounds the batches waiting for the worker; past it
	// batches are dropped and the gap they leave is read from the log when
	// the instance's next event comes.
	replicaPendingMax = 1 << 16
	logTimeout        = 5 * time.Second
)

// ReplicaConfig configures a ReplicaSource.
type ReplicaConfig struct {
	// Events delivers this replica's events and, with Redis, the other
	// replicas' (cache.Source); required.
	Events EventSource
	// Log is the store every replica commits to. When set, the source
	// polls it for instances other replicas changed and reads their events,
	// and reads the events an arriving event shows were missed. Nil: a
	// replica alone on its store, nothing to poll.
	Log engine.Queries
	// Fanout reports whether Events carries the other replicas' events now
	// (Redis answers). While it does, Log is polled only every
	// FanoutPollInterval without Digests, for what Redis lost, and digests
	// are published and read on their beat only; nil means never.
	Fanout             func() bool
	PollInterval       time.Duration // while nothing else brings other replicas' events; default 500 ms
	FanoutPollInterval time.Duration // while Fanout says events come through Redis and there are no Digests; default 10 s
	// Digests, with Replica and Own, spares polls their query of the
	// instances updated lately, which decodes every instance on the
	// embedded store: this source publishes which instances Own (this
	// replica's engine) commits as Replica's digest, and each poll reads
	// the other replicas' digests instead. The query still runs at the
	// first poll, when a poll comes too late for the digests, and when a
	// replica's digest falls silent (it died, maybe before it published its
	// last changes). Nil: every poll queries the instances.
	Digests engine.ChangeDigests
	Replica string
	Own     EventSource
	Logger  *slog.Logger
}

// WithDefaults returns c with every zero field but Events, Log and Fanout
// set to its default.
func (c ReplicaConfig) WithDefaults() ReplicaConfig {
	c.PollInterval = cmp.Or(c.PollInterval, PollIntervalDefault)
	c.FanoutPollInterval = cmp.Or(c.FanoutPollInterval, FanoutPollIntervalDefault)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Fanout == nil {
		c.Fanout = func() bool { return false }
	}
	return c
}

func (c ReplicaConfig) validate() error {
	var errs []error
	if c.Events == nil {
		errs = append(errs, errors.New("live replica source: Events is required"))
	}
	if c.Digests != nil && (c.Log == nil || c.Replica == "" || c.Own == nil) {
		errs = append(errs, errors.New("live replica source: Digests needs Log, Replica and Own"))
	}
	if c.PollInterval < 0 || c.FanoutPollInterval < 0 {
		errs = append(errs, fmt.Errorf("live replica source: poll intervals must not be negative, got %s and %s", c.PollInterval, c.FanoutPollInterval))
	}
	return errors.Join(errs...)
}

// ReplicaSource is the EventSource of one replica among several on one
// store: its own engine's events, the other replicas' that Redis carries,
// and, polled from the store's log, whatever neither brought (Redis down,
// a message lost), at most about one and a half PollInterval late (a poll's
// events are spread over half the interval), a quarter more with digests
// (they are published every quarter interval). Every event with a sequence
// reaches subscribers once and in order per instance: one that arrives past
// a gap waits until the missing events are read from the log.
type ReplicaSource struct {
	cfg ReplicaConfig

	subMu sync.RWMutex
	subs  map[*func([]engine.Event)]bool // true: wants task changes only (SubscribeTasks)
	// tasksMu orders telling Events whether only task changes are wanted.
	tasksMu sync.Mutex

	inMu   sync.Mutex
	in     [][]engine.Event
	inLost int // events dropped since the last log
	wake   chan struct{}

	seenMu sync.Mutex
	seen   map[string]seenSeq // instance id → the last sequence delivered
	// passed holds the instances of other replicas' digests left unread
	// because no subscriber wanted their events: id → up to which sequence.
	passed    map[string]seenSeq
	lastSweep time.Time
	pollFrom  time.Time // where the next query of the instances starts reading

	ownMu    sync.Mutex
	own      map[string]ownChange // this replica's changes of the last digestKeep, by instance
	ownDirty bool                 // changed since the last publication

	// The largest delay from an event's time to its delivery, in the
	// window that began at lagStart and in the one before it.
	lagMu             sync.Mutex
	lagStart          time.Time
	lagCur, lagBefore time.Duration

	startOnce   sync.Once
	closeOnce   sync.Once
	unsubscribe func()
	unsubOwn    func()
	stop        context.CancelFunc
	wg          sync.WaitGroup
}

type seenSeq struct {
	seq uint64
	at  time.Time
}

// NewReplicaSource returns a source that starts on its first subscriber.
func NewReplicaSource(cfg ReplicaConfig) (*ReplicaSource, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &ReplicaSource{
		cfg: cfg, subs: map[*func([]engine.Event)]bool{}, wake: make(chan struct{}, 1),
		seen: map[string]seenSeq{}, passed: map[string]seenSeq{}, lastSweep: time.Now(), own: map[string]ownChange{},
	}, nil
}

// Subscribe calls fn with each batch, from one goroutine; fn must not
// block and may keep the slice.
func (r *ReplicaSource) Subscribe(fn func([]engine.Event)) (unsubscribe func()) {
	return r.subscribe(fn, false)
}

// SubscribeTasks is Subscribe for a subscriber that uses only the events
// that change a task (engine.Event.Task), such as the inbox's follower: fn
// may get others too, but while no other subscriber listens, the other
// replicas' instances whose digests show no task change are not read.
func (r *ReplicaSource) SubscribeTasks(fn func([]engine.Event)) (unsubscribe func()) {
	return r.subscribe(fn, true)
}

func (r *ReplicaSource) subscribe(fn func([]engine.Event), tasksOnly bool) (unsubscribe func()) {
	key := &fn
	r.subMu.Lock()
	r.subs[key] = tasksOnly
	r.subMu.Unlock()
	r.startOnce.Do(r.start)
	r.tellTasksOnly()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.subMu.Lock()
			delete(r.subs, key)
			r.subMu.Unlock()
			r.tellTasksOnly()
		})
	}
}

// tellTasksOnly tells Redis's source (cache.Source) whether the subscribers
// want only task changes: it then receives only the other replicas'
// messages that change a task.
func (r *ReplicaSource) tellTasksOnly() {
	f, ok := r.cfg.Events.(interface{ SetTasksOnly(bool) })
	if !ok {
		return
	}
	r.tasksMu.Lock()
	defer r.tasksMu.Unlock()
	f.SetTasksOnly(!r.wantsAll())
}

func (r *ReplicaSource) start() {
	ctx, stop := context.WithCancel(context.Background())
	r.stop = stop
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.run(ctx) }()
	if r.cfg.Log != nil {
		r.wg.Add(1)
		go func() { defer r.wg.Done(); r.pollLoop(ctx) }()
	}
	r.unsubscribe = r.cfg.Events.Subscribe(r.enqueue)
	r.unsubOwn = func() {}
	if r.cfg.Digests != nil {
		r.unsubOwn = r.cfg.Own.Subscribe(r.noteOwn)
		r.wg.Add(1)
		go func() { defer r.wg.Done(); r.publishLoop(ctx) }()
	}
}

// Close stops the worker and the poll; subscribers get nothing more.
func (r *ReplicaSource) Close() {
	r.closeOnce.Do(func() {
		r.startOnce.Do(func() {}) // a source never subscribed to starts nothing now
		if r.stop == nil {
			return
		}
		r.unsubscribe()
		r.unsubOwn()
		r.stop()
		r.wg.Wait()
	})
}

// enqueue copies a batch for the worker without waiting: it may run on the
// engine's applier.
func (r *ReplicaSource) enqueue(events []engine.Event) {
	if len(events) == 0 {
		return
	}
	r.inMu.Lock()
	if len(r.in) >= replicaPendingMax {
		r.inLost += len(events)
	} else {
		r.in = append(r.in, slices.Clone(events))
	}
	r.inMu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *ReplicaSource) run(ctx context.Context) {
	var out []engine.Event
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		}
		r.inMu.Lock()
		batches, lost := r.in, r.inLost
		r.in, r.inLost = nil, 0
		r.inMu.Unlock()
		if lost > 0 {
			r.cfg.Logger.Warn("live events: the source fell behind and dropped events; they are read from the log when their instances move again", "dropped", lost)
		}
		for _, evs := range batches {
			out = r.admit(ctx, evs, out[:0])
			if len(out) > 0 {
				r.noteLag(out, time.Now())
				r.deliver(slices.Clone(out))
			}
		}
		r.sweep()
	}
}

// admit returns the events of evs not delivered yet, each instance's in
// sequence order, with the events a gap before them hides read from the log.
func (r *ReplicaSource) admit(ctx context.Context, evs, out []engine.Event) []engine.Event {
	for _, ev := range evs {
		if ev.Transient() || ev.InstanceID == "" {
			out = append(out, ev)
			continue
		}
		last, known := r.last(ev.InstanceID)
		switch {
		case known && ev.Seq <= last:
			continue
		case known && ev.Seq > last+1 && r.cfg.Log != nil:
			out = append(out, r.missed(ctx, ev.InstanceID, last, ev.Seq)...)
		}
		out = append(out, ev)
		r.mark(ev.InstanceID, ev.Seq)
	}
	return out
}

// missed reads the events of id after last and before seq from the log.
// When the log does not answer they stay missing: a client closes the gap
// with since.
func (r *ReplicaSource) missed(ctx context.Context, id string, last, seq uint64) []engine.Event {
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	evs, err := r.cfg.Log.Events(ctx, id, last, int(seq-last-1)) //nolint:gosec // a gap between two sequences of one instance
	if err != nil {
		r.cfg.Logger.Warn("live events: reading missed events from the log", "instance_id", id, "after", last, "err", err)
		return nil
	}
	return slices.DeleteFunc(evs, func(e engine.Event) bool { return e.Seq >= seq })
}

func (r *ReplicaSource) last(id string) (uint64, bool) {
	r.seenMu.Lock()
	defer r.seenMu.Unlock()
	s, ok := r.seen[id]
	return s.seq, ok
}

// passedSeq returns up to which sequence the instance was left unread.
func (r *ReplicaSource) passedSeq(id string) uint64 {
	r.seenMu.Lock()
	defer r.seenMu.Unlock()
	return r.passed[id].seq
}

func (r *ReplicaSource) pass(id string, seq uint64) {
	r.seenMu.Lock()
	r.passed[id] = seenSeq{seq: seq, at: time.Now()}
	r.seenMu.Unlock()
}

func (r *ReplicaSource) mark(id string, seq uint64) {
	r.seenMu.Lock()
	r.seen[id] = seenSeq{seq: seq, at: time.Now()}
	r.seenMu.Unlock()
}

// sweep forgets the instances (seen and passed) quiet for seenKeep and
// since before the poll's window, every seenKeep at most.
func (r *ReplicaSource) sweep() {
	now := time.Now()
	r.seenMu.Lock()
	defer r.seenMu.Unlock()
	if now.Sub(r.lastSweep) < seenKeep {
		return
	}
	r.lastSweep = now
	before := now.Add(-seenKeep)
	if !r.pollFrom.IsZero() && r.pollFrom.Before(before) {
		before = r.pollFrom
	}
	for _, m := range []map[string]seenSeq{r.seen, r.passed} {
		maps.DeleteFunc(m, func(_ string, s seenSeq) bool { return s.at.Before(before) })
	}
}

// lagWindow is how long a delay counts in Lag.
const lagWindow = time.Second

func (r *ReplicaSource) noteLag(evs []engine.Event, now time.Time) {
	var worst time.Duration
	for i := range evs {
		if t := evs[i].Time; !t.IsZero() {
			worst = max(worst, now.Sub(t))
		}
	}
	r.lagMu.Lock()
	defer r.lagMu.Unlock()
	if since := now.Sub(r.lagStart); since >= lagWindow {
		r.lagBefore = r.lagCur
		if since >= 2*lagWindow {
			r.lagBefore = 0
		}
		r.lagStart, r.lagCur = now, 0
	}
	r.lagCur = max(r.lagCur, worst)
}

// Lag is how late the live stream is: the largest delay from an event's
// time (as its replica applied it, just before the commit) to its delivery
// here, over the last second or two; 0 when nothing came meanwhile.
// Through Redis it is milliseconds; from the log, up to about 1.5
// PollInterval.
func (r *ReplicaSource) Lag() time.Duration {
	r.lagMu.Lock()
	defer r.lagMu.Unlock()
	switch since := time.Since(r.lagStart); {
	case since >= 2*lagWindow:
		return 0
	case since >= lagWindow:
		return r.lagCur
	}
	return max(r.lagCur, r.lagBefore)
}

// wantsAll reports whether a subscriber wants every event.
func (r *ReplicaSource) wantsAll() bool {
	r.subMu.RLock()
	defer r.subMu.RUnlock()
	for _, tasksOnly := range r.subs {
		if !tasksOnly {
			return true
		}
	}
	return false
}

func (r *ReplicaSource) deliver(evs []engine.Event) {
	r.subMu.RLock()
	defer r.subMu.RUnlock()
	for fn := range r.subs {
		(*fn)(evs)
	}
}
