package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// MessageBufferDefault is how many messages may wait for a subscriber.
const MessageBufferDefault = 10_000

// ErrBufferFull is what Publish returns when MessageBuffer messages wait
// already; it is an ErrUnavailable: try again later.
var ErrBufferFull = fmt.Errorf("the message buffer is full: retry later or send without a TTL: %w", ErrUnavailable)

// Publication is what became of a published message.
type Publication struct {
	Correlated int       // instances it reached now
	Buffered   bool      // none waited: it is kept until Expires
	Expires    time.Time // on the engine's clock
}

// BufferedMessage is a message Publish keeps in the store until an
// instance subscribes to it or it expires.
type BufferedMessage struct {
	ID             string         `json:"id" bson:"_id"`
	Name           string         `json:"name" bson:"name"`
	CorrelationKey string         `json:"correlationKey" bson:"correlation_key"`
	Variables      map[string]any `json:"variables,omitempty" bson:"variables,omitempty"`
	Published      time.Time      `json:"publishedAt" bson:"published_at"`
	Expires        time.Time      `json:"expiresAt" bson:"expires_at"`
}

func (m BufferedMessage) message() Message {
	return Message{Name: m.Name, CorrelationKey: m.CorrelationKey, Variables: m.Variables}
}

// MessageStore keeps the messages Publish buffers, so that a restart keeps
// them and every replica of a cluster sees them. Every store of this module
// implements it (memstore; mongostore: the messages collection). Expiry is
// judged by the engine's clock (now), not the store's.
type MessageStore interface {
	// BufferMessage stores m; ErrDuplicate when its id is taken.
	BufferMessage(ctx context.Context, m BufferedMessage) error
	// BufferedMessages lists the messages f selects that have not expired
	// at now, oldest first, at most limit (0: no limit).
	BufferedMessages(ctx context.Context, f MessageFilter, now time.Time, limit int) ([]BufferedMessage, error)
	// CountBufferedMessages counts the messages that have not expired at now.
	CountBufferedMessages(ctx context.Context, now time.Time) (int, error)
	// TakeBufferedMessage removes message id in one single-document delete:
	// of callers taking the same message, one gets nil and the others
	// ErrNotFound.
	TakeBufferedMessage(ctx context.Context, id string) error
	// ExpireBufferedMessages removes the messages expired at now and says
	// how many.
	ExpireBufferedMessages(ctx context.Context, now time.Time) (int, error)
}

// MessageFilter selects buffered messages: those of Name with correlation
// key CorrelationKey (which may be empty: messages sent without one), or
// every one when Name is empty.
type MessageFilter struct {
	Name           string
	CorrelationKey string
}

// Matches reports whether f selects m.
func (f MessageFilter) Matches(m BufferedMessage) bool {
	return f.Name == "" || m.Name == f.Name && m.CorrelationKey == f.CorrelationKey
}

// Publish correlates m like Correlate. When nothing waits for it and ttl is
// positive, the engine keeps it in the store (MessageStore) and delivers it
// to the first instance that opens a matching subscription before ttl
// passes, on any replica, once; at ttl it is dropped. A restart keeps it.
func (e *Engine) Publish(ctx context.Context, m Message, ttl time.Duration) (Publication, error) {
	if ttl > 0 && m.InstanceID != "" {
		return Publication{}, fmt.Errorf("a message for one instance (%s) is not buffered: send it without a TTL: %w", m.InstanceID, ErrInvalidInput)
	}
	n, err := e.Correlate(ctx, m)
	if err == nil || !errors.Is(err, ErrNotFound) || ttl <= 0 {
		return Publication{Correlated: n}, err
	}
	return e.buffer.add(ctx, m, ttl)
}

