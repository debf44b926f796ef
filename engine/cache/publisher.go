package cache

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/codec"
)

// publishMax is how many events one message carries at most.
const publishMax = 1024

// message is what goes over the events channel.
type message struct {
	Replica string `json:"r"`
	// Tasks says an event changes a task: such messages go on Channel, the
	// others on OtherChannel (Source.SetTasksOnly).
	Tasks  bool           `json:"t,omitempty"`
	Events []engine.Event `json:"e"`
}

// Publisher is an engine.Exporter that publishes every event batch for the
// other replicas: to the channel <prefix>events if it changes a task, else
// to <prefix>events:other. Export never waits: batches queue for a
// goroutine, and when the queue is full or Redis is down they are dropped
// from the fan-out only (local subscribers get them from the engine).
type Publisher struct {
	c         *Cache
	queue     chan []engine.Event
	published atomic.Int64
	dropped   atomic.Int64
	lastLog   atomic.Int64 // unix ns of the last drop log
}

var _ engine.Exporter = (*Publisher)(nil)

func newPublisher(c *Cache) *Publisher {
	return &Publisher{c: c, queue: make(chan []engine.Event, c.cfg.PublishQueue)}
}

// Publisher returns the cache's publisher; subscribe it to the engine.
func (c *Cache) Publisher() *Publisher { return c.pub }

// Channel is the channel of the event batches that change a task, which
// every Source receives. Replicas before OtherChannel published every batch
// there.
func (c *Cache) Channel() string { return c.cfg.Prefix + "events" }

// OtherChannel is the channel of the other event batches, which a Source
// following task changes only does not receive (Source.SetTasksOnly).
func (c *Cache) OtherChannel() string { return c.cfg.Prefix + "events:other" }

// Export queues a copy of events (the engine reuses the slice).
func (p *Publisher) Export(events []engine.Event) {
	if len(events) == 0 {
		return
	}
	if p.c.down.Load() {
		p.drop(len(events))
		return
	}
	select {
	case p.queue <- slices.Clone(events):
	default:
		p.drop(len(events))
	}
}

// Stats returns how many events were published and dropped.
func (p *Publisher) Stats() (published, dropped int64) {
	return p.published.Load(), p.dropped.Load()
}

func (p *Publisher) drop(n int) {
	p.dropped.Add(int64(n))
	now := time.Now().UnixNano()
	last := p.lastLog.Load()
	if now-last >= int64(p.c.cfg.LogInterval) && p.lastLog.CompareAndSwap(last, now) {
		p.c.cfg.Logger.Warn("events not fanned out to other replicas", "dropped_total", p.dropped.Load(), "redis_down", p.c.down.Load())
	}
}

func (p *Publisher) run(ctx context.Context) {
	var buf []engine.Event
	linger := time.NewTimer(0)
	<-linger.C
	for {
		select {
		case <-ctx.Done():
			return
		case b := <-p.queue:
			buf = append(buf[:0], b...)
		}
		if p.c.cfg.PublishLinger > 0 {
			linger.Reset(p.c.cfg.PublishLinger)
		}
	more:
		for len(buf) < publishMax {
			select {
			case b := <-p.queue:
				buf = append(buf, b...)
				continue
			default:
			}
			if p.c.cfg.PublishLinger <= 0 {
				break
			}
			select {
			case b := <-p.queue:
				buf = append(buf, b...)
			case <-linger.C:
				break more
			case <-ctx.Done():
				return
			}
		}
		linger.Stop()
		p.publish(ctx, buf)
		clear(buf)
	}
}

func (p *Publisher) publish(ctx context.Context, events []engine.Event) {
	if p.c.down.Load() {
		p.drop(len(events))
		return
	}
	tagged, err := codec.TagEventsLenient(events)
	tasks := changesTask(events)
	var data []byte
	if err == nil {
		data, err = json.Marshal(message{Replica: p.c.cfg.ReplicaID, Tasks: tasks, Events: tagged})
	}
	if err != nil {
		p.c.cfg.Logger.Warn("events not published: they do not encode", "err", err)
		p.drop(len(events))
		return
	}
	octx, cancel := p.c.op(ctx)
	defer cancel()
	channel := p.c.OtherChannel()
	if tasks {
		channel = p.c.Channel()
	}
	if err := p.c.rdb.Publish(octx, channel, data).Err(); err != nil {
		p.c.fail(ctx, err)
		p.drop(len(events))
		return
	}
	p.published.Add(int64(len(events)))
}

func changesTask(events []engine.Event) bool {
	for i := range events {
		if _, ok := events[i].Task(); ok {
			return true
		}
	}
	return false
}
