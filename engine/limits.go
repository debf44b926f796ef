package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// A process with a cap on running instances (Limits.MaxConcurrent,
// wf:maxConcurrentInstances) lets that many of its definition's instances
// run at once; a start over it is refused (OverLimitRefuse: Start returns an
// *OverLimitError, HTTP 429) or queued (OverLimitQueue, the default): the
// instance is stored with StatusQueued and an instance.queued event, and
// starts, in arrival order, when a running one ends.
//
// What is counted: the instances of a definition key, started by Start (from
// the API, a message, a signal or a timer) under a version that has a cap,
// from their start to their end, whatever they wait for. A call activity's
// instances are not counted, nor queued: they are part of their caller's
// work, and queuing them behind their callers could wait for ever.
//
// How it is counted: in memory, in the limiter below, under one mutex, so
// concurrent starts never admit more than the cap; a place is given back
// when the end of its instance is stored (the engine's export of the
// instance.completed, failed or cancelled event), and the first queued start
// then gets it. Nothing is written for the count itself: the store's
// instances are its truth, and recovery counts them again (every unfinished
// instance of a capped version that is not queued runs) and rebuilds the
// queue from the queued instances, in the order of their stored positions.
// A count document in the store would cost a write per start and per end
// and could still drift by a crash between its update and the instance's;
// an engine owns its instances (one process), so the memory count is exact.
// Each queued instance is one document (its snapshot), written once when
// queued and once when it starts: single-document updates only.
//
// A start is admitted before its request id is claimed: a repeated request
// over a full cap is refused (or queued, then dropped as the duplicate it
// is) rather than answered with the instance it created before.

// ErrOverLimit is what a refused start over its definition's cap is (errors.Is).
var ErrOverLimit = errors.New("too many running instances")

// OverLimitRetryAfter is how long a refused start is told to wait before it
// tries again (HTTP Retry-After).
const OverLimitRetryAfter = 5 * time.Second

// OverLimitError refuses a start: Max instances of Definition run already.
type OverLimitError struct {
	Definition string // the key
	Max        int
	RetryAfter time.Duration
}

func (e *OverLimitError) Error() string {
	return fmt.Sprintf("definition %s: its cap of %d running instances (wf:maxConcurrentInstances) is reached: try again later, or set wf:overLimit=\"queue\" to queue the starts over it",
		e.Definition, e.Max)
}

func (e *OverLimitError) Is(target error) bool { return target == ErrOverLimit }

// QueuedStart is how a queued instance starts when it gets its place.
type QueuedStart struct {
	Position  uint64        `json:"position" bson:"position"` // its arrival among its definition's queued starts
	Triggered bool          `json:"triggered,omitempty" bson:"triggered,omitempty"`
	Fired     model.Trigger `json:"fired,omitempty" bson:"fired,omitempty"`
}

// limiter keeps the count of running instances per definition key, and the
// queued starts, for the caps of Limits.MaxConcurrent.
type limiter struct {
	e          *Engine
	mu         sync.Mutex
	keys       map[string]*keyLimit
	counted    map[string]string       // instance id → key: the instances holding a place
	queued     map[string]*queuedStart // instance id → its place in a queue
	recovering bool                    // no start leaves a queue until the queues are rebuilt
}

// keyLimit is one definition key's count and queue.
type keyLimit struct {
	running int
	queue   []*queuedStart // in arrival order
	next    uint64         // the last position given
}

// queuedStart is a start waiting in a queue.
type queuedStart struct {
	id, key string
	pos     uint64
	max     int  // the cap of its version
	stored  bool // its queued instance is stored: it can be started
	// promoted: it got its place before it was stored; the Start that
	// queued it starts it once it is stored.
	promoted bool
}

func newLimiter(e *Engine) *limiter {
	return &limiter{e: e, keys: map[string]*keyLimit{}, counted: map[string]string{}, queued: map[string]*queuedStart{}}
}

func (l *limiter) key(k string) *keyLimit {
	kl := l.keys[k]
	if kl == nil {
		kl = &keyLimit{}
		l.keys[k] = kl
	}
	return kl
}

