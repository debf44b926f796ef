package server_test

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserStepsWorkflowHasADiagram: a steps workflow deployed as YAML
// shows in the live monitor as a laid-out BPMN diagram, its fork_join's
// branches waiting at their agents, and on its definition page.
func TestBrowserStepsWorkflowHasADiagram(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	b := newBrowser(t)
	src, err := os.ReadFile("../testdata/steps/fork_join.yaml")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/yaml", src, nil)
	var inst struct{ ID string }
	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"quotes"}`), &inst)
	b.run(b.ctx, "the monitor of a steps instance shows its diagram",
		chromedp.Navigate(srv.url+"/instances/"+inst.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"]`),
		chromedp.WaitVisible(`.djs-element[data-element-id="ask"]`),
		chromedp.WaitVisible(`.djs-element[data-element-id="ask__join"]`),
		waitJS(`document.querySelectorAll('.djs-connection').length >= 10`),
		waitJS(`['alpha-quote', 'beta-quote', 'gamma-quote'].every(id => document.getElementById('monitor').dataset.active.split(',').includes(id))`),
		waitJS(`document.querySelector('.djs-element[data-element-id="alpha-quote"]').classList.contains('wf-active')`),
	)
	b.run(b.ctx, "the definition page of a steps workflow shows it too",
		chromedp.Navigate(srv.url+"/definitions/quotes"),
		chromedp.WaitVisible(`.djs-element[data-element-id="choose"]`),
	)
}
