package cache

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/codec"
)

// Local is where a Source gets this replica's events: the engine.
type Local interface {
	Subscribe(x engine.Exporter) (unsubscribe func())
}

// Source delivers the events of every replica: this one's straight from the
// local engine, in-process, whether Redis answers or not, and the others'
// from the events channels (its own published events are skipped there, so
// none arrives twice). While Redis is down only local events arrive; what
// other replicas published meanwhile is not replayed.
type Source struct {
	c     *Cache
	local Local

	mu   sync.RWMutex
	subs map[*func([]engine.Event)]struct{}

	// onlyTasks: subscribed to the channel of task changes only
	// (SetTasksOnly); tasksMu orders the changes of subscription.
	onlyTasks atomic.Bool
	tasksMu   sync.Mutex

	ps    *redis.PubSub
	done  chan struct{}
	close sync.Once
	err   error
}

// Source starts receiving from the events channel; Close or the cache's
// Close stops it.
func (c *Cache) Source(local Local) *Source {
	s := &Source{c: c, local: local, subs: map[*func([]engine.Event)]struct{}{}, done: make(chan struct{})}
	// The context only carries the SUBSCRIBE command; Close ends the
	// subscription.
	s.ps = c.rdb.Subscribe(context.Background(), c.Channel(), c.OtherChannel())
	c.mu.Lock()
	c.sources[s] = struct{}{}
	c.mu.Unlock()
	go s.run()
	return s
}

// Subscribe calls fn with each batch of events, local or remote. fn must
// return quickly (local batches arrive on the engine's applier) and copy the
// slice if it keeps it.
func (s *Source) Subscribe(fn func([]engine.Event)) (unsubscribe func()) {
	key := &fn
	s.mu.Lock()
	s.subs[key] = struct{}{}
	s.mu.Unlock()
	stopLocal := s.local.Subscribe(engine.ExporterFunc(fn))
	var once sync.Once
	return func() {
		once.Do(func() {
			stopLocal()
			s.mu.Lock()
			delete(s.subs, key)
			s.mu.Unlock()
		})
	}
}

// Close stops receiving from Redis. Local events still reach subscribers
// until they unsubscribe.
func (s *Source) Close() error {
	s.close.Do(func() {
		s.err = s.ps.Close()
		<-s.done
		s.c.mu.Lock()
		delete(s.c.sources, s)
		s.c.mu.Unlock()
	})
	return s.err
}

func (s *Source) run() {
	defer close(s.done)
	own := ownPrefix(s.c.cfg.ReplicaID)
	for msg := range s.ps.Channel() {
		if strings.HasPrefix(msg.Payload, own) {
			continue // this replica's own events, known already: not decoded
		}
		if s.onlyTasks.Load() && (msg.Channel != s.c.Channel() || !carriesTasks(msg.Payload)) {
			continue // sent before the unsubscription, or by a replica that publishes all on one channel
		}
		var m message
		if err := codec.Decode([]byte(msg.Payload), &m); err != nil || m.Replica == s.c.cfg.ReplicaID {
			continue
		}
		events, err := codec.UntagEvents(m.Events)
		if err != nil {
			continue
		}
		s.deliver(events)
	}
}

// SetTasksOnly has the source receive from Redis, while only holds, only the
// other replicas' messages that change a task: its subscribers then follow
// only the inbox (a replica without WebSocket clients). The others' other
// messages then do not reach this replica at all: each replica received and
// dropped every other replica's messages, work that grew with the number of
// replicas. What is published while the subscription changes may be missed,
// as while Redis is down.
func (s *Source) SetTasksOnly(only bool) {
	s.tasksMu.Lock()
	defer s.tasksMu.Unlock()
	if s.onlyTasks.Load() == only {
		return
	}
	s.onlyTasks.Store(only)
	ctx, cancel := s.c.op(context.Background())
	defer cancel()
	change := s.ps.Subscribe
	if only {
		change = s.ps.Unsubscribe
	}
	// Without Redis the change is remembered and made when it reconnects.
	if err := change(ctx, s.c.OtherChannel()); err != nil {
		s.c.cfg.Logger.Debug("events channel subscription changes when Redis answers again", "err", err)
	}
}

// carriesTasks reads a message's head, up to its events, for the Tasks flag.
func carriesTasks(payload string) bool {
	var head struct {
		Tasks bool `json:"t"`
	}
	dec := json.NewDecoder(strings.NewReader(payload))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return true // not ours to judge: decode it
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return true
		}
		switch key {
		case "e":
			return head.Tasks
		case "t":
			if err := dec.Decode(&head.Tasks); err != nil {
				return true
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return true
			}
		}
	}
	return head.Tasks
}

// ownPrefix is how the messages replica publishes begin (the publisher
// encodes a message with its replica first). With N replicas each gets
// every replica's messages; decoding its own only to drop them was a third
// of its decoding with three.
func ownPrefix(replica string) string {
	id, _ := json.Marshal(replica)
	return `{"r":` + string(id) + `,`
}

func (s *Source) deliver(events []engine.Event) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for fn := range s.subs {
		(*fn)(events)
	}
}
