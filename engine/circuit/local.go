package circuit

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/workflowpp/wfpp/engine/clock"
	"github.com/workflowpp/wfpp/engine/model"
)

// Local keeps the breakers in the process. A closed breaker admits a call
// with two atomic loads (the map's and its own) and records it under a
// mutex held for a few field updates; only the other states read the
// clock to admit. It never fails.
type Local struct {
	clock clock.Clock
	m     sync.Map // key → *localBreaker
}

var _ Store = (*Local)(nil)

type localBreaker struct {
	// closedGen is gen+1 while the breaker is closed, 0 otherwise: Allow
	// reads it without the lock.
	closedGen atomic.Uint64
	mu        sync.Mutex
	b         breaker
}

// publish makes the breaker's state visible to Allow's lock-free path; mu held.
func (e *localBreaker) publish() {
	if e.b.state == Closed {
		e.closedGen.Store(e.b.gen + 1)
	} else {
		e.closedGen.Store(0)
	}
}

// NewLocal returns an empty in-process store on c (the engine's clock).
func NewLocal(c clock.Clock) *Local { return &Local{clock: c} }

func (l *Local) entry(key string) *localBreaker {
	if v, ok := l.m.Load(key); ok {
		return v.(*localBreaker)
	}
	e := &localBreaker{}
	e.closedGen.Store(1)
	v, _ := l.m.LoadOrStore(key, e)
	return v.(*localBreaker)
}

func (l *Local) Allow(_ context.Context, key string, p model.CircuitPolicy) (Decision, error) {
	e := l.entry(key)
	if g := e.closedGen.Load(); g != 0 {
		return Decision{Allowed: true, Ticket: Ticket{Key: key, Gen: g - 1, local: e}}, nil
	}
	now := l.clock.Now()
	e.mu.Lock()
	d := e.b.allow(key, p, now)
	e.publish()
	e.mu.Unlock()
	d.Ticket.local = e
	return d, nil
}

func (l *Local) Record(_ context.Context, t Ticket, p model.CircuitPolicy, failed bool) (Change, error) {
	e := t.local
	if e == nil {
		e = l.entry(t.Key)
	}
	now := l.clock.Now()
	e.mu.Lock()
	ch := e.b.record(t.Key, p, t.Gen, failed, now)
	e.publish()
	e.mu.Unlock()
	return ch, nil
}

func (l *Local) Statuses(context.Context) ([]Status, error) {
	now := l.clock.Now()
	var out []Status
	l.m.Range(func(k, v any) bool {
		e := v.(*localBreaker)
		e.mu.Lock()
		out = append(out, e.b.status(k.(string), now))
		e.mu.Unlock()
		return true
	})
	return out, nil
}

func (l *Local) Reset(_ context.Context, key string) (Change, error) {
	v, ok := l.m.Load(key)
	if !ok {
		return Change{}, ErrNotFound
	}
	e := v.(*localBreaker)
	now := l.clock.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	ch := e.b.reset(key, now)
	e.publish()
	return ch, nil
}
