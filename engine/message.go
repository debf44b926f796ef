package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/google/uuid"
	"github.com/workflowpp/wfpp/engine/model"
)

// Message is a message sent to the engine, matched by name and correlation key.
type Message struct {
	Name           string         `json:"name"`
	CorrelationKey string         `json:"correlationKey"`
	Variables      map[string]any `json:"variables"`
	// InstanceID, when set, matches only that instance, by name, and by key
	// only when CorrelationKey is set too.
	InstanceID string `json:"instanceId,omitempty"`
}

// messageSub is an open message subscription as the index knows it.
type messageSub struct {
	name, key string
	inst      string
	sub       uint64
}

// messageIndex finds the subscriptions a message matches, across partitions.
// It holds one entry per waiting subscription (an event sub-process armed in
// 100,000 waiting instances is 100,000 entries), so an entry keeps only what
// its key does not say.
type messageIndex struct {
	mu   sync.Mutex
	subs map[string][]indexEntry // by name + "\x00" + key
}

// indexEntry is a subscription of the name and key it is filed under. The
// instance id is kept as the 16 bytes of its UUID, so that the entry does
// not hold on to the id's text (which a parked instance no longer needs);
// an id that is no UUID is kept as text.
type indexEntry struct {
	id   uuid.UUID
	text string
	sub  uint64
}

func entryOf(s messageSub) indexEntry {
	if id, err := uuid.Parse(s.inst); err == nil && id.String() == s.inst {
		return indexEntry{id: id, sub: s.sub}
	}
	return indexEntry{text: s.inst, sub: s.sub}
}

func (en indexEntry) inst() string {
	if en.text != "" {
		return en.text
	}
	return en.id.String()
}

func newMessageIndex() *messageIndex { return &messageIndex{subs: map[string][]indexEntry{}} }

func (m *messageIndex) add(s messageSub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := s.name + "\x00" + s.key
	m.subs[k] = append(m.subs[k], entryOf(s))
}

func (m *messageIndex) remove(s messageSub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := s.name + "\x00" + s.key
	e := entryOf(s)
	list := slices.DeleteFunc(m.subs[k], func(o indexEntry) bool { return o == e })
	if len(list) == 0 {
		delete(m.subs, k)
		return
	}
	m.subs[k] = list
}

// dropWhere removes the subscriptions of the instances mine picks (those of
// a partition this replica lost).
func (m *messageIndex) dropWhere(mine func(inst string) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, list := range m.subs {
		list = slices.DeleteFunc(list, func(en indexEntry) bool { return mine(en.inst()) })
		if len(list) == 0 {
			delete(m.subs, k)
			continue
		}
		m.subs[k] = list
	}
}

// candidates returns the subscriptions for name and key, at most one per instance.
func (m *messageIndex) candidates(name, key string) []messageSub {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []messageSub
	seen := map[string]bool{}
	for _, s := range m.subs[name+"\x00"+key] {
		if inst := s.inst(); !seen[inst] {
			seen[inst] = true
			out = append(out, messageSub{name: name, key: key, inst: inst, sub: s.sub})
		}
	}
	return out
}

// all returns every subscription of a name without correlation key (the
// signal subscriptions).
func (m *messageIndex) all(name string) []messageSub {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.subs[name+"\x00"]
	out := make([]messageSub, len(list))
	for i, s := range list {
		out[i] = messageSub{name: name, inst: s.inst(), sub: s.sub}
	}
	return out
}

