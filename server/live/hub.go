package live

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

const (
	// hubPendingMax bounds the batches waiting for the hub's worker. Past it
	// the hub drops input and disconnects every client with 1013, so that
	// none sees a gap: they reconnect with since.
	hubPendingMax = 1 << 16
	// defCacheMax bounds the instance → definition key cache.
	defCacheMax   = 1 << 18
	lookupTimeout = 5 * time.Second
)

// Hub fans the engine's events out to WebSocket clients. It subscribes once
// to its EventSource and never blocks it: the source's callback only queues
// the batch; a worker goroutine finds the clients by instance id and
// definition key and queues one shared frame per event on each, without
// waiting. A client whose queue is full is disconnected. Task events for
// inbox subscribers go through a second worker, which loads the task from
// the store.
type Hub struct {
	src    EventSource
	store  engine.Queries
	log    *slog.Logger
	cfg    Config
	access Access // who may subscribe to what

	active   atomic.Int32             // connected clients
	interest atomic.Pointer[interest] // what the clients subscribe to; nil: nothing
	defOf    sync.Map                 // instance id → definition key, while someone watches a definition
	defCount atomic.Int64

	inMu   sync.Mutex
	in     [][]engine.Event
	spare  [][]engine.Event // the worker's: swapped with in
	inLost bool
	wake   chan struct{}

	taskMu   sync.Mutex
	tasks    []taskNote
	taskWake chan struct{}

	mu           sync.Mutex
	started      bool
	closed       bool
	unsubscribe  func()
	clients      map[*client]struct{}
	byInstance   map[string]map[*client]*instanceSub
	byDefinition map[string]map[*client]struct{}
	inbox        map[*client]struct{}
	circuits     map[*client]struct{}
	gen          uint64 // numbers fan-outs, to send an event once to a client subscribed twice

	delivered atomic.Uint64
	evicted   atomic.Uint64

	done  chan struct{}
	wg    sync.WaitGroup // the workers
	conns sync.WaitGroup // the clients' handlers
}

// instanceSub is one client's subscription to one instance.
type instanceSub struct {
	replaying bool           // since was given: live events wait in buf until the store's are sent
	buf       []engine.Event // live events that came during the replay
	last      uint64         // the highest seq sent
}

type taskNote struct {
	id     string
	change string
}

// HubStats counts what a Hub did.
type HubStats struct {
	Clients   int    // connected now
	Delivered uint64 // frames queued to clients by fan-out
	Evicted   uint64 // clients disconnected for being too slow
}

// Access decides whether a user may follow an instance or every instance of
// a definition: the server's read rule (see access.go). A nil error allows.
type Access struct {
	Instance   func(ctx context.Context, v Viewer, id string) error
	Definition func(ctx context.Context, v Viewer, key string) error
}

// New returns a hub that fans src's events out to the clients Serve runs,
// reading stored events and tasks from store, and asking access who may
// follow what.
func New(src EventSource, store engine.Queries, log *slog.Logger, cfg Config, access Access) *Hub {
	return &Hub{
		src: src, store: store, log: log, cfg: cfg, access: access,
		wake: make(chan struct{}, 1), taskWake: make(chan struct{}, 1),
		clients:      map[*client]struct{}{},
		byInstance:   map[string]map[*client]*instanceSub{},
		byDefinition: map[string]map[*client]struct{}{},
		inbox:        map[*client]struct{}{},
		circuits:     map[*client]struct{}{},
		done:         make(chan struct{}),
	}
}

// Stats returns the hub's counters.
func (h *Hub) Stats() HubStats {
	return HubStats{Clients: int(h.active.Load()), Delivered: h.delivered.Load(), Evicted: h.evicted.Load()}
}

// startLocked subscribes to the source and starts the workers, on the
// first client: a server that never serves /ws starts nothing.
func (h *Hub) startLocked() {
	if h.started {
		return
	}
	h.started = true
	h.wg.Add(2)
	go func() { defer h.wg.Done(); h.run() }()
	go func() { defer h.wg.Done(); h.runInbox() }()
	h.unsubscribe = h.src.Subscribe(h.enqueue)
}

// Close disconnects every client with 1001, stops the workers and
// unsubscribes. It waits up to ctx for the clients' handlers.
func (h *Hub) Close(ctx context.Context) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	unsubscribe := h.unsubscribe
	clients := make([]*client, 0, len(h.clients))
	for c := range h.clients {
		clients = append(clients, c)
	}
	h.mu.Unlock()
	if unsubscribe != nil {
		unsubscribe()
	}
	close(h.done)
	h.wg.Wait()
	for _, c := range clients {
		c.stop(closeGoingAway, "server shutting down")
	}
	waited := make(chan struct{})
	go func() { h.conns.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		h.log.Warn("websocket clients did not stop in time", "clients", h.active.Load())
	}
}

