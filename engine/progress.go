package engine

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Progress reports are transient: a job's percent and message live in the
// memory of the engine that runs the job, and go out to exporters as
// element.progress and instance.progress events that are never stored. A
// job that reports ten times a second would otherwise grow its instance's
// log without bound; the stored history keeps what happened, not how far
// a job was on its way.
const (
	// ProgressInterval is the least time between two flushes of one
	// instance's progress: reports in between are coalesced, the last
	// value of each element wins, so an instance sends at most a few
	// progress events a second however often its jobs report.
	ProgressInterval = 250 * time.Millisecond
	// ProgressMessageMax bounds a progress message, in characters.
	ProgressMessageMax = 500
	// progressInstancesMax bounds the instances whose reports are kept;
	// past it the oldest instance's are dropped.
	progressInstancesMax = 10_000
)

// ElementProgress is what the job of an element last reported.
type ElementProgress struct {
	Percent float64   `json:"percent"`
	Message string    `json:"message,omitempty"`
	At      time.Time `json:"at"`
}

// ReportProgress tells how far the job is: percent (0 to 100) and a short
// message for the monitor. It overrides the estimate for the job's element
// until the element completes. Reports are cheap: call it as often as you
// like, the engine sends at most a few events a second per instance. It
// fails when the job has finished, or for a job not run by an engine.
func (j *Job) ReportProgress(percent float64, message string) error {
	if j.run == nil {
		return fmt.Errorf("job %s cannot report progress: only the job of a service task an engine runs can: %w", j.Key, ErrInvalidState)
	}
	if err := checkProgress(percent, message); err != nil {
		return err
	}
	if j.run.settled.Load() {
		return fmt.Errorf("job %s has finished: report progress while the handler runs: %w", j.Key, ErrInvalidState)
	}
	j.eng.progress.report(j.run, percent, message)
	return nil
}

// ReportJobProgress is ReportProgress for an external job the worker holds.
func (e *Engine) ReportJobProgress(ctx context.Context, key, worker string, percent float64, message string) error {
	if err := checkProgress(percent, message); err != nil {
		return err
	}
	if err := e.ownsJob(ctx, key); err != nil {
		return err
	}
	r, err := e.external.lockedBy(key, worker, e.clock.Now())
	if err != nil {
		return err
	}
	e.progress.report(r, percent, message)
	return nil
}

func checkProgress(percent float64, message string) error {
	switch {
	case math.IsNaN(percent) || percent < 0 || percent > 100:
		return fmt.Errorf("progress \"percent\" is %v: use 0 to 100: %w", percent, ErrInvalidInput)
	case utf8.RuneCountInString(message) > ProgressMessageMax:
		return fmt.Errorf("progress \"message\" has %d characters: use at most %d: %w", utf8.RuneCountInString(message), ProgressMessageMax, ErrInvalidInput)
	}
	return nil
}

// progressBoard holds the reports of running jobs per instance and sends
// them out, rate limited per instance.
type progressBoard struct {
	e      *Engine
	mu     sync.Mutex
	byInst map[string]*instanceReports
	kept   atomic.Int64 // len(byInst): the event path skips the board while it is 0
	closed bool
	wg     sync.WaitGroup // flushes under way
}

// instanceReports are one instance's reports, by token.
type instanceReports struct {
	tokens  map[uint64]*tokenReport
	since   time.Time // when its reports were first kept, to drop the oldest instance
	pending bool      // a flush is scheduled
	timer   Timer     // the scheduled flush, when it waits for the interval to pass
	last    time.Time // when it was last flushed
}

type tokenReport struct {
	ElementProgress
	element string
	sent    bool
}

func newProgressBoard(e *Engine) *progressBoard {
	return &progressBoard{e: e, byInst: map[string]*instanceReports{}}
}

// report keeps a job's report and schedules the instance's flush: at once
// when the instance was quiet for ProgressInterval, else when the interval
// since its last flush has passed.
func (b *progressBoard) report(r *jobRun, percent float64, message string) {
	now := b.e.clock.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	ir := b.byInst[r.inst]
	if ir == nil {
		if len(b.byInst) >= progressInstancesMax {
			b.dropOldestLocked()
		}
		ir = &instanceReports{tokens: map[uint64]*tokenReport{}, since: now}
		b.byInst[r.inst] = ir
		b.kept.Store(int64(len(b.byInst)))
	}
	ir.tokens[r.token] = &tokenReport{ElementProgress: ElementProgress{Percent: percent, Message: message, At: now}, element: r.node.ID}
	if ir.pending {
		return
	}
	ir.pending = true
	b.wg.Add(1)
	if wait := ir.last.Add(ProgressInterval).Sub(now); wait > 0 {
		ir.timer = b.e.clock.AfterFunc(wait, func() { go b.flush(r.inst) })
		return
	}
	go b.flush(r.inst)
}

