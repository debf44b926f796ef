package bench

import (
	"hash/maphash"
	"sync"

	"github.com/workflowpp/wfpp/engine"
)

const completionShards = 64

// completions pairs each instance's end event with the client waiting for it.
// The end may be exported before the client registers (an instance without a
// wait state ends inside Start), so whichever comes first leaves a mark the
// other one takes: every entry is removed by its second party.
type completions struct {
	seed   maphash.Seed
	shards [completionShards]completionShard
}

type completionShard struct {
	mu sync.Mutex
	m  map[string]chan engine.EventType // a mark (see endedMark): ended, nobody waited yet
	_  [40]byte                         // keep shards on separate cache lines
}

func newCompletions() *completions {
	c := &completions{seed: maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = map[string]chan engine.EventType{}
	}
	return c
}

func (c *completions) shard(id string) *completionShard {
	return &c.shards[maphash.String(c.seed, id)%completionShards]
}

// Export is the engine's exporter: it signals the end of each instance.
func (c *completions) Export(events []engine.Event) {
	for i := range events {
		switch ev := &events[i]; ev.Type {
		case engine.EventInstanceCompleted, engine.EventInstanceFailed, engine.EventInstanceCancelled:
			if _, called := ev.Detail["parent"]; called {
				continue // a call activity's child: no client waits for it, its caller's end counts
			}
			c.ended(ev.InstanceID, ev.Type)
		}
	}
}

func (c *completions) ended(id string, typ engine.EventType) {
	s := c.shard(id)
	s.mu.Lock()
	ch, ok := s.m[id]
	if ok {
		delete(s.m, id)
	} else {
		s.m[id] = endedMark(typ)
	}
	s.mu.Unlock()
	if ok {
		ch <- typ
	}
}

// wait registers ch (buffered, one slot) for id's end. It returns the end's
// type when it happened already, else "" and ch receives it later.
func (c *completions) wait(id string, ch chan engine.EventType) engine.EventType {
	s := c.shard(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if mark, ok := s.m[id]; ok {
		delete(s.m, id)
		return markType(mark)
	}
	s.m[id] = ch
	return ""
}

// Marks of instances that ended before their client waited: one shared
// channel per kind of end, so an early end allocates only its map entry.
var (
	markCompleted = make(chan engine.EventType)
	markFailed    = make(chan engine.EventType)
	markCancelled = make(chan engine.EventType)
)

func endedMark(t engine.EventType) chan engine.EventType {
	switch t {
	case engine.EventInstanceFailed:
		return markFailed
	case engine.EventInstanceCancelled:
		return markCancelled
	}
	return markCompleted
}

func markType(ch chan engine.EventType) engine.EventType {
	switch ch {
	case markFailed:
		return engine.EventInstanceFailed
	case markCancelled:
		return engine.EventInstanceCancelled
	}
	return engine.EventInstanceCompleted
}