// interest is what the clients subscribe to, for enqueue to drop what
// nobody watches without taking a lock. It is replaced, never changed.
type interest struct {
	instances map[string]struct{}
	defs      map[string]struct{}
	inbox     bool
	circuits  bool
}

// updateInterestLocked publishes the subscriptions after a change.
func (h *Hub) updateInterestLocked() {
	if len(h.byInstance) == 0 && len(h.byDefinition) == 0 && len(h.inbox) == 0 && len(h.circuits) == 0 {
		h.interest.Store(nil)
		return
	}
	in := &interest{
		instances: make(map[string]struct{}, len(h.byInstance)), defs: make(map[string]struct{}, len(h.byDefinition)),
		inbox: len(h.inbox) > 0, circuits: len(h.circuits) > 0,
	}
	for id := range h.byInstance {
		in.instances[id] = struct{}{}
	}
	for key := range h.byDefinition {
		in.defs[key] = struct{}{}
	}
	h.interest.Store(in)
}

// relevant reports whether someone may want events of the batch; it
// learns instances' definitions from their start events on the way.
func (h *Hub) relevant(in *interest, evs []engine.Event) bool {
	want := false
	for i := range evs {
		ev := &evs[i]
		if ev.InstanceID == "" { // of no instance: a circuit breaker's
			want = want || in.circuits && isCircuitEvent(ev)
			continue
		}
		if _, ok := in.instances[ev.InstanceID]; ok {
			want = true
		}
		if in.inbox {
			if _, ok := taskChange(ev.Type); ok {
				want = true
			}
		}
		if len(in.defs) == 0 {
			continue
		}
		def := eventDefinition(ev)
		switch {
		case def != "":
			if ev.Type == engine.EventInstanceStarted && h.defCount.Add(1) < defCacheMax {
				h.defOf.Store(ev.InstanceID, def)
			}
		default:
			v, ok := h.defOf.Load(ev.InstanceID)
			if !ok {
				want = true // the worker looks it up
				continue
			}
			def = v.(string)
		}
		if _, ok := in.defs[def]; ok {
			want = true
		}
		switch ev.Type {
		case engine.EventInstanceCompleted, engine.EventInstanceCancelled, engine.EventInstanceFailed:
			if _, ok := h.defOf.LoadAndDelete(ev.InstanceID); ok {
				h.defCount.Add(-1)
			}
		}
	}
	return want
}

// eventDefinition returns the definition key an event names, if any.
func eventDefinition(ev *engine.Event) string {
	if d := ev.DefinitionID; d != "" {
		if j := strings.LastIndexByte(d, ':'); j > 0 {
			return d[:j]
		}
		return d
	}
	return ev.StartedDefinition()
}

// enqueue is the source's callback: it drops what nobody watches, copies
// the rest (the engine reuses it) and wakes the worker. It never waits.
func (h *Hub) enqueue(events []engine.Event) {
	in := h.interest.Load()
	if len(events) == 0 || in == nil || !h.relevant(in, events) {
		return
	}
	cp := slices.Clone(events)
	h.inMu.Lock()
	if len(h.in) >= hubPendingMax {
		h.inLost = true
	} else {
		h.in = append(h.in, cp)
	}
	h.inMu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *Hub) run() {
	for {
		select {
		case <-h.wake:
		case <-h.done:
			return
		}
		h.inMu.Lock()
		batches, lost := h.in, h.inLost
		h.in, h.inLost = h.spare, false
		h.inMu.Unlock()
		if lost {
			h.dropAll(closeTryAgainLtr, "server fell behind and lost events: reconnect with since")
		}
		for i, evs := range batches {
			h.dispatch(evs)
			batches[i] = nil
		}
		h.spare = batches[:0]
	}
}

// dispatch fans out a batch, one instance's run of events at a time.
func (h *Hub) dispatch(evs []engine.Event) {
	for len(evs) > 0 {
		id, n := evs[0].InstanceID, 1
		for n < len(evs) && evs[n].InstanceID == id {
			n++
		}
		if id == "" {
			h.dispatchCircuits(evs[:n])
		} else {
			h.dispatchInstance(id, evs[:n])
		}
		evs = evs[n:]
	}
}

func (h *Hub) dispatchInstance(id string, evs []engine.Event) {
	def := h.definitionOf(id, evs)
	h.mu.Lock()
	defer h.mu.Unlock()
	subsI, subsD := h.byInstance[id], h.byDefinition[def]
	inbox := len(h.inbox) > 0
	for i := range evs {
		ev := &evs[i]
		if inbox {
			if change, ok := taskChange(ev.Type); ok {
				if d, ok := ev.Task(); ok {
					h.noteTask(taskNote{id: d.TaskID, change: change})
				}
			}
		}
		if len(subsI) == 0 && len(subsD) == 0 {
			continue
		}
		if ev.Transient() {
			h.sendTransientLocked(subsI, ev)
			continue
		}
		f := eventFrame(ev)
		h.gen++
		for c, sub := range subsI {
			c.mark = h.gen // the instance subscription decides, not the definition one
			switch {
			case c.dead:
			case sub.replaying:
				if len(sub.buf) >= h.cfg.SendBuffer {
					h.evictLocked(c, closeTryAgainLtr, "too many events during the replay: reconnect with since")
					continue
				}
				sub.buf = append(sub.buf, *ev)
			case ev.Seq > sub.last:
				sub.last = ev.Seq
				h.sendLocked(c, f)
			}
		}
		for c := range subsD {
			if c.mark != h.gen && !c.dead {
				h.sendLocked(c, f)
			}
		}
	}
}

