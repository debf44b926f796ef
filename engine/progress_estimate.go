package engine

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Progress is how far an instance is and when it should end.
//
// The estimate compares the instance with the newest completed instances
// of its definition version (at most ProgressSampleMax). For each element
// they tell, on average, how far into its run a typical instance was when
// it first entered the element and when it last left it (as fractions of
// its whole run), and how long one pass took. An instance is as far as
// the furthest point it reached: an element it completed counts its exit
// fraction; a running element counts from its entry fraction towards its
// exit by the job's reported percent or, without a report, by the time it
// has run over its typical duration. This holds with parallel branches,
// sub-processes and skipped branches, where summing element durations
// would count time twice or not at all. The ETA is now plus the typical
// remaining run: the mean total run times the fraction left.
//
// With no completed instance of the version (or only instant ones) there
// is nothing to measure: Percent counts the elements completed over the
// process's elements, and ETA is nil.
type Progress struct {
	Percent float64 `json:"percent"` // 0 to 100; below 100 until the instance completes
	// ETA is when the instance should end; nil when nothing is measured
	// yet, or when it waits for an operator (paused, incident) or ended.
	ETA *time.Time `json:"eta"`
	// Basis says what the estimate rests on: "durations" of completed
	// instances, element "counts", or "ended".
	Basis string `json:"basis"`
	// Sampled is how many completed instances the durations come from.
	Sampled int `json:"sampled"`
	// Elements are what running jobs reported, by element id.
	Elements map[string]ElementProgress `json:"elements"`
}

// Bases of a Progress estimate.
const (
	ProgressByDurations = "durations"
	ProgressByCounts    = "counts"
	ProgressEnded       = "ended"
)

// progressEventsMax bounds the events of the instance an estimate reads:
// the newest ones. A token that entered its element before them counts as
// just entered, and elements completed only before them do not count.
const progressEventsMax = 2000

// Progress estimates how far an instance is (see Progress). It reads the
// instance's newest events (progressEventsMax), and the timings of
// completed instances of its version (see versionTimings for that cost).
func (e *Engine) Progress(ctx context.Context, snap *Snapshot) (Progress, error) {
	p := Progress{Elements: map[string]ElementProgress{}}
	if snap.Status == StatusCompleted {
		p.Percent, p.Basis = 100, ProgressEnded
		return p, nil
	}
	var after uint64
	if snap.Seq > progressEventsMax {
		after = snap.Seq - progressEventsMax
	}
	events, err := e.store.Events(ctx, snap.ID, after, progressEventsMax)
	if err != nil {
		return p, fmt.Errorf("progress of %s: %w", snap.ID, err)
	}
	stats, err := e.timings.of(ctx, snap.DefinitionKey, snap.DefinitionID)
	if err != nil {
		return p, fmt.Errorf("progress of %s: %w", snap.ID, err)
	}
	now := e.clock.Now()
	run := walkRun(events)
	for _, t := range snap.Tokens {
		if _, ok := run.open[t.ID]; !ok {
			run.open[t.ID] = openToken{element: t.ElementID, at: now} // entered before the events read
		}
	}
	// A report stands while its token is on its element: the board forgets
	// it when the element completes, which may come after the store said so.
	reports := e.progress.reports(snap.ID)
	for tok, tr := range reports {
		if open, ok := run.open[tok]; !ok || open.element != tr.element || snap.Status.Done() {
			delete(reports, tok)
		}
	}
	p.Elements = elementReports(reports)
	if stats.samples == 0 {
		dep, err := e.defs.byID(ctx, snap.DefinitionID)
		if err != nil {
			return p, fmt.Errorf("progress of %s: %w", snap.ID, err)
		}
		nodes := 1
		if proc := dep.def.Process(snap.ProcessID); proc != nil {
			nodes = max(1, len(proc.AllNodes))
		}
		done := float64(len(run.completed))
		for _, tr := range reports {
			done += tr.Percent / 100
		}
		p.Percent, p.Basis = percentOf(done/float64(nodes), snap.Status), ProgressByCounts
		return p, nil
	}
	reached := 0.0
	for el := range run.completed {
		if t, ok := stats.elements[el]; ok {
			reached = max(reached, t.exit)
		}
	}
	for tok, open := range run.open {
		t, ok := stats.elements[open.element]
		if !ok {
			continue
		}
		var f float64
		switch tr, reported := reports[tok]; {
		case reported:
			f = tr.Percent / 100
		case t.pass > 0:
			f = min(1, float64(now.Sub(open.at))/float64(t.pass))
		}
		reached = max(reached, t.entry+f*(t.exit-t.entry))
	}
	p.Percent, p.Basis, p.Sampled = percentOf(reached, snap.Status), ProgressByDurations, stats.samples
	if snap.Status == StatusRunning || snap.Status == StatusWaiting {
		left := time.Duration((1 - min(1, reached)) * float64(stats.total))
		eta := now.Add(left.Round(time.Millisecond)) // an estimate: no false precision
		p.ETA = &eta
	}
	return p, nil
}

// percentOf is a fraction as a percent with one decimal, kept below 100
// while the instance has not completed.
func percentOf(f float64, st Status) float64 {
	pct := math.Round(min(1, max(0, f))*1000) / 10
	if st != StatusCompleted {
		pct = min(pct, 99.9)
	}
	return pct
}

// runWalk is where one instance's log says it stands.
type runWalk struct {
	completed map[string]struct{}  // elements left at least once
	open      map[uint64]openToken // tokens in an element now, by token id
}

type openToken struct {
	element string
	at      time.Time // when it entered
}

func walkRun(events []Event) runWalk {
	w := runWalk{completed: map[string]struct{}{}, open: map[uint64]openToken{}}
	for i := range events {
		ev := &events[i]
		switch ev.Type {
		case EventElementActivated:
			w.open[ev.TokenID] = openToken{element: ev.ElementID, at: ev.Time}
		case EventElementCompleted:
			delete(w.open, ev.TokenID)
			w.completed[ev.ElementID] = struct{}{}
		case EventElementTerminated:
			delete(w.open, ev.TokenID)
		}
	}
	return w
}
