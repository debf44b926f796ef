package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

var _ engine.MessageStore = (*Store)(nil)

// messageBuffer holds the messages Publish buffered, by id, under a lock
// of its own: they touch nothing else.
type messageBuffer struct {
	mu   sync.Mutex
	msgs map[string]engine.BufferedMessage
}

func (s *Store) BufferMessage(_ context.Context, m engine.BufferedMessage) error {
	b := &s.buffered
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.msgs[m.ID]; ok {
		return fmt.Errorf("buffered message %s: %w", m.ID, engine.ErrDuplicate)
	}
	if b.msgs == nil {
		b.msgs = map[string]engine.BufferedMessage{}
	}
	m.Variables = maps.Clone(m.Variables)
	b.msgs[m.ID] = m
	return nil
}

func (s *Store) BufferedMessages(_ context.Context, f engine.MessageFilter, now time.Time, limit int) ([]engine.BufferedMessage, error) {
	b := &s.buffered
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []engine.BufferedMessage
	for _, m := range b.msgs {
		if f.Matches(m) && m.Expires.After(now) {
			m.Variables = maps.Clone(m.Variables)
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b engine.BufferedMessage) int {
		return cmp.Or(a.Published.Compare(b.Published), cmp.Compare(a.ID, b.ID))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (s *Store) CountBufferedMessages(_ context.Context, now time.Time) (int, error) {
	b := &s.buffered
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, m := range b.msgs {
		if m.Expires.After(now) {
			n++
		}
	}
	return n, nil
}

func (s *Store) TakeBufferedMessage(_ context.Context, id string) error {
	b := &s.buffered
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.msgs[id]; !ok {
		return fmt.Errorf("buffered message %s: %w", id, engine.ErrNotFound)
	}
	delete(b.msgs, id)
	return nil
}

func (s *Store) ExpireBufferedMessages(_ context.Context, now time.Time) (int, error) {
	b := &s.buffered
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.msgs)
	maps.DeleteFunc(b.msgs, func(_ string, m engine.BufferedMessage) bool { return !m.Expires.After(now) })
	return n - len(b.msgs), nil
}