// sendTransientLocked sends a transient event (progress: no seq, not in the
// log) to the instance's followers; one still replaying gets it after the
// replay, unless its buffer is full: a transient event is not worth a
// disconnect, the next one or the instance's GET tells the same. Followers
// of a whole definition do not get it: progress is for the monitor of one
// instance.
func (h *Hub) sendTransientLocked(subs map[*client]*instanceSub, ev *engine.Event) {
	if len(subs) == 0 {
		return
	}
	f := eventFrame(ev)
	for c, sub := range subs {
		switch {
		case c.dead:
		case sub.replaying:
			if len(sub.buf) < h.cfg.SendBuffer {
				sub.buf = append(sub.buf, *ev)
			}
		default:
			h.sendLocked(c, f)
		}
	}
}

// definitionOf returns the definition key of an instance: from the events,
// the cache, or the store; "" when nobody watches a definition.
func (h *Hub) definitionOf(id string, evs []engine.Event) string {
	for i := range evs {
		if d := eventDefinition(&evs[i]); d != "" {
			return d
		}
	}
	if v, ok := h.defOf.Load(id); ok {
		return v.(string)
	}
	if in := h.interest.Load(); in == nil || len(in.defs) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	snap, err := h.store.Instance(ctx, id)
	cancel()
	if err != nil {
		h.log.Warn("websocket hub: loading an instance to find its definition", "instance_id", id, "err", err)
		return ""
	}
	if !snap.Status.Done() && h.defCount.Add(1) < defCacheMax {
		h.defOf.Store(id, snap.DefinitionKey)
	}
	return snap.DefinitionKey
}

func taskChange(t engine.EventType) (string, bool) {
	switch t {
	case engine.EventTaskCreated:
		return "created", true
	case engine.EventTaskClaimed:
		return "claimed", true
	case engine.EventTaskReleased:
		return "released", true
	case engine.EventTaskDelegated:
		return "delegated", true
	case engine.EventTaskCommented:
		return "commented", true
	case engine.EventTaskDenied:
		return "denied", true
	case engine.EventTaskDone:
		return "completed", true
	case engine.EventTaskCanceled:
		return "cancelled", true
	}
	return "", false
}

func (h *Hub) noteTask(n taskNote) {
	h.taskMu.Lock()
	h.tasks = append(h.tasks, n)
	h.taskMu.Unlock()
	select {
	case h.taskWake <- struct{}{}:
	default:
	}
}

// runInbox loads the tasks that changed and tells the inbox subscribers
// who may see them.
func (h *Hub) runInbox() {
	for {
		select {
		case <-h.taskWake:
		case <-h.done:
			return
		}
		h.taskMu.Lock()
		notes := h.tasks
		h.tasks = nil
		h.taskMu.Unlock()
		for _, n := range notes {
			ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
			task, err := h.store.Task(ctx, n.id)
			cancel()
			if err != nil {
				h.log.Warn("websocket hub: loading a task for the inbox", "task_id", n.id, "err", err)
				continue
			}
			f := textFrame(taskMsg{Type: "task", Change: n.change, Task: &task})
			h.mu.Lock()
			for c := range h.inbox {
				if !c.dead && c.viewer != nil && c.viewer.HearsTask(&task, n.change) {
					h.sendLocked(c, f)
				}
			}
			h.mu.Unlock()
		}
	}
}

// Viewer is who a client is. The hub asks it which inbox task events it
// hears, and hands it to Access for subscriptions.
type Viewer interface {
	// HearsTask reports whether the viewer hears of this change of t.
	HearsTask(t *engine.Task, change string) bool
}

// sendLocked queues f for c without waiting; a full queue disconnects c.
func (h *Hub) sendLocked(c *client, f []byte) {
	select {
	case c.out <- f:
		h.delivered.Add(1)
	default:
		h.evictLocked(c, closePolicy, "client too slow: send buffer full; reconnect with since")
	}
}

func (h *Hub) evict(c *client, code int, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.evictLocked(c, code, reason)
}

func (h *Hub) evictLocked(c *client, code int, reason string) {
	if c.dead {
		return
	}
	c.dead = true
	h.evicted.Add(1)
	h.log.Info("websocket client disconnected", "viewer", fmt.Sprint(c.viewer), "code", code, "reason", reason)
	c.stop(code, reason)
}

func (h *Hub) dropAll(code int, reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		h.evictLocked(c, code, reason)
	}
}
