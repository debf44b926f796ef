package server_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestBrowserMonitorShowsProgress: a job reports 40 % with a message while
// its monitor is open; the page shows the report on the element and the
// instance's new estimate live, then 100 % when the instance completes.
func TestBrowserMonitorShowsProgress(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	jobs := make(chan *engine.Job)
	release := make(chan struct{})
	srv.eng.RegisterHandler("progress.copy", engine.HandlerFunc(func(ctx context.Context, job *engine.Job) (map[string]any, error) {
		if job.Variables["hold"] != true {
			return nil, nil
		}
		select {
		case jobs <- job:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, nil
	}))
	src, err := os.ReadFile("testdata/browser_progress.bpmn")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/xml", src, nil)
	// One completed instance to measure: the estimate then has an ETA.
	var done struct{ ID string }
	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"browser_progress"}`), &done)
	var inst struct {
		ID       string
		Status   string
		Progress struct {
			Percent float64
			ETA     *time.Time
			Basis   string
		}
	}
	require.Eventually(t, func() bool {
		ok, err := srv.getJSON(t, "/api/v1/instances/"+done.ID, &inst)
		return err == nil && ok && inst.Status == "completed"
	}, 10*time.Second, 20*time.Millisecond, "the first instance completes")

	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"browser_progress","variables":{"hold":true}}`), &inst)
	job := <-jobs
	b := newBrowser(t)
	b.run(b.ctx, "open the monitor while the job runs",
		chromedp.Navigate(srv.url+"/instances/"+inst.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"][data-subscribed="true"]`),
	)

	require.NoError(t, job.ReportProgress(40, "copied 4 of 10 files"))
	b.run(b.ctx, "the report shows on the element",
		waitJS(`document.querySelector('.wf-badge.reported[data-element="copy"]')?.textContent === '40 % · copied 4 of 10 files'`),
	)
	ok, err := srv.getJSON(t, "/api/v1/instances/"+inst.ID, &inst)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, engine.ProgressByDurations, inst.Progress.Basis)
	require.NotNil(t, inst.Progress.ETA)
	b.run(b.ctx, "the instance's estimate follows",
		waitJS(fmt.Sprintf(`document.getElementById('instance-progress').dataset.percent === %q`, strconv.FormatFloat(inst.Progress.Percent, 'f', -1, 64))),
		waitJS(`document.getElementById('instance-progress').textContent.includes('ETA')`),
	)

	release <- struct{}{}
	b.run(b.ctx, "the end shows 100 % and no report",
		waitJS(`document.getElementById('instance-progress').dataset.percent === '100'`),
		waitJS(`document.getElementById('instance-progress').dataset.eta === ''`),
		waitJS(`document.querySelector('.wf-badge.reported') === null`),
	)
	b.check()
}
