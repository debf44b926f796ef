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
	timer   *time.Timer
	gen     uint64        // last evaluation number; owner goroutine only
	running atomic.Uint64 // number of the running evaluation; 0 when idle
	budget  atomic.Int64
	armed   atomic.Bool

	mu      sync.Mutex // serialises ticks
	lastGen uint64
	seenAt  time.Time
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

func newWatchdog(vm *goja.Runtime) *watchdog {
	w := &watchdog{vm: vm}
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
	if g == 0 {
		w.armed.Store(false)
		if w.running.Load() == 0 || !w.armed.CompareAndSwap(false, true) {
			return
		}
		g = w.running.Load()
	}
	budget := time.Duration(w.budget.Load())
	now := time.Now()
	if g != w.lastGen {
		w.lastGen, w.seenAt = g, now
	} else if now.Sub(w.seenAt) >= budget {
		w.vm.Interrupt(&interrupt{g, fmt.Errorf("%w (budget %v)", ErrTimeout, budget)})
	}
	w.timer.Reset(tickFor(budget))
}
