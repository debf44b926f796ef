package script

import (
	"math"
	"runtime/metrics"
	"sync/atomic"
)

// Memory budget. goja cannot say what one runtime allocates, and the Go
// runtime counts per process, not per goroutine. So the watchdog measures
// the process heap while an evaluation runs: from the first tick that sees
// an evaluation it notes the heap (live as of the last GC, and garbage
// included) and how much has been allocated in large objects so far; on
// later ticks it interrupts the evaluation once the heap has grown by more
// than the budget times the evaluations being watched (see overBudget).
//
// What this bounds: whatever a script builds and keeps (strings, arrays,
// objects, concatenation, JSON) is stopped once the heap has grown by
// MaxMemory per watched evaluation, give or take what one tick allocates
// (a doubling string: one doubling); so the heap stays within MaxMemory x
// concurrent evaluations plus that margin. Garbage a script drops is not
// counted. Evaluations shorter than one tick (conditions, most scripts) are
// never measured and cost nothing; a legitimate script running beside a
// runaway may be stopped with it.

// watched counts the evaluations a watchdog tick is measuring.
var watched atomic.Int64

// heap is one reading of the process heap.
type heap struct {
	live  uint64 // live bytes as of the last GC
	now   uint64 // bytes in heap objects now, garbage included
	goal  uint64 // heap size at which the runtime plans its next GC
	large uint64 // bytes allocated in large objects (over 32 KiB) since the process began
}

var heapSamples = []string{
	"/gc/heap/live:bytes", "/memory/classes/heap/objects:bytes", "/gc/heap/goal:bytes",
	"/gc/heap/allocs:bytes", "/gc/heap/allocs-by-size:bytes",
}

// readHeap reads the heap's figures. It does not stop the world.
func readHeap() heap {
	s := make([]metrics.Sample, len(heapSamples))
	for i, name := range heapSamples {
		s[i].Name = name
	}
	metrics.Read(s)
	// Large objects are what the histogram's last bucket counts without
	// sizes: all bytes allocated less the small ones, each of which takes
	// exactly its size class (the bucket's upper bound).
	hist := s[4].Value.Float64Histogram()
	var small float64
	for i, n := range hist.Counts {
		if upper := hist.Buckets[i+1]; !math.IsInf(upper, 1) {
			small += float64(n) * (upper - 1)
		}
	}
	all := s[3].Value.Uint64()
	return heap{
		live: s[0].Value.Uint64(), now: s[1].Value.Uint64(), goal: s[2].Value.Uint64(),
		large: all - min(all, uint64(small)),
	}
}

// overBudget says whether the heap h has grown by more than limit since an
// evaluation began (base: the smallest heap seen while it ran, and the large
// allocations as it began). Either
//   - the last GC saw the live heap grown by limit (a GC that frees what an
//     earlier runaway left lowers the base, so its garbage does not count), or
//   - large objects worth limit were allocated, the heap holds limit more
//     than it did, and it is past the GC's goal: huge strings and arrays,
//     which a doubling makes faster than a GC can see them live. Churn of
//     small objects does not count, and churn stays under the goal.
//
// It never forces a GC: on a heap of gigabytes a forced GC waits for every
// goroutine, a copy of a huge string included, and held up the watchdog,
// its time budget too, for many seconds on a loaded machine.
func overBudget(h, base heap, limit uint64) bool {
	return h.live > base.live+limit ||
		(h.large > base.large+limit && h.now > base.now+limit && h.now > h.goal)
}
