package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
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
// How it is counted: through the store (PlaceStore), so that the cap holds
// across the replicas of a cluster: a running instance holds one of its
// key's places, taken by a single-document conditional update that never
// passes the cap whichever replicas take places at once, and given back
// once its end is stored (the engine's export of the instance.completed,
// failed or cancelled event). Places name their instances, so a repeated
// take or release never counts twice, and recovery can check them against
// the instances: on an engine alone on its store, every place whose
// instance no longer runs is given back, and every running instance holds
// one. The queue is the queued instances in the store: each engine queues
// the starts it refused and the queued instances it recovered, and when a
// place frees it gives it to its first queued start. On a replica of a
// cluster, places other replicas free are looked for every placePoll while
// it has queued starts, a new start queues when queued instances wait on
// any replica, and places whose instance ended without giving them back (a
// crash between the two) are given back by the next look at them. Each
// queued instance is one document (its snapshot), written once when queued
// and once when it starts: single-document updates only.
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

// limiter admits the starts of capped definitions through the places of
// the store, and queues the others, for the caps of Limits.MaxConcurrent.
type limiter struct {
	e      *Engine
	places PlaceStore
	// shared: other replicas take and free places too (Config.Cluster).
	shared bool

	mu         sync.Mutex
	keys       map[string]*keyLimit
	counted    map[string]string       // instance id → key: this engine's instances holding a place
	taking     map[string]bool         // starts taking a place now (not counted yet)
	queued     map[string]*queuedStart // instance id → its place in a queue
	recovering bool                    // no start leaves a queue until the queues are rebuilt
	polling    bool                    // shared: a look for places others freed is armed
	missing    map[string]time.Time    // places whose instance was not found, since when
}

// keyLimit is one definition key's queue.
type keyLimit struct {
	queue     []*queuedStart // in arrival order
	next      uint64         // the last position given
	promoting bool           // a goroutine gives free places to the queue
	again     bool           // a place freed (or a start was queued) while it ran
}

// queuedStart is a start waiting in a queue.
type queuedStart struct {
	id, key string
	pos     uint64
	max     int  // the cap of its version
	stored  bool // its queued instance is stored: it can be started
}

const (
	// placePoll is how often a replica with queued starts looks for places
	// other replicas freed, or that ended instances did not give back. It
	// reads the instances holding places (at most the cap) only while the
	// cap is full and starts wait.
	placePoll = time.Second
	// placeTimeout bounds the store calls of one admission or promotion.
	placeTimeout = 10 * time.Second
	// staleStart is how long a place may be held by an instance that is
	// not stored before it is given back: longer than a start may take
	// from its admission to its first commit.
	staleStart = placeTimeout + loadTimeout + commitTimeout + 10*time.Second
)

func newLimiter(e *Engine) *limiter {
	ps, ok := e.cfg.Store.(PlaceStore)
	if !ok {
		ps = &LocalPlaces{}
	}
	return &limiter{
		e: e, places: ps, shared: e.cfg.Cluster != nil,
		keys: map[string]*keyLimit{}, counted: map[string]string{}, taking: map[string]bool{}, queued: map[string]*queuedStart{}, missing: map[string]time.Time{},
	}
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

// admit counts a start that its version caps: it runs (it got a place, and
// nobody waits before it), it is queued (sr's snapshot becomes a queued
// one), or it is refused.
func (l *limiter) admit(sr *startRequest) (*admission, error) {
	lim, snap := sr.proc.Limits, sr.snap
	if lim.MaxConcurrent <= 0 || snap.Parent != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), placeTimeout)
	defer cancel()
	key := snap.DefinitionKey
	l.mu.Lock()
	waiting := len(l.key(key).queue) > 0
	l.mu.Unlock()
	if !waiting && l.shared {
		page, _, err := l.e.store.Instances(ctx, InstanceFilter{DefinitionKey: key, Status: []Status{StatusQueued}, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("looking for the queued instances of %s: %w", key, err)
		}
		waiting = len(page) > 0
	}
	a := &admission{l: l, id: snap.ID}
	if !waiting {
		l.mu.Lock()
		l.taking[snap.ID] = true
		l.mu.Unlock()
		ok, err := l.places.TakePlace(ctx, key, snap.ID, lim.MaxConcurrent)
		l.mu.Lock()
		delete(l.taking, snap.ID)
		if ok {
			l.counted[snap.ID] = key
		}
		l.mu.Unlock()
		switch {
		case err != nil:
			return nil, fmt.Errorf("counting the running instances of %s: %w", key, err)
		case ok:
			return a, nil
		}
	}
	if lim.OverLimit == model.OverLimitRefuse {
		return nil, &OverLimitError{Definition: key, Max: lim.MaxConcurrent, RetryAfter: OverLimitRetryAfter}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.key(key)
	k.next++
	a.queue = &queuedStart{id: snap.ID, key: key, pos: k.next, max: lim.MaxConcurrent}
	k.queue = append(k.queue, a.queue)
	l.queued[snap.ID] = a.queue
	snap.Status = StatusQueued
	snap.Queued = &QueuedStart{Position: k.next, Triggered: sr.triggered, Fired: sr.fired}
	return a, nil
}

// settle follows the start an admission let through: a start that did not
// create its instance gives its place back (or leaves the queue); a queued
// one, once stored, may take a place freed meanwhile.
func (a *admission) settle(snap *Snapshot, created bool, err error) {
	if a == nil {
		return
	}
	l := a.l
	switch {
	case err != nil || !created:
		l.drop(a.id)
		return
	case snap.ID != a.id: // the store adopted an earlier claim of the request id under its instance id
		l.rename(a.id, snap.ID)
		a.id = snap.ID
	}
	if a.queue != nil {
		l.mu.Lock()
		a.queue.id, a.queue.stored = a.id, true
		l.mu.Unlock()
		l.promoteLater(a.queue.key)
	}
}

// rename moves the place or queue entry of instance from to instance to.
func (l *limiter) rename(from, to string) {
	l.mu.Lock()
	key, counted := l.counted[from]
	if counted {
		delete(l.counted, from)
		l.counted[to] = key
	}
	if q := l.queued[from]; q != nil {
		delete(l.queued, from)
		l.queued[to] = q
	}
	l.mu.Unlock()
	if !counted {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), placeTimeout)
	defer cancel()
	// The place moves: held by both a moment (a running instance holds
	// one whatever the count), never by neither.
	_, err := l.places.TakePlace(ctx, key, to, math.MaxInt32)
	if err == nil {
		err = l.places.ReleasePlace(ctx, key, from)
	}
	if err != nil {
		l.e.cfg.Logger.Warn("moving a place of a capped definition", "instance_id", to, "definition", key, "err", err)
	}
}