// admission is the place a start got: nil for an uncounted start.
type admission struct {
	l     *limiter
	id    string
	queue *queuedStart // nil: it runs
}

// admit counts a start that its version caps: it runs (a place is free and
// nobody waits before it), it is queued (sr's snapshot becomes a queued
// one), or it is refused.
func (l *limiter) admit(sr *startRequest) (*admission, error) {
	lim, snap := sr.proc.Limits, sr.snap
	if lim.MaxConcurrent <= 0 || snap.Parent != nil {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(snap.DefinitionKey)
	a := &admission{l: l, id: snap.ID}
	switch {
	case k.running < lim.MaxConcurrent && len(k.queue) == 0:
		k.running++
		l.counted[snap.ID] = snap.DefinitionKey
		return a, nil
	case lim.OverLimit == model.OverLimitRefuse:
		return nil, &OverLimitError{Definition: snap.DefinitionKey, Max: lim.MaxConcurrent, RetryAfter: OverLimitRetryAfter}
	}
	k.next++
	a.queue = &queuedStart{id: snap.ID, key: snap.DefinitionKey, pos: k.next, max: lim.MaxConcurrent}
	k.queue = append(k.queue, a.queue)
	l.queued[snap.ID] = a.queue
	snap.Status = StatusQueued
	snap.Queued = &QueuedStart{Position: k.next, Triggered: sr.triggered, Fired: sr.fired}
	return a, nil
}

// settle follows the start an admission let through: a start that did not
// create its instance gives its place back (or leaves the queue); a queued
// one that got its place meanwhile starts now.
func (a *admission) settle(snap *Snapshot, created bool, err error) {
	if a == nil {
		return
	}
	l := a.l
	l.mu.Lock()
	var start []*queuedStart
	switch {
	case err != nil || !created:
		start = l.drop(a.id)
	case snap.ID != a.id: // the store adopted an earlier claim of the request id under its instance id
		if key, ok := l.counted[a.id]; ok {
			delete(l.counted, a.id)
			l.counted[snap.ID] = key
		}
		if q := l.queued[a.id]; q != nil {
			delete(l.queued, a.id)
			l.queued[snap.ID] = q
		}
		a.id = snap.ID
	}
	if a.queue != nil && err == nil && created {
		a.queue.id, a.queue.stored = a.id, true
		if a.queue.promoted {
			start = append(start, a.queue)
		}
	}
	l.mu.Unlock()
	l.startQueued(start)
}

// drop takes instance id out of the count or the queue, and returns the
// queued starts that get a place through it. l.mu is held.
func (l *limiter) drop(id string) []*queuedStart {
	if q := l.queued[id]; q != nil {
		delete(l.queued, id)
		k := l.keys[q.key]
		k.queue = slices.DeleteFunc(k.queue, func(o *queuedStart) bool { return o == q })
		return nil
	}
	key, ok := l.counted[id]
	if !ok {
		return nil
	}
	delete(l.counted, id)
	k := l.keys[key]
	k.running--
	return l.promote(k)
}

// promote gives the free places of k to its first queued starts, in order.
// l.mu is held.
func (l *limiter) promote(k *keyLimit) []*queuedStart {
	if l.recovering {
		return nil
	}
	var start []*queuedStart
	for len(k.queue) > 0 && k.running < k.queue[0].max {
		q := k.queue[0]
		k.queue = k.queue[1:]
		delete(l.queued, q.id)
		k.running++
		l.counted[q.id] = q.key
		if q.stored {
			start = append(start, q)
		} else {
			q.promoted = true
		}
	}
	return start
}

// ended gives back the places of the instances whose end the events report,
// once they are stored; a queued instance that was cancelled leaves its queue.
func (l *limiter) ended(events []Event) {
	var start []*queuedStart
	for i := range events {
		switch events[i].Type {
		case EventInstanceCompleted, EventInstanceFailed, EventInstanceCancelled:
		default:
			continue
		}
		l.mu.Lock()
		start = append(start, l.drop(events[i].InstanceID)...)
		l.mu.Unlock()
	}
	l.startQueued(start)
}

// startQueued starts queued instances that got their place.
func (l *limiter) startQueued(qs []*queuedStart) {
	for _, q := range qs {
		l.e.busy.Add(1)
		go func() {
			defer l.e.done()
			l.dequeue(q)
		}()
	}
}

// dequeue starts a queued instance. When it cannot (it ended, or the store
// failed), its place goes to the next; one the store could not start stays
// queued in the store, and recovery queues it again.
func (l *limiter) dequeue(q *queuedStart) {
	_, err := l.e.call(l.e.ctx, command{kind: cmdDequeue, inst: q.id})
	if err == nil || errors.Is(err, ErrClosed) || errors.Is(err, ErrInvalidState) {
		return // started (or, invalid state, started already); closing: recovery starts it
	}
	l.e.cfg.Logger.Error("starting a queued instance", "instance_id", q.id, "definition", q.key, "err", err)
	l.mu.Lock()
	start := l.drop(q.id)
	l.mu.Unlock()
	l.startQueued(start)
}

// recovered counts an unfinished instance found at recovery: it holds a
// place, or waits in its queue.
func (l *limiter) recovered(s *Snapshot, lim model.Limits) {
	if lim.MaxConcurrent <= 0 || s.Parent != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(s.DefinitionKey)
	if s.Status != StatusQueued || s.Queued == nil {
		k.running++
		l.counted[s.ID] = s.DefinitionKey
		return
	}
	q := &queuedStart{id: s.ID, key: s.DefinitionKey, pos: s.Queued.Position, max: lim.MaxConcurrent, stored: true}
	k.queue = append(k.queue, q)
	l.queued[s.ID] = q
	k.next = max(k.next, q.pos)
}

// beginRecovery holds the queues until recovery has found every instance.
func (l *limiter) beginRecovery() {
	l.mu.Lock()
	l.recovering = true
	l.mu.Unlock()
}

// endRecovery puts the rebuilt queues in arrival order and starts what has
// a place (an end stored before a crash whose queued start was not).
func (l *limiter) endRecovery() {
	l.mu.Lock()
	l.recovering = false
	var start []*queuedStart
	for _, k := range l.keys {
		slices.SortFunc(k.queue, func(a, b *queuedStart) int { return cmp.Compare(a.pos, b.pos) })
		start = append(start, l.promote(k)...)
	}
	l.mu.Unlock()
	l.startQueued(start)
}

// recoverLimits counts s at recovery with the limits of its version. An
// instance whose definition cannot be read is left out: loading it fails
// the same way, and says so.
func (e *Engine) recoverLimits(ctx context.Context, s *Snapshot) {
	if s.Parent != nil {
		return
	}
	dep, err := e.defs.byID(ctx, s.DefinitionID)
	if err != nil {
		return
	}
	if p := dep.def.Process(s.ProcessID); p != nil {
		e.limits.recovered(s, p.Limits)
	}
}

// whileQueued answers what a queued instance gets before it starts: it is
// created (cmdStart), recovered (cmdLoad) or given variables; cancel and
// dequeue go the usual way; anything else waits for it to start.
func (x *instance) whileQueued(c command) error {
	switch c.kind {
	case cmdStart:
		x.emit(EventInstanceQueued, nil, nil, map[string]any{
			"definition": x.head.DefinitionKey, "version": x.head.Version, "businessKey": x.head.BusinessKey, "position": x.head.Queued.Position,
		})
		return nil
	case cmdLoad:
		return nil
	case cmdSetVariables:
		return x.setVariables(c)
	}
	return fmt.Errorf("instance %s is queued: it starts when a running instance of %s ends: %w", x.id, x.head.DefinitionKey, ErrInvalidState)
}

// dequeue starts a queued instance that got its place.
func (x *instance) dequeue() error {
	if x.status != StatusQueued || x.head.Queued == nil {
		return fmt.Errorf("instance %s is %s, not queued: %w", x.id, x.status, ErrInvalidState)
	}
	q := x.head.Queued
	x.status, x.head.Queued, x.head.Started = StatusRunning, nil, x.now
	x.start(&startRequest{start: x.proc.Node(x.head.StartElement), triggered: q.Triggered, fired: q.Fired})
	return nil
}
