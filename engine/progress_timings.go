package engine

import (
	"context"
	"sync"
	"time"
)

// Bounds of what a progress estimate reads.
const (
	// ProgressSampleMax is how many of a version's newest completed
	// instances the estimate learns from.
	ProgressSampleMax = 50
	// progressScanMax is how many of a key's newest completed instances
	// (of any version) one estimate lists to find them.
	progressScanMax = 200
	// timingsMax bounds the memo of completed instances' timings.
	timingsMax = 4096
)

// versionTimings learns how long a version's instances take from the log of
// its completed instances. A completed instance's log never changes, so its
// timing is read once and kept (at most timingsMax, then the memo starts
// over); each estimate then costs one listing of at most progressScanMax
// instance heads, plus the logs of instances that completed since the last
// one. Nothing is kept on the side that could drift from the store, and
// any replica gets the same answer.
type versionTimings struct {
	store Store
	mu    sync.Mutex
	memo  map[string]*runTiming // by completed instance id
}

// runTiming is the timing of one completed instance.
type runTiming struct {
	total    time.Duration
	elements map[string]elementTiming
}

// elementTiming is, for one element, where in the run it was entered first
// and left last (fractions of the run) and how long one pass took.
type elementTiming struct {
	entry, exit float64
	pass        time.Duration
}

// timingStats are the mean timings of a sample of completed instances.
type timingStats struct {
	samples  int
	total    time.Duration
	elements map[string]elementTiming
}

func newVersionTimings(st Store) *versionTimings {
	return &versionTimings{store: st, memo: map[string]*runTiming{}}
}

// of returns the mean timings of the newest completed instances of a
// version (definition id) of key.
func (v *versionTimings) of(ctx context.Context, key, definitionID string) (timingStats, error) {
	heads, _, err := v.store.Instances(ctx, InstanceFilter{DefinitionKey: key, Status: []Status{StatusCompleted}, Limit: progressScanMax})
	if err != nil {
		return timingStats{}, err
	}
	var runs []*runTiming
	for _, h := range heads {
		if h.DefinitionID != definitionID {
			continue
		}
		rt, err := v.run(ctx, h.ID)
		if err != nil {
			return timingStats{}, err
		}
		if rt.total > 0 { // an instant run says nothing about where time goes
			runs = append(runs, rt)
		}
		if len(runs) == ProgressSampleMax {
			break
		}
	}
	return meanTimings(runs), nil
}

func (v *versionTimings) run(ctx context.Context, id string) (*runTiming, error) {
	v.mu.Lock()
	rt := v.memo[id]
	v.mu.Unlock()
	if rt != nil {
		return rt, nil
	}
	events, err := v.store.Events(ctx, id, 0, 0)
	if err != nil {
		return nil, err
	}
	rt = timingOf(events)
	v.mu.Lock()
	if len(v.memo) >= timingsMax {
		clear(v.memo)
	}
	v.memo[id] = rt
	v.mu.Unlock()
	return rt, nil
}

// timingOf reads a completed instance's timing from its log.
func timingOf(events []Event) *runTiming {
	rt := &runTiming{elements: map[string]elementTiming{}}
	if len(events) == 0 {
		return rt
	}
	start := events[0].Time
	type span struct {
		first, last time.Time
		took        time.Duration
		passes      int
	}
	spans := map[string]*span{}
	entered := map[uint64]time.Time{} // by token
	var end time.Time
	for i := range events {
		ev := &events[i]
		switch ev.Type {
		case EventElementActivated:
			entered[ev.TokenID] = ev.Time
			if spans[ev.ElementID] == nil {
				spans[ev.ElementID] = &span{first: ev.Time}
			}
		case EventElementCompleted:
			sp, at := spans[ev.ElementID], entered[ev.TokenID]
			if sp == nil || at.IsZero() {
				continue
			}
			delete(entered, ev.TokenID)
			sp.last = ev.Time
			sp.took += ev.Time.Sub(at)
			sp.passes++
		case EventInstanceCompleted:
			end = ev.Time
		}
	}
	rt.total = end.Sub(start)
	if rt.total <= 0 {
		return rt
	}
	for id, sp := range spans {
		if sp.passes == 0 {
			continue
		}
		rt.elements[id] = elementTiming{
			entry: float64(sp.first.Sub(start)) / float64(rt.total),
			exit:  float64(sp.last.Sub(start)) / float64(rt.total),
			pass:  sp.took / time.Duration(sp.passes),
		}
	}
	return rt
}

// meanTimings averages runs: each element over the runs that passed it.
func meanTimings(runs []*runTiming) timingStats {
	st := timingStats{samples: len(runs), elements: map[string]elementTiming{}}
	if len(runs) == 0 {
		return st
	}
	counts := map[string]int{}
	for _, rt := range runs {
		st.total += rt.total
		for id, t := range rt.elements {
			sum := st.elements[id]
			sum.entry += t.entry
			sum.exit += t.exit
			sum.pass += t.pass
			st.elements[id] = sum
			counts[id]++
		}
	}
	st.total /= time.Duration(len(runs))
	for id, sum := range st.elements {
		n := counts[id]
		st.elements[id] = elementTiming{entry: sum.entry / float64(n), exit: sum.exit / float64(n), pass: sum.pass / time.Duration(n)}
	}
	return st
}