// drop takes instance id out of the count or its queue; a place it held
// goes back to the store at once (the next start may take it as soon as
// the end is seen), and then to the first queued start.
func (l *limiter) drop(id string) {
	l.mu.Lock()
	if q := l.queued[id]; q != nil {
		delete(l.queued, id)
		k := l.keys[q.key]
		k.queue = slices.DeleteFunc(k.queue, func(o *queuedStart) bool { return o == q })
		l.mu.Unlock()
		return
	}
	key, ok := l.counted[id]
	delete(l.counted, id)
	l.mu.Unlock()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), placeTimeout)
	defer cancel()
	if err := l.places.ReleasePlace(ctx, key, id); err != nil {
		// The place stays taken until recovery, or a check, finds its instance ended.
		l.e.cfg.Logger.Error("giving back the place of an ended instance", "instance_id", id, "definition", key, "err", err)
		return
	}
	l.promoteLater(key)
}

// promoteLater gives free places of key to its queued starts, in the
// background.
func (l *limiter) promoteLater(key string) {
	l.e.busy.Add(1)
	go func() {
		defer l.e.done()
		l.promote(key)
	}()
}

// promote gives free places of key to its first queued starts, in order,
// and starts them. One promotion runs per key; a call while it runs makes
// it look once more.
func (l *limiter) promote(key string) {
	l.mu.Lock()
	k := l.key(key)
	if l.recovering {
		l.mu.Unlock()
		return
	}
	if k.promoting {
		k.again = true
		l.mu.Unlock()
		return
	}
	k.promoting = true
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), placeTimeout)
	defer cancel()
	for {
		l.mu.Lock()
		k.again = false
		if len(k.queue) == 0 || !k.queue[0].stored {
			k.promoting = false
			l.mu.Unlock()
			return
		}
		q := k.queue[0]
		l.mu.Unlock()
		ok, err := l.places.TakePlace(ctx, key, q.id, q.max)
		if err != nil {
			l.e.cfg.Logger.Warn("taking a place for a queued instance", "instance_id", q.id, "definition", key, "err", err)
		}
		l.mu.Lock()
		switch {
		case !ok && k.again && err == nil: // a place freed meanwhile
			l.mu.Unlock()
			continue
		case !ok:
			k.promoting = false
			l.mu.Unlock()
			l.poll()
			return
		case len(k.queue) == 0 || k.queue[0] != q: // it left the queue meanwhile (cancelled)
			l.mu.Unlock()
			if err := l.places.ReleasePlace(ctx, key, q.id); err != nil {
				l.e.cfg.Logger.Warn("giving back the place of a cancelled queued instance", "instance_id", q.id, "definition", key, "err", err)
			}
			continue
		}
		k.queue = k.queue[1:]
		delete(l.queued, q.id)
		l.counted[q.id] = key
		l.mu.Unlock()
		l.dequeue(q)
	}
}

// forget drops instance id from this engine's count and queues without
// giving its place back: its partition went to another replica, which
// recovers it and counts it there (holding the same place: places are by
// instance). For the code that drops a lost partition's instances.
func (l *limiter) forget(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.counted, id)
	if q := l.queued[id]; q != nil {
		delete(l.queued, id)
		k := l.keys[q.key]
		k.queue = slices.DeleteFunc(k.queue, func(o *queuedStart) bool { return o == q })
	}
}