// messageBuffer delivers the messages Publish keeps in the store. Each time
// instances open message subscriptions (once they are in the index, see
// effects.run) it looks in the store for messages of their names and keys; a
// message just stored is tried once more against the subscriptions open
// then. As the index is written before the store is read, and the store
// before the index is read, one of the two sees the other: a subscription
// opened while a message is buffered does not miss it.
//
// A message is delivered once: it is taken out of the store (a
// single-document delete that one caller wins, on whatever replica) before
// it is correlated, and stored again when nothing took it. A crash between
// the two loses that message; nothing else does.
//
// Its goroutine starts with the first publication or subscription, and
// Close joins it.
type messageBuffer struct {
	e     *Engine
	store MessageStore // nil: the store keeps none, and Publish buffers nothing
	max   int
	// shared: other replicas buffer messages into the same store
	// (Config.Cluster), so the store is read whatever this engine stored,
	// and swept every bufferSweep for the subscriptions a race left waiting.
	shared bool

	mu sync.Mutex
	// mayHold: the store may hold messages (not shared: once it held none,
	// only this engine's writes, counted by stored, add some).
	mayHold bool
	stored  uint64                 // writes of messages into the store
	fresh   map[MessageFilter]bool // names and keys of the subscriptions opened since the last look
	running bool
	closed  bool
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// bufferSweep is how often a replica of a cluster matches every buffered
// message against its subscriptions.
const bufferSweep = time.Second

// deliverTimeout bounds one look into the store, with its deliveries.
const deliverTimeout = 10 * time.Second

func newMessageBuffer(e *Engine, max int) *messageBuffer {
	ms, _ := e.cfg.Store.(MessageStore)
	return &messageBuffer{
		e: e, store: ms, max: max, shared: e.cfg.Cluster != nil, mayHold: true,
		fresh: map[MessageFilter]bool{}, wake: make(chan struct{}, 1), stop: make(chan struct{}),
	}
}

// add stores m until ttl passes, then tries it once against the
// subscriptions open now (opened since the caller's attempt).
func (b *messageBuffer) add(ctx context.Context, m Message, ttl time.Duration) (Publication, error) {
	if b.store == nil {
		return Publication{}, fmt.Errorf("the store keeps no buffered messages: send the message without a TTL: %w", ErrUnavailable)
	}
	if err := b.ensureRunning(); err != nil {
		return Publication{}, err
	}
	now := b.e.clock.Now()
	if err := b.expire(ctx, now); err != nil { // what expired makes room now
		return Publication{}, err
	}
	n, err := b.store.CountBufferedMessages(ctx, now)
	if err != nil {
		return Publication{}, fmt.Errorf("counting buffered messages: %w", err)
	}
	if n >= b.max {
		return Publication{}, ErrBufferFull
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Publication{}, fmt.Errorf("buffering message %q: %w", m.Name, err)
	}
	bm := BufferedMessage{ID: id.String(), Name: m.Name, CorrelationKey: m.CorrelationKey, Variables: m.Variables, Published: now, Expires: now.Add(ttl)}
	if err := b.store.BufferMessage(ctx, bm); err != nil {
		return Publication{}, fmt.Errorf("buffering message %q: %w", m.Name, err)
	}
	b.wrote()
	if b.e.cfg.Peers != nil || len(b.e.messages.candidates(m.Name, m.CorrelationKey)) > 0 {
		if n := b.deliver(ctx, bm, true); n > 0 {
			return Publication{Correlated: n}, nil
		}
	}
	return Publication{Buffered: true, Expires: bm.Expires}, nil
}

// opened tells the buffer that subs are in the index now: kept messages
// may match them.
func (b *messageBuffer) opened(subs []messageSub) {
	if b.store == nil {
		return
	}
	b.mu.Lock()
	for _, s := range subs {
		if !strings.HasPrefix(s.name, "\x00") { // signals are not buffered
			b.fresh[MessageFilter{Name: s.name, CorrelationKey: s.key}] = true
		}
	}
	pending := len(b.fresh) > 0
	b.mu.Unlock()
	if pending && b.ensureRunning() == nil {
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
}

// ensureRunning starts the goroutine once.
func (b *messageBuffer) ensureRunning() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return ErrClosed
	case !b.running:
		b.running = true
		b.done = make(chan struct{})
		go b.run()
	}
	return nil
}

