package tasks

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/workflowpp/wfpp/engine"
)

const (
	// followPendingMax bounds the tasks waiting to be read again; past it
	// changes are dropped (and logged): the inbox shows them after the
	// task's next change or a restart.
	followPendingMax = 1 << 16
	followTimeout    = 5 * time.Second
)

// TaskReader reads one task from the store; engine.Queries is one.
type TaskReader interface {
	Task(ctx context.Context, id string) (engine.Task, error)
}

// InboxFollower keeps an Inbox current with the task changes of every
// replica, which the local engine's ExportTasks does not see: fed the
// events of all replicas (a live source), it reads each task an event names
// from the store and applies it, one at a time in the order the events
// came. This replica's own changes come through too and are read again:
// one store read that changes nothing, and a read older than what
// ExportTasks applied meanwhile is put right by the event of that newer
// change, which comes after it.
type InboxFollower struct {
	inbox *Inbox
	store TaskReader
	log   *slog.Logger

	mu      sync.Mutex
	pending []string
	queued  map[string]struct{}
	dropped int
	wake    chan struct{}

	stop context.CancelFunc
	done chan struct{}
}

// Follow starts following the task changes that reach Export; Close stops.
func (in *Inbox) Follow(store TaskReader, log *slog.Logger) *InboxFollower {
	ctx, stop := context.WithCancel(context.Background())
	f := &InboxFollower{
		inbox: in, store: store, log: log, queued: map[string]struct{}{},
		wake: make(chan struct{}, 1), stop: stop, done: make(chan struct{}),
	}
	go f.run(ctx)
	return f
}

// Export notes the tasks the events name, without waiting.
func (f *InboxFollower) Export(events []engine.Event) {
	noted := false
	f.mu.Lock()
	for i := range events {
		d, ok := events[i].Task()
		if !ok {
			continue
		}
		if _, ok := f.queued[d.TaskID]; ok {
			continue
		}
		if len(f.pending) >= followPendingMax {
			f.dropped++
			continue
		}
		f.queued[d.TaskID] = struct{}{}
		f.pending = append(f.pending, d.TaskID)
		noted = true
	}
	f.mu.Unlock()
	if noted {
		select {
		case f.wake <- struct{}{}:
		default:
		}
	}
}

// Close stops following.
func (f *InboxFollower) Close() {
	f.stop()
	<-f.done
}

func (f *InboxFollower) run(ctx context.Context) {
	defer close(f.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		f.mu.Lock()
		ids, dropped := f.pending, f.dropped
		f.pending, f.dropped = nil, 0
		clear(f.queued)
		f.mu.Unlock()
		if dropped > 0 {
			f.log.Warn("inbox: too many task changes of other replicas at once; some show after their next change", "dropped", dropped)
		}
		for _, id := range ids {
			f.refresh(ctx, id)
		}
	}
}

// refresh reads task id from the store and applies it.
func (f *InboxFollower) refresh(ctx context.Context, id string) {
	rctx, cancel := context.WithTimeout(ctx, followTimeout)
	defer cancel()
	t, err := f.store.Task(rctx, id)
	switch {
	case errors.Is(err, engine.ErrNotFound):
	case err != nil:
		if ctx.Err() == nil { // not stopping
			f.log.Warn("inbox: reading a task another replica changed", "task_id", id, "err", err)
		}
	default:
		f.inbox.ExportTasks([]engine.Task{t})
	}
}