// ended gives back the places of the instances whose end the events report,
// once they are stored; a queued instance that was cancelled leaves its queue.
func (l *limiter) ended(events []Event) {
	for i := range events {
		switch events[i].Type {
		case EventInstanceCompleted, EventInstanceFailed, EventInstanceCancelled:
			l.drop(events[i].InstanceID)
		}
	}
}

// dequeue starts a queued instance that got its place. When it cannot (it
// ended, or the store failed), its place goes to the next; one the store
// could not start stays queued in the store, and recovery queues it again.
func (l *limiter) dequeue(q *queuedStart) {
	_, err := l.e.call(l.e.ctx, command{kind: cmdDequeue, inst: q.id})
	if err == nil || errors.Is(err, ErrClosed) || errors.Is(err, ErrInvalidState) {
		return // started (or, invalid state, started already); closing: recovery starts it
	}
	if errors.As(err, new(*NotOwnerError)) {
		l.forget(q.id)
		return
	}
	l.e.cfg.Logger.Error("starting a queued instance", "instance_id", q.id, "definition", q.key, "err", err)
	l.drop(q.id)
}

// poll arms, on a replica of a cluster, a look for the places other
// replicas free, while this one has queued starts.
func (l *limiter) poll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.shared || l.polling {
		return
	}
	l.polling = true
	l.e.clock.AfterFunc(placePoll, l.look)
}

// look gives back places whose instance ended without giving them back,
// and gives places other replicas freed to the queued starts.
func (l *limiter) look() {
	if l.e.ctx.Err() != nil {
		return // closed
	}
	l.mu.Lock()
	l.polling = false
	var keys []string
	for key, k := range l.keys {
		if len(k.queue) > 0 {
			keys = append(keys, key)
		}
	}
	l.mu.Unlock()
	l.checkPlaces(keys)
	for _, key := range keys {
		l.promoteLater(key)
	}
}

// checkPlaces gives back the places of keys that other replicas'
// instances hold although they ended, or that no stored instance has held
// for staleStart (a start that failed, or crashed, after taking its place):
// a crash kept them from giving them back.
func (l *limiter) checkPlaces(keys []string) {
	ctx, cancel := context.WithTimeout(context.Background(), placeTimeout)
	defer cancel()
	places, err := l.places.Places(ctx)
	if err != nil {
		l.e.cfg.Logger.Warn("checking the places of capped definitions", "err", err)
		return
	}
	now := l.e.clock.Now()
	missing := map[string]time.Time{}
	for _, key := range keys {
		for _, id := range places[key] {
			l.mu.Lock()
			_, mine := l.counted[id]
			mine = mine || l.taking[id]
			since, was := l.missing[id]
			l.mu.Unlock()
			if mine {
				continue
			}
			snap, err := l.e.store.Instance(ctx, id)
			switch {
			case errors.Is(err, ErrNotFound):
				if !was {
					since = now
				}
				if now.Sub(since) < staleStart {
					missing[id] = since
					continue
				}
			case err != nil || !snap.Status.Done():
				continue
			}
			if err := l.places.ReleasePlace(ctx, key, id); err != nil {
				l.e.cfg.Logger.Warn("giving back a stale place", "instance_id", id, "definition", key, "err", err)
			}
		}
	}
	l.mu.Lock()
	l.missing = missing
	l.mu.Unlock()
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

// endRecovery puts the rebuilt queues in arrival order, makes the stored
// places agree with the instances found, and starts what has a place (an
// end stored before a crash whose queued start was not).
func (l *limiter) endRecovery() {
	l.mu.Lock()
	l.recovering = false
	keys := make([]string, 0, len(l.keys))
	for key, k := range l.keys {
		slices.SortFunc(k.queue, func(a, b *queuedStart) int { return cmp.Compare(a.pos, b.pos) })
		keys = append(keys, key)
	}
	l.mu.Unlock()
	if err := l.reconcile(); err != nil {
		l.e.cfg.Logger.Error("counting the places of capped definitions at recovery", "err", err)
	}
	for _, key := range keys {
		l.promoteLater(key)
	}
}

// reconcile gives every running instance found its place (one a crash, or
// an older version that counted in memory, left without), and, on an
// engine alone on its store, gives back every place no running instance
// holds any more (its end was stored, the release was not).
func (l *limiter) reconcile() error {
	ctx, cancel := context.WithTimeout(context.Background(), placeTimeout)
	defer cancel()
	places, err := l.places.Places(ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	counted := maps.Clone(l.counted)
	l.mu.Unlock()
	for id, key := range counted {
		if !slices.Contains(places[key], id) {
			if _, err := l.places.TakePlace(ctx, key, id, math.MaxInt32); err != nil {
				return err
			}
		}
	}
	if l.shared {
		return nil // other replicas' instances hold places too: checkPlaces looks at them
	}
	for key, ids := range places {
		for _, id := range ids {
			l.mu.Lock()
			_, held := l.counted[id] // now, not as cloned: a start may have taken it since
			held = held || l.taking[id]
			l.mu.Unlock()
			if held {
				continue
			}
			if err := l.places.ReleasePlace(ctx, key, id); err != nil {
				return err
			}
		}
	}
	return nil
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