// Correlate delivers a message to every instance waiting for it (one
// subscription each), on this replica and on the others (Config.Peers), and
// returns how many took it. When none waits, a deployed definition with a
// message start event of that name is started instead. It returns
// ErrNotFound when the message went nowhere.
func (e *Engine) Correlate(ctx context.Context, m Message) (int, error) {
	n, err := e.CorrelateHere(ctx, m)
	if err != nil || m.InstanceID != "" {
		return n, err
	}
	if e.cfg.Peers != nil {
		more, err := e.cfg.Peers.Correlate(ctx, m)
		if n += more; err != nil {
			return n, err
		}
	}
	if n > 0 {
		return n, nil
	}
	started, err := e.startByEvent(ctx, model.TriggerMessage, m.Name, m.Variables, m.CorrelationKey)
	if err != nil {
		return 0, err
	}
	if started == 0 {
		return 0, fmt.Errorf("no instance waits for message %q with correlation key %q: %w", m.Name, m.CorrelationKey, ErrNotFound)
	}
	return started, nil
}

// CorrelateHere delivers m to the instances of the partitions this replica
// holds that wait for it, and returns how many took it; it starts nothing.
// Another replica's Peers.Correlate arrives here.
func (e *Engine) CorrelateHere(ctx context.Context, m Message) (int, error) {
	if m.Name == "" {
		return 0, fmt.Errorf("message has no name: %w", ErrInvalidInput)
	}
	if err := e.checkVariables(m.Variables); err != nil {
		return 0, err
	}
	if m.InstanceID != "" {
		_, err := e.call(ctx, command{kind: cmdMessage, inst: m.InstanceID, name: m.Name, key: m.CorrelationKey, vars: m.Variables, user: "any"})
		if err != nil {
			return 0, err
		}
		return 1, nil
	}
	n := 0
	for _, s := range e.messages.candidates(m.Name, m.CorrelationKey) {
		_, err := e.call(ctx, command{kind: cmdMessage, inst: s.inst, sub: s.sub, vars: m.Variables})
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrNotFound), errors.Is(err, ErrInstanceEnded), isNotOwner(err):
			// the subscription closed meanwhile
		default:
			return n, err
		}
	}
	return n, nil
}

// messageArrived moves the token whose subscription a message matched.
// Trigger moves what waits at element elementID of an instance, by its id:
// a message or signal catch event, a receive task or an event boundary —
// those that name no message or signal can be moved no other way. It is the
// BPMN way to trigger an event "by its element id through the API".
func (e *Engine) Trigger(ctx context.Context, instanceID, elementID string, vars map[string]any) (*Snapshot, error) {
	if elementID == "" {
		return nil, fmt.Errorf("trigger names no element: %w", ErrInvalidInput)
	}
	if err := e.checkVariables(vars); err != nil {
		return nil, err
	}
	return e.control(ctx, command{kind: cmdTrigger, inst: instanceID, target: elementID, vars: vars})
}

// triggered moves the catch waiting at c.target.
func (x *instance) triggered(c command) error {
	for _, s := range x.subs {
		if s.ElementID != c.target || s.Timer != nil {
			continue
		}
		t := x.token(s.Token)
		if t == nil {
			continue
		}
		n := x.proc.Node(s.ElementID)
		x.emit(EventTriggered, n, t, map[string]any{"variables": keys(c.vars)})
		x.trigger(t, s, n, c.vars)
		return nil
	}
	return fmt.Errorf("instance %s waits for no message or signal at %q: %w", x.id, c.target, ErrNotFound)
}

func (x *instance) messageArrived(c command) error {
	s := x.subscription(c.sub)
	if c.sub == 0 { // by name within this instance
		for _, o := range x.subs {
			if o.Message == c.name && (c.key == "" || o.CorrelationKey == c.key) {
				s = o
				break
			}
		}
	}
	if s == nil {
		return fmt.Errorf("no subscription for the message in instance %s: %w", x.id, ErrNotFound)
	}
	t := x.token(s.Token)
	if t == nil {
		return fmt.Errorf("no token for the subscription in instance %s: %w", x.id, ErrNotFound)
	}
	n := x.proc.Node(s.ElementID)
	x.emit(EventMessageCorrelated, n, t, map[string]any{"message": s.Message, "correlationKey": s.CorrelationKey, "variables": keys(c.vars)})
	x.trigger(t, s, n, c.vars)
	return nil
}
