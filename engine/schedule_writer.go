package engine

import (
	"context"
	"sync"
)

// scheduleWriter gathers the scheduler's guarded schedule writes (claims
// and settles) into Store.UpdateSchedules calls, as a partition gathers
// its instances' changes into one commit: the writes that come while a
// call is under way wait for it and go together in the next. A tick when
// thousands of schedules are due thus claims them in a few dozen store
// commands rather than one write each, and a lone write goes at once.
type scheduleWriter struct {
	e *Engine // its store, and its context: one call serves many callers

	mu      sync.Mutex
	queue   []scheduleWrite
	writing bool // a goroutine is taking the queue to the store
}

type scheduleWrite struct {
	update ScheduleUpdate
	done   chan error
}

// scheduleWritesMax bounds one UpdateSchedules call, so the instances of
// the first claims of a tick start while the next ones are written.
const scheduleWritesMax = 256

// write replaces sc while its stored rev is prevRev, as Store.UpdateSchedule.
func (w *scheduleWriter) write(ctx context.Context, sc Schedule, prevRev int64) error {
	done := make(chan error, 1)
	w.mu.Lock()
	w.queue = append(w.queue, scheduleWrite{update: ScheduleUpdate{Schedule: sc, PrevRev: prevRev}, done: done})
	if !w.writing {
		w.writing = true
		go w.flush()
	}
	w.mu.Unlock()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err() // written or not, the caller stops here
	}
}

// flush writes the queue, scheduleWritesMax at a time, until it is empty.
func (w *scheduleWriter) flush() {
	for {
		w.mu.Lock()
		n := min(len(w.queue), scheduleWritesMax)
		if n == 0 {
			w.writing = false
			w.mu.Unlock()
			return
		}
		batch := w.queue[:n:n]
		w.queue = w.queue[n:]
		w.mu.Unlock()
		updates := make([]ScheduleUpdate, n)
		for i, sw := range batch {
			updates[i] = sw.update
		}
		for i, err := range w.e.store.UpdateSchedules(w.e.ctx, updates) {
			batch[i].done <- err
		}
	}
}