func (b *progressBoard) dropOldestLocked() {
	var oldest string
	var at time.Time
	for id, ir := range b.byInst {
		if !ir.pending && (oldest == "" || ir.since.Before(at)) {
			oldest, at = id, ir.since
		}
	}
	delete(b.byInst, oldest)
}

// flush sends the instance's new reports as element.progress events,
// followed by an instance.progress event with the estimate they change.
func (b *progressBoard) flush(inst string) {
	defer b.wg.Done()
	now := b.e.clock.Now()
	b.mu.Lock()
	ir := b.byInst[inst]
	if b.closed || ir == nil {
		b.mu.Unlock()
		return
	}
	ir.pending, ir.timer, ir.last = false, nil, now
	var events []Event
	for tok, tr := range ir.tokens {
		if tr.sent {
			continue
		}
		tr.sent = true
		events = append(events, Event{
			InstanceID: inst, Type: EventElementProgress, Time: now, ElementID: tr.element, TokenID: tok,
			Detail: map[string]any{"percent": tr.Percent, "message": tr.Message},
		})
	}
	if len(ir.tokens) == 0 {
		delete(b.byInst, inst)
		b.kept.Store(int64(len(b.byInst)))
	}
	b.mu.Unlock()
	if len(events) == 0 {
		return // the elements completed meanwhile
	}
	ctx, cancel := context.WithTimeout(b.e.ctx, loadTimeout)
	defer cancel()
	snap, err := b.e.store.Instance(ctx, inst)
	var p Progress
	if err == nil {
		p, err = b.e.Progress(ctx, snap)
	}
	if err != nil {
		if b.e.ctx.Err() == nil { // not the engine closing
			b.e.cfg.Logger.Warn("instance progress not sent: no estimate", "instance_id", inst, "err", err)
			b.e.export(events) // what the jobs reported goes out all the same
		}
		return
	}
	detail := map[string]any{"percent": p.Percent, "basis": p.Basis, "eta": nil}
	if p.ETA != nil {
		detail["eta"] = p.ETA.Format(time.RFC3339Nano)
	}
	events = append(events, Event{InstanceID: inst, Type: EventInstanceProgress, Time: now, Detail: detail})
	for i := range events {
		events[i].DefinitionID = snap.DefinitionID
	}
	b.e.export(events)
}

// reports returns the instance's reports by token id.
func (b *progressBoard) reports(inst string) map[uint64]tokenReport {
	if b.kept.Load() == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	ir := b.byInst[inst]
	if ir == nil {
		return nil
	}
	out := make(map[uint64]tokenReport, len(ir.tokens))
	for tok, tr := range ir.tokens {
		out[tok] = *tr
	}
	return out
}

// settle forgets the reports of elements that completed or were left and
// of instances that ended: a report only stands for a running job.
func (b *progressBoard) settle(events []Event) {
	if b.kept.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range events {
		ev := &events[i]
		ir := b.byInst[ev.InstanceID]
		if ir == nil {
			continue
		}
		switch ev.Type {
		case EventElementCompleted, EventElementTerminated:
			delete(ir.tokens, ev.TokenID)
		case EventInstanceCompleted, EventInstanceCancelled, EventInstanceFailed:
			clear(ir.tokens)
		default:
			continue
		}
		if len(ir.tokens) == 0 && !ir.pending {
			delete(b.byInst, ev.InstanceID)
		}
	}
	b.kept.Store(int64(len(b.byInst)))
}

// close stops flushing and waits for the flushes under way.
func (b *progressBoard) close() {
	b.mu.Lock()
	b.closed = true
	for _, ir := range b.byInst {
		if ir.timer != nil && ir.timer.Stop() {
			b.wg.Done() // its flush will not run
		}
	}
	b.mu.Unlock()
	b.wg.Wait()
}

// elementReports is reports by element id, the latest of each element's tokens.
func elementReports(reports map[uint64]tokenReport) map[string]ElementProgress {
	out := map[string]ElementProgress{}
	for _, tr := range reports {
		if cur, ok := out[tr.element]; !ok || tr.At.After(cur.At) {
			out[tr.element] = tr.ElementProgress
		}
	}
	return out
}
