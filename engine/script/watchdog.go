package script

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// watchdog enforces the time budget of the evaluations of one runtime with
// vm.Interrupt. The hot path reads no clock and takes no lock: starting an
// evaluation publishes its number and budget; a timer ticking every
// tickFor(budget) while evaluations run notes when it first saw an
// evaluation and interrupts it once it has been seen running for its whole
// budget. So a runaway stops between budget and budget+tick. When idle, the
// timer stops.
type watchdog struct {
	vm      *goja.Runtime
	memory  uint64 // Config.MaxMemory: see memory.go
	timer   *time.Timer
	gen     uint64        // last evaluation number; owner goroutine only
	running atomic.Uint64 // number of the running evaluation; 0 when idle
	budget  atomic.Int64
	armed   atomic.Bool

	mu      sync.Mutex // serialises ticks
	lastGen uint64
	seenAt  time.Time
	base    heap // the smallest heap seen while lastGen ran; large as it began
	counted bool // lastGen counts in watched
}

// interrupt is the value passed to vm.Interrupt; gen tells a stale
// interrupt (meant for an evaluation that has already finished) apart.
type interrupt struct {
	gen uint64
	err error
}

const maxTick = 10 * time.Millisecond

func tickFor(budget time.Duration) time.Duration {
	return max(min(budget/4, maxTick), time.Millisecond)
}

func newWatchdog(vm *goja.Runtime, memory int64) *watchdog {
	w := &watchdog{vm: vm, memory: uint64(memory)} //nolint:gosec // validated positive
	w.timer = time.AfterFunc(time.Hour, w.tick)
	w.timer.Stop()
	return w
}

// start begins an evaluation; the returned stop must be passed to end.
func (w *watchdog) start(ctx context.Context, budget time.Duration) (uint64, func() bool) {
	w.gen++
	gen := w.gen
	w.vm.ClearInterrupt()
	w.budget.Store(int64(budget))
	w.running.Store(gen)
	// tick stores armed=false before loading running; we store running
	// before loading armed: one of us sees the other.
	if !w.armed.Load() && w.armed.CompareAndSwap(false, true) {
		w.timer.Reset(tickFor(budget))
	}
	if ctx.Done() == nil {
		return gen, nil
	}
	return gen, context.AfterFunc(ctx, func() {
		if w.running.Load() == gen {
			w.vm.Interrupt(&interrupt{gen, context.Cause(ctx)})
		}
	})
}

// interrupt stops evaluation g if it still runs. One that ended meanwhile
// may still get it: run clears such a stale interrupt (isStale).
func (w *watchdog) interrupt(g uint64, err error) {
	if w.running.Load() == g {
		w.vm.Interrupt(&interrupt{g, err})
	}
}

func (w *watchdog) end(stop func() bool) {
	if stop != nil {
		stop()
	}
	w.running.Store(0)
}

func (w *watchdog) tick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	g := w.running.Load()
	if g != w.lastGen && w.counted {
		watched.Add(-1)
		w.counted = false
	}
	if g == 0 {
		w.armed.Store(false)
		if w.running.Load() == 0 || !w.armed.CompareAndSwap(false, true) {
			return
		}
		g = w.running.Load()
	}
	budget := time.Duration(w.budget.Load())
	now := time.Now()
	switch {
	case g != w.lastGen:
		w.lastGen, w.seenAt = g, now
		w.base = readHeap()
		w.counted = true
		watched.Add(1)
	case now.Sub(w.seenAt) >= budget:
		w.interrupt(g, fmt.Errorf("%w (budget %v)", ErrTimeout, budget))
	case w.overBudget():
		w.interrupt(g, fmt.Errorf("%w: the heap grew by more than the budget of %d MiB while it ran", ErrMemory, w.memory>>20))
	}
	w.timer.Reset(tickFor(budget))
}

// overBudget says whether the heap has grown by more than the memory
// budget (times the evaluations being watched) since this evaluation began.
func (w *watchdog) overBudget() bool {
	h := readHeap()
	w.base.live, w.base.now = min(w.base.live, h.live), min(w.base.now, h.now)
	return overBudget(h, w.base, w.memory*uint64(max(watched.Load(), 1))) //nolint:gosec // a count
}
