package script

import (
	"runtime/metrics"
	"sync/atomic"
)

// Memory budget. goja cannot say what one runtime allocates, and the Go
// runtime counts per process, not per goroutine. So the watchdog measures
// the process heap while an evaluation runs: from the first tick that sees
// an evaluation it notes the smallest heap seen, live (as of the last GC) and
// garbage included; on later ticks it interrupts the evaluation once the heap
// has grown by more than the budget times the evaluations being watched
// (see overBudget).
//
// What this bounds: whatever a script builds and keeps (strings, arrays,
// objects, concatenation, JSON) is stopped once the live heap has grown by
// MaxMemory per watched evaluation, give or take what one tick allocates;
// so the heap stays within MaxMemory x concurrent evaluations plus a margin.
// Garbage a script drops is not counted. Evaluations shorter than one tick
// (conditions, most scripts) are never measured and cost nothing; a
// legitimate script running beside a runaway may be stopped with it.

// watched counts the evaluations a watchdog tick is measuring.
var watched atomic.Int64

// heapBytes returns the live heap as of the last GC and the heap now,
// garbage included.
func heapBytes() (live, now uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// heapGoal is the heap size at which the runtime plans its next GC: garbage
// up to it is the normal churn of a busy process, not a runaway's doing.
func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// overBudget says whether the live heap has grown by more than limit over
// base (the smallest live heap seen while the evaluation ran): when the last
// GC (a growing heap triggers them) saw it so, or when the heap, garbage
// included, grew by four times the limit over heapBase (the heap as the
// evaluation began: what others left is not its doing) and past the GC's
// goal by the limit (churn stays under the goal; a runaway's huge strings
// jump over it a doubling or two before a GC sees them live).
//
// It never forces a GC: on a heap of gigabytes a forced GC waits for every
// goroutine, a copy of a huge string included, and held up the watchdog,
// its time budget too, for many seconds on a loaded machine.
func overBudget(base, heapBase, limit uint64) bool {
	live, now := heapBytes()
	return live > base+limit || (now > heapBase+4*limit && now > heapGoal()+limit)
}