func (b *messageBuffer) run() {
	defer close(b.done)
	var sweep <-chan time.Time
	if b.shared {
		t := time.NewTicker(bufferSweep)
		defer t.Stop()
		sweep = t.C
	}
	for {
		select {
		case <-b.stop:
			return
		case <-b.wake:
			b.mu.Lock()
			fresh := b.fresh
			b.fresh = map[MessageFilter]bool{}
			b.mu.Unlock()
			for f := range fresh {
				b.look(f)
			}
		case <-sweep:
			b.look(MessageFilter{})
		}
	}
}

// look delivers the stored messages f selects that subscriptions of this
// engine wait for.
func (b *messageBuffer) look(f MessageFilter) {
	ctx, cancel := context.WithTimeout(context.Background(), deliverTimeout)
	defer cancel()
	now := b.e.clock.Now()
	if !b.shared && !b.mayHoldAny(ctx, now) {
		return
	}
	if f.Name == "" {
		if err := b.expire(ctx, now); err != nil {
			b.e.cfg.Logger.Warn("expiring buffered messages", "err", err)
		}
	}
	msgs, err := b.store.BufferedMessages(ctx, f, now, b.max)
	if err != nil {
		b.e.cfg.Logger.Warn("reading buffered messages", "message", f.Name, "correlation_key", f.CorrelationKey, "err", err)
		return
	}
	for _, m := range msgs {
		if len(b.e.messages.candidates(m.Name, m.CorrelationKey)) > 0 {
			b.deliver(ctx, m, false)
		}
	}
}

// mayHoldAny reports whether the store may hold messages; once it finds
// none, it answers without reading the store until this engine writes one.
// Only for an engine alone on its store.
func (b *messageBuffer) mayHoldAny(ctx context.Context, now time.Time) bool {
	b.mu.Lock()
	may, gen := b.mayHold, b.stored
	b.mu.Unlock()
	if !may {
		return false
	}
	if err := b.expire(ctx, now); err != nil {
		b.e.cfg.Logger.Warn("expiring buffered messages", "err", err)
		return true
	}
	n, err := b.store.CountBufferedMessages(ctx, now)
	if err != nil || n > 0 {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stored == gen { // no message was written while it counted
		b.mayHold = false
	}
	return b.mayHold
}

// wrote notes a message written into the store.
func (b *messageBuffer) wrote() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stored++
	b.mayHold = true
}

// deliver takes m out of the store and correlates it here (and with the
// peers when everywhere), and returns how many instances took it; when none
// did, m is stored again.
func (b *messageBuffer) deliver(ctx context.Context, m BufferedMessage, everywhere bool) int {
	if err := b.store.TakeBufferedMessage(ctx, m.ID); err != nil {
		if !errors.Is(err, ErrNotFound) { // ErrNotFound: another attempt took it
			b.e.cfg.Logger.Warn("taking a buffered message", "message", m.Name, "correlation_key", m.CorrelationKey, "err", err)
		}
		return 0
	}
	msg := m.message()
	n, err := b.e.CorrelateHere(ctx, msg)
	if n == 0 && err == nil && everywhere && b.e.cfg.Peers != nil {
		n, err = b.e.cfg.Peers.Correlate(ctx, msg)
	}
	if n > 0 {
		b.e.cfg.Logger.Debug("buffered message delivered", "message", m.Name, "correlation_key", m.CorrelationKey, "correlated", n)
		return n
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		b.e.cfg.Logger.Warn("buffered message not delivered", "message", m.Name, "correlation_key", m.CorrelationKey, "err", err)
	}
	back, cancel := context.WithTimeout(context.WithoutCancel(ctx), deliverTimeout)
	defer cancel()
	if err := b.store.BufferMessage(back, m); err != nil {
		b.e.cfg.Logger.Error("buffered message lost: it could not be stored again", "message", m.Name, "correlation_key", m.CorrelationKey, "err", err)
		return 0
	}
	b.wrote()
	return 0
}

// expire drops what expired at now from the store.
func (b *messageBuffer) expire(ctx context.Context, now time.Time) error {
	if _, err := b.store.ExpireBufferedMessages(ctx, now); err != nil {
		return fmt.Errorf("expiring buffered messages: %w", err)
	}
	return nil
}

// close stops the goroutine and waits for it.
func (b *messageBuffer) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.stop)
	}
	done, running := b.done, b.running
	b.mu.Unlock()
	if running {
		<-done
	}
}
