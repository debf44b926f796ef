package engine_test

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// progressBPMN: a review (user task), then work a handler does.
var progressBPMN = callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><userTask id="review"/><serviceTask id="work" wf:type="progress.work" wf:timeout="PT2H"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="review"/><sequenceFlow id="f2" sourceRef="review" targetRef="work"/>
    <sequenceFlow id="f3" sourceRef="work" targetRef="e"/></process>`)

// progressWork is the handler of progress.work: each job announces itself
// on started and runs until the test sends on release. (The task's timeout
// of two hours keeps its lease while the test moves the clock on.)
type progressWork struct {
	started chan *engine.Job
	release chan struct{}
}

func (w *progressWork) Handle(ctx context.Context, job *engine.Job) (map[string]any, error) {
	select {
	case w.started <- job:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case <-w.release:
	case <-ctx.Done():
	}
	return nil, nil
}

// progressEvents is an exporter that keeps the transient progress events.
type progressEvents struct {
	mu     sync.Mutex
	events []engine.Event
	added  chan struct{}
}

func (p *progressEvents) Export(evs []engine.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ev := range evs {
		if ev.Transient() {
			p.events = append(p.events, ev)
			select {
			case p.added <- struct{}{}:
			default:
			}
		}
	}
}

// await waits until n progress events came and returns them.
func (p *progressEvents) await(t *testing.T, ctx context.Context, n int) []engine.Event {
	t.Helper()
	for {
		p.mu.Lock()
		if len(p.events) >= n {
			out := append([]engine.Event(nil), p.events...)
			p.mu.Unlock()
			return out
		}
		p.mu.Unlock()
		select {
		case <-p.added:
		case <-ctx.Done():
			t.Fatalf("waiting for %d progress events: %v", n, ctx.Err())
		}
	}
}

// TestProgressEstimate: with nothing measured yet an instance's percent
// counts elements and it has no ETA; once instances of the version
// completed, percent and ETA follow their measured timings: how far into
// the run a typical instance was at each element, the time an element has
// run, and what the job reports, which overrides the elapsed time.
func TestProgressEstimate(t *testing.T) {
	t.Parallel()
	h := setup(t)
	work := &progressWork{started: make(chan *engine.Job), release: make(chan struct{})}
	h.e.RegisterHandler("progress.work", work)
	seen := &progressEvents{added: make(chan struct{}, 1)}
	t.Cleanup(h.e.Subscribe(seen))
	h.deploySource(progressBPMN)

	progress := func(id string) engine.Progress {
		t.Helper()
		p, err := h.e.Progress(h.ctx, h.instance(id))
		require.NoError(t, err)
		return p
	}
	start := func() string {
		t.Helper()
		snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "p"})
		require.NoError(t, err)
		h.idle()
		return snap.ID
	}
	completeReview := func(id string) *engine.Job {
		t.Helper()
		_, err := h.e.CompleteTask(h.ctx, h.openTask(id, "review").ID, "tester", nil)
		require.NoError(t, err)
		return <-work.started
	}

	// Two runs of 40 minutes: 10 in review, 30 at work.
	first, second := start(), start()
	p := progress(first)
	require.Equal(t, engine.ProgressByCounts, p.Basis)
	require.Equal(t, 25.0, p.Percent, "the start event of four elements is done")
	require.Nil(t, p.ETA, "nothing measured: no ETA")
	h.clock.Advance(10 * time.Minute)
	completeReview(first)
	completeReview(second)
	h.clock.Advance(30 * time.Minute)
	work.release <- struct{}{}
	work.release <- struct{}{}
	h.idle()
	h.requireStatus(first, engine.StatusCompleted)
	done := progress(first)
	require.Equal(t, 100.0, done.Percent)
	require.Equal(t, engine.ProgressEnded, done.Basis)

	third := start()
	p = progress(third)
	require.Equal(t, engine.ProgressByDurations, p.Basis)
	require.Equal(t, 2, p.Sampled)
	require.Equal(t, 0.0, p.Percent)
	require.Equal(t, h.clock.Now().Add(40*time.Minute), *p.ETA)

	h.clock.Advance(5 * time.Minute)
	p = progress(third)
	require.Equal(t, 12.5, p.Percent, "half of the review's typical 10 minutes, which end at 25 %")
	require.Equal(t, h.clock.Now().Add(35*time.Minute), *p.ETA)

	job := completeReview(third)
	p = progress(third)
	require.Equal(t, 25.0, p.Percent, "the review is done; the work has just begun")
	require.Equal(t, h.clock.Now().Add(30*time.Minute), *p.ETA)

	require.NoError(t, job.ReportProgress(40, "halfway through the files"))
	evs := seen.await(t, h.ctx, 2)
	require.Equal(t, engine.EventElementProgress, evs[0].Type)
	require.Equal(t, "work", evs[0].ElementID)
	require.Equal(t, map[string]any{"percent": 40.0, "message": "halfway through the files"}, evs[0].Detail)
	require.Equal(t, engine.EventInstanceProgress, evs[1].Type)
	require.Equal(t, 55.0, evs[1].Detail["percent"], "25 % + 40 % of the work's 75 %")
	require.Equal(t, h.clock.Now().Add(18*time.Minute).Format(time.RFC3339Nano), evs[1].Detail["eta"])
	p = progress(third)
	require.Equal(t, 55.0, p.Percent)
	require.Equal(t, map[string]engine.ElementProgress{"work": {Percent: 40, Message: "halfway through the files", At: h.clock.Now()}}, p.Elements)

	for _, bad := range []struct {
		percent float64
		message string
		names   string
	}{
		{-1, "", "percent"},
		{100.5, "", "percent"},
		{math.NaN(), "", "percent"},
		{50, strings.Repeat("x", engine.ProgressMessageMax+1), "message"},
	} {
		err := job.ReportProgress(bad.percent, bad.message)
		require.ErrorIs(t, err, engine.ErrInvalidInput)
		require.ErrorContains(t, err, bad.names)
	}

	work.release <- struct{}{}
	h.idle()
	h.requireStatus(third, engine.StatusCompleted)
	require.ErrorIs(t, job.ReportProgress(90, "late"), engine.ErrInvalidState, "the job has finished")
	require.ErrorIs(t, (&engine.Job{Key: "k"}).ReportProgress(10, ""), engine.ErrInvalidState, "no engine runs it")
	require.Len(t, seen.await(t, h.ctx, 2), 2, "a finished job's report sends nothing")
}

// TestProgressIsRateLimited: reports that follow each other within
// ProgressInterval are coalesced into one flush with the last value, and
// none of them is stored in the instance's log.
func TestProgressIsRateLimited(t *testing.T) {
	t.Parallel()
	h := setup(t)
	work := &progressWork{started: make(chan *engine.Job), release: make(chan struct{})}
	h.e.RegisterHandler("progress.work", work)
	seen := &progressEvents{added: make(chan struct{}, 1)}
	t.Cleanup(h.e.Subscribe(seen))
	h.deploySource(progressBPMN)
	snap, _, err := h.e.Start(h.ctx, engine.StartRequest{Definition: "p"})
	require.NoError(t, err)
	h.idle()
	_, err = h.e.CompleteTask(h.ctx, h.openTask(snap.ID, "review").ID, "tester", nil)
	require.NoError(t, err)
	job := <-work.started

	require.NoError(t, job.ReportProgress(10, "one"))
	require.Len(t, seen.await(t, h.ctx, 2), 2, "the first report goes out at once")
	for pct := 20.0; pct <= 90; pct += 10 {
		require.NoError(t, job.ReportProgress(pct, "more"))
	}
	h.clock.Advance(engine.ProgressInterval)
	evs := seen.await(t, h.ctx, 4)
	require.Len(t, evs, 4, "eight reports within the interval: one flush")
	require.Equal(t, engine.EventElementProgress, evs[2].Type)
	require.Equal(t, 90.0, evs[2].Detail["percent"], "the last report wins")
	require.Equal(t, engine.EventInstanceProgress, evs[3].Type)

	work.release <- struct{}{}
	h.idle()
	h.requireStatus(snap.ID, engine.StatusCompleted)
	require.Zero(t, h.count(snap.ID, engine.EventElementProgress, ""), "progress is not stored")
	require.Zero(t, h.count(snap.ID, engine.EventInstanceProgress, ""), "progress is not stored")
}
