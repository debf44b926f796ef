package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserCircuitBreaker: the Workflow++ group turns a service task's
// circuit breaker on (its settings then show) and marks a flow leaving the
// task as its fallback, a choice flows leaving a gateway do not offer; the
// deployed XML carries both, and the engine reads them.
func TestBrowserCircuitBreaker(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/approval.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	field := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	selectFlow := func(id string) chromedp.Action[chromedp.Void] {
		return js(fmt.Sprintf(`wfpp.modeler.get('selection').select(wfpp.modeler.get('elementRegistry').get(%q))`, id))
	}
	b.run(b.ctx, "import", importInDesigner(srv, file, "book")...)
	b.run(b.ctx, "select the service task, turn its breaker on, tune it",
		selectShape("book"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("circuitBreaker")+` input`),
		waitJS(`!document.querySelector('[data-entry-id="wf-circuitFailureThreshold"]')`), // off: no settings
		chromedp.SendKeys(field("circuitBreaker")+` input`, "payments"),
		chromedp.WaitVisible(field("circuitFailureThreshold")+` input`),
		chromedp.SendKeys(field("circuitFailureThreshold")+` input`, "3"),
		chromedp.SendKeys(field("circuitOpenTimeout")+` input`, "PT30S"),
		waitJS(`(() => { const bo = wfpp.modeler.get('elementRegistry').get('book').businessObject;
			return bo.get('wf:circuitBreaker') === 'payments' && bo.get('wf:circuitFailureThreshold') === '3' && bo.get('wf:circuitOpenTimeout') === 'PT30S'; })()`),
	)
	b.run(b.ctx, "a flow leaving a gateway offers no fallback",
		selectFlow("to-book"),
		waitJS(`wfpp.modeler.get('selection').get()[0].id === 'to-book'`),
		waitJS(`!document.querySelector('[data-entry-id="wf-fallback"]')`),
	)
	b.run(b.ctx, "mark the flow leaving the task as its fallback, deploy",
		selectFlow("book-done"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("fallback")+` select`),
		chromedp.SetValue(field("fallback")+` select`, "true"),
		js(`document.querySelector('[data-entry-id="wf-fallback"] select').dispatchEvent(new Event('change', {bubbles: true}))`),
		waitJS(`wfpp.modeler.get('elementRegistry').get('book-done').businessObject.get('wf:fallback') === 'true'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-circuit-breaker")

	rec, def, err := srv.eng.Definition(context.Background(), "approval", 0)
	require.NoError(t, err)
	book := def.Main().Node("book")
	require.NotNil(t, book.Circuit)
	require.Equal(t, "payments", book.Circuit.Key)
	require.Equal(t, 3, book.Circuit.FailureThreshold)
	require.True(t, book.Outgoing[0].Fallback)
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/definitions/approval/versions/%d/xml", srv.url, rec.Version))
	require.NoError(t, err)
	defer resp.Body.Close()
	xml, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", xml)
	for _, want := range []string{`wf:circuitBreaker="payments"`, `wf:circuitFailureThreshold="3"`, `wf:circuitOpenTimeout="PT30S"`, `wf:fallback="true"`} {
		require.Contains(t, string(xml), want)
	}
}
