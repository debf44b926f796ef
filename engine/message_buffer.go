package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
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

// Publish correlates m like Correlate. When nothing waits for it and ttl is
// positive, the engine keeps it and delivers it to the first instance that
// opens a matching subscription before ttl passes, once; then, or at ttl, it
// is dropped. Buffered messages live in this process's memory: a restart
// loses them (the caller was told Buffered, not delivered).
func (e *Engine) Publish(ctx context.Context, m Message, ttl time.Duration) (Publication, error) {
	n, err := e.Correlate(ctx, m)
	if err == nil || !errors.Is(err, ErrNotFound) || ttl <= 0 {
		return Publication{Correlated: n}, err
	}
	exp, err := e.buffer.add(m, ttl)
	if err != nil {
		return Publication{}, err
	}
	return Publication{Buffered: true, Expires: exp}, nil
}

// messageBuffer holds the messages Publish keeps. Each time instances open
// message subscriptions (once they are in the index, see effects.run) it
// tries them again. Its goroutine runs only
// while messages wait, and Close joins it.
type messageBuffer struct {
	e   *Engine
	max int

	mu      sync.Mutex
	items   []*bufferedMessage // oldest first
	seq     uint64
	running bool
	closed  bool
	timer   Timer // the next expiry's wake-up
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

type bufferedMessage struct {
	msg     Message
	expires time.Time
	seq     uint64 // arrival order
}

func newMessageBuffer(e *Engine, max int) *messageBuffer {
	return &messageBuffer{e: e, max: max, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// add keeps m until ttl passes and makes one delivery attempt at once, for
// a subscription opened since the caller's attempt.
func (b *messageBuffer) add(m Message, ttl time.Duration) (time.Time, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.e.clock.Now()
	b.pruneLocked(now) // what expired makes room now, not when the goroutine wakes
	switch {
	case b.closed:
		return time.Time{}, ErrClosed
	case len(b.items) >= b.max:
		return time.Time{}, ErrBufferFull
	}
	exp := now.Add(ttl)
	b.seq++
	b.items = append(b.items, &bufferedMessage{msg: m, expires: exp, seq: b.seq})
	if !b.running {
		b.running = true
		b.done = make(chan struct{})
		go b.run()
	}
	b.poke()
	return exp, nil
}

func (b *messageBuffer) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *messageBuffer) run() {
	defer close(b.done)
	for {
		if !b.expire() {
			return
		}
		select {
		case <-b.stop:
			return
		case <-b.wake:
			b.deliver()
		}
	}
}

// expire drops expired messages and sets a wake-up for the next expiry; it
// reports false when nothing waits any more, which ends the goroutine.
func (b *messageBuffer) expire() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.e.clock.Now()
	next := b.pruneLocked(now)
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.items) == 0 {
		b.running = false
		return false
	}
	b.timer = b.e.clock.AfterFunc(next.Sub(now), b.poke)
	return true
}

// pruneLocked drops the messages expired at now and returns the next expiry.
func (b *messageBuffer) pruneLocked(now time.Time) (next time.Time) {
	kept := b.items[:0]
	for _, it := range b.items {
		if it.expires.After(now) {
			kept = append(kept, it)
			if next.IsZero() || it.expires.Before(next) {
				next = it.expires
			}
		}
	}
	clear(b.items[len(kept):])
	b.items = kept
	return next
}

// deliver tries every buffered message once, oldest first.
func (b *messageBuffer) deliver() {
	b.mu.Lock()
	b.pruneLocked(b.e.clock.Now()) // never deliver what expired
	items := append([]*bufferedMessage(nil), b.items...)
	b.mu.Unlock()
	for _, it := range items {
		if !b.take(it) {
			continue
		}
		// Taken out while it is tried: once delivered it frees its room at
		// once, and no other attempt can deliver it twice.
		ctx, cancel := context.WithTimeout(context.Background(), deliverTimeout)
		n, err := b.e.Correlate(ctx, it.msg)
		cancel()
		switch {
		case errors.Is(err, ErrNotFound):
			b.putBack(it)
			continue
		case err != nil:
			b.e.cfg.Logger.Warn("buffered message not delivered", "message", it.msg.Name, "correlation_key", it.msg.CorrelationKey, "err", err)
			b.putBack(it)
			continue
		}
		b.e.cfg.Logger.Debug("buffered message delivered", "message", it.msg.Name, "correlation_key", it.msg.CorrelationKey, "correlated", n)
	}
}

// deliverTimeout bounds one delivery attempt of a buffered message.
const deliverTimeout = 10 * time.Second

// take removes it from the buffer; false when it is gone already.
func (b *messageBuffer) take(it *bufferedMessage) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, o := range b.items {
		if o == it {
			b.items = append(b.items[:i], b.items[i+1:]...)
			return true
		}
	}
	return false
}

// putBack returns an undelivered message to its place in arrival order.
func (b *messageBuffer) putBack(it *bufferedMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i, _ := slices.BinarySearchFunc(b.items, it.seq, func(o *bufferedMessage, seq uint64) int { return cmp.Compare(o.seq, seq) })
	b.items = slices.Insert(b.items, i, it)
}

// close stops the goroutine and waits for it.
func (b *messageBuffer) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.stop)
	}
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	done, running := b.done, b.running
	b.mu.Unlock()
	if running && done != nil {
		<-done
	}
}
