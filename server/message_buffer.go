package server

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

// MessageBufferDefault is how many messages may wait for a subscriber.
const MessageBufferDefault = 10_000

// messageBuffer holds messages that found no subscriber but were sent with a
// TTL. Each time an instance opens a message subscription it tries them again;
// a message is delivered once, then dropped, or dropped when its TTL ends.
//
// Its goroutine runs only while messages wait.
type messageBuffer struct {
	eng     *engine.Engine
	log     *slog.Logger
	max     int
	timeout time.Duration

	mu      sync.Mutex
	items   []*bufferedMessage
	running bool
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

type bufferedMessage struct {
	msg     engine.Message
	expires time.Time
}

func newMessageBuffer(eng *engine.Engine, log *slog.Logger, max int, timeout time.Duration) *messageBuffer {
	return &messageBuffer{
		eng: eng, log: log, max: max, timeout: timeout,
		wake: make(chan struct{}, 1), stop: make(chan struct{}),
	}
}

var errBufferFull = &Error{
	Status: http.StatusServiceUnavailable, Code: "unavailable",
	Message: "the message buffer is full: retry later or send without ttlMs",
}

// add buffers m until ttl passes and makes one delivery attempt at once, for
// a subscription opened since the caller's attempt.
func (b *messageBuffer) add(m engine.Message, ttl time.Duration) (time.Time, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.stop:
		return time.Time{}, &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "server is shutting down"}
	default:
	}
	if len(b.items) >= b.max {
		return time.Time{}, errBufferFull
	}
	exp := time.Now().Add(ttl)
	b.items = append(b.items, &bufferedMessage{msg: m, expires: exp})
	if !b.running {
		b.running = true
		b.done = make(chan struct{})
		go b.run()
	}
	b.poke()
	return exp, nil
}

// Export implements engine.Exporter: a new message subscription wakes the buffer.
func (b *messageBuffer) Export(events []engine.Event) {
	for _, ev := range events {
		if ev.Type == engine.EventMessageSubscribed {
			b.poke()
			return
		}
	}
}

func (b *messageBuffer) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *messageBuffer) run() {
	defer close(b.done)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next, ok := b.expire()
		if !ok {
			return
		}
		timer.Reset(time.Until(next))
		select {
		case <-b.stop:
			return
		case <-timer.C:
		case <-b.wake:
			b.deliver()
		}
	}
}

// expire drops expired messages and returns the next expiry; false when
// nothing waits any more, which ends the goroutine.
func (b *messageBuffer) expire() (time.Time, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	var next time.Time
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
	if len(kept) == 0 {
		b.running = false
		return next, false
	}
	return next, true
}

// deliver tries every buffered message once, oldest first.
func (b *messageBuffer) deliver() {
	b.mu.Lock()
	items := append([]*bufferedMessage(nil), b.items...)
	b.mu.Unlock()
	for _, it := range items {
		ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
		n, err := b.eng.Correlate(ctx, it.msg)
		cancel()
		switch {
		case errors.Is(err, engine.ErrNotFound):
			continue
		case err != nil:
			b.log.Warn("buffered message not delivered", "message", it.msg.Name, "correlation_key", it.msg.CorrelationKey, "err", err)
			continue
		}
		b.log.Debug("buffered message delivered", "message", it.msg.Name, "correlation_key", it.msg.CorrelationKey, "correlated", n)
		b.remove(it)
	}
}

func (b *messageBuffer) remove(it *bufferedMessage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, o := range b.items {
		if o == it {
			b.items = append(b.items[:i], b.items[i+1:]...)
			return
		}
	}
}

// close stops the goroutine and waits for it.
func (b *messageBuffer) close() {
	b.mu.Lock()
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	done := b.done
	running := b.running
	b.mu.Unlock()
	if running && done != nil {
		<-done
	}
}
