package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestBrowserMonitorShowsCurrentState: the monitor of a state machine
// draws its states (the BPMN export laid out automatically) and shows the
// current state and the history, and follows the machine live when a
// message moves it on.
func TestBrowserMonitorShowsCurrentState(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	noop := engine.HandlerFunc(func(context.Context, *engine.Job) (map[string]any, error) { return nil, nil })
	srv.eng.RegisterHandler("order.check", noop)
	srv.eng.RegisterHandler("order.reserve", noop)
	src, err := os.ReadFile(filepath.Join("..", "testdata", "steps", "state-machine-order.yaml"))
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/yaml", src, nil)
	var inst struct{ ID string }
	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"order_lifecycle","variables":{"orderId":"o-9","total":80}}`), &inst)
	var waiting struct{ Tokens []struct{ ElementID string } }
	require.Eventually(t, func() bool {
		ok, err := srv.getJSON(t, "/api/v1/instances/"+inst.ID, &waiting)
		return err == nil && ok && len(waiting.Tokens) == 1 && waiting.Tokens[0].ElementID == "approved__message"
	}, 10*time.Second, 20*time.Millisecond, "the machine waits in approved")

	b := newBrowser(t)
	b.run(b.ctx, "open the monitor while the machine waits in approved",
		chromedp.Navigate(srv.url+"/instances/"+inst.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"][data-subscribed="true"]`),
		waitJS(`document.getElementById('current-state')?.dataset.state === 'approved'`),
		waitJS(`document.querySelector('#state-history li[data-state="pending"]')?.textContent.includes('condition: total <= 1000')`),
		waitJS(`document.querySelector('.wf-badge.state[data-element="approved"]') !== null`),
		waitJS(`['pending', 'approved', 'shipped', 'delivered', 'rejected'].every((s) => document.querySelector('#canvas [data-element-id="' + s + '"]'))`),
	)

	srv.post(t, "/api/v1/messages", "application/json", []byte(`{"name":"order.shipped","correlationKey":"o-9"}`), nil)
	b.run(b.ctx, "the current state follows live",
		waitJS(`document.getElementById('current-state')?.dataset.state === 'shipped'`),
		waitJS(`document.querySelector('#state-history li[data-state="approved"]')?.textContent.includes('message: order.shipped')`),
		waitJS(`document.querySelector('.wf-badge.state[data-element="shipped"]') !== null`),
		waitJS(`document.querySelector('.wf-badge.state[data-element="approved"]') === null`),
	)
}
