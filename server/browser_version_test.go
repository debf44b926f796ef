package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserVersionRollback: two versions deployed from the designer's
// deploy dialog with change summaries; the definition page shows them with
// v2 the default; "Make default" on v1 rolls back, the page shows v1 as
// the default, and a start without a version lands on v1.
func TestBrowserVersionRollback(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/approval.bpmn")
	require.NoError(t, err)
	deployWith := func(summary string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			js(`document.getElementById('deployed-link')?.remove()`),
			chromedp.Click(`#btn-deploy-options`),
			chromedp.WaitVisible(`#deploy-dialog[open] #deploy-summary`),
			chromedp.SendKeys(`#deploy-summary`, summary),
			chromedp.Click(`#deploy-confirm`),
			chromedp.WaitVisible(`#deployed-link`),
		)
	}

	b.run(b.ctx, "import", importInDesigner(srv, file, "review")...)
	b.run(b.ctx, "deploy v1 and v2 with summaries",
		deployWith("first cut"),
		js(`(() => { const r = wfpp.modeler.get('elementRegistry').get('review');
			wfpp.modeler.get('modeling').updateProperties(r, { name: 'Review the expense again' }); })()`),
		deployWith("reviews twice"),
		waitJS(`document.getElementById('deployed-link').textContent.includes('v2')`),
	)
	b.run(b.ctx, "the page shows v2 as the default, with both summaries",
		chromedp.Navigate(srv.url+"/definitions/approval"),
		chromedp.WaitVisible(`#versions`),
		waitJS(`document.querySelector('#versions tr[data-version="2"] .badge.default') !== null`),
		waitJS(`document.querySelector('#versions tr[data-version="1"] .badge.default') === null`),
		waitJS(`document.querySelector('#versions tr[data-version="2"] .summary').textContent === 'reviews twice'`),
		waitJS(`document.querySelector('#versions tr[data-version="1"] .summary').textContent === 'first cut'`),
		waitJS(`document.querySelector('#versions tr[data-version="1"] .version-active').textContent === 'active'`),
	)
	b.run(b.ctx, "make v1 the default",
		chromedp.Click(`#versions tr[data-version="1"] button[data-action="rollback"]`),
		chromedp.WaitVisible(`#versions tr[data-version="1"] .badge.default`), // after the page reloads
		waitJS(`document.querySelector('#versions tr[data-version="2"] .badge.default') === null`),
		waitJS(`document.querySelector('#versions tr[data-version="2"] button[data-action="rollback"]') !== null`),
	)
	b.screenshot(b.ctx, "definition-versions")

	body, err := json.Marshal(map[string]any{"definition": "approval"})
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.url+"/api/v1/instances", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var inst struct {
		Version int `json:"version"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&inst))
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, 1, inst.Version)
}
