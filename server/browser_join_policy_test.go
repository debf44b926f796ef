package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestBrowserDesignerJoinPolicy: a parallel join's policy is set in the
// designer's Workflow++ group; the deployed XML carries it and it runs: one
// of two branches is enough and the other, a user task, is cancelled.
func TestBrowserDesignerJoinPolicy(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_join.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	entry := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	choose := func(name, value string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.SetValue(entry(name)+` select`, value),
			js(fmt.Sprintf(`document.querySelector('[data-entry-id="wf-%s"] select').dispatchEvent(new Event('change', {bubbles: true}))`, name)),
		)
	}
	join := `wfpp.modeler.get('elementRegistry').get('join').businessObject`
	b.run(b.ctx, "import", importInDesigner(srv, file, "join")...)
	b.run(b.ctx, "set the join's policy and deploy",
		selectShape("join"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(entry("joinPolicy")+` select`),
		choose("joinPolicy", "n_of_m"),
		waitJS(join+`.get('wf:joinPolicy') === 'n_of_m'`),
		chromedp.SendKeys(entry("joinN")+` input`, "1"),
		waitJS(join+`.get('wf:joinN') === '1'`),
		chromedp.SendKeys(entry("branchTimeout")+` input`, "PT5M"),
		waitJS(join+`.get('wf:branchTimeout') === 'PT5M'`),
		choose("cancelRemaining", "true"),
		waitJS(join+`.get('wf:cancelRemaining') === 'true'`),
		chromedp.SendKeys(entry("joinResultsVariable")+` input`, "outcome"),
		waitJS(join+`.get('wf:joinResultsVariable') === 'outcome'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	ctx := context.Background()
	rec, def, err := srv.eng.Definition(ctx, "browser_join", 0)
	require.NoError(t, err)
	for _, attr := range []string{`wf:joinPolicy="n_of_m"`, `wf:joinN="1"`, `wf:branchTimeout="PT5M"`, `wf:cancelRemaining="true"`, `wf:joinResultsVariable="outcome"`} {
		require.Contains(t, string(rec.Source), attr)
	}
	p := def.Main().Node("join").JoinPolicy
	require.NotNil(t, p)
	require.Equal(t, "n_of_m", p.Policy)
	require.Equal(t, 1, p.N)
	require.Equal(t, 5*time.Minute, p.BranchTimeout)
	require.True(t, p.CancelRemaining)

	inst, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_join"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(ctx, inst.ID)
		return err == nil && snap.Status == engine.StatusCompleted && fmt.Sprint(snap.Variables["outcome"]) == "map[f4:map[status:completed variables:map[a:1]] f5:map[status:cancelled]]"
	}, 10*time.Second, 10*time.Millisecond, "the script branch is enough; the user task is cancelled")
}
