package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestBrowserMonitorShowsWebhook: the monitor of an instance waiting at a
// webhook receive task shows the URL, absolute and copyable, on the element
// and in its side panel; a POST to it moves the instance and the URL goes.
func TestBrowserMonitorShowsWebhook(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	srv.post(t, "/api/v1/definitions", "application/xml", []byte(webhookBPMN), nil)
	var inst struct {
		ID       string
		Status   string
		Webhooks []struct{ URL string }
	}
	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"hooked"}`), &inst)
	require.Eventually(t, func() bool {
		ok, err := srv.getJSON(t, "/api/v1/instances/"+inst.ID, &inst)
		return err == nil && ok && len(inst.Webhooks) == 1
	}, 10*time.Second, 20*time.Millisecond, "the instance waits at its webhook")
	url := srv.url + inst.Webhooks[0].URL

	b := newBrowser(t)
	b.run(b.ctx, "the monitor shows the webhook URL",
		chromedp.Navigate(srv.url+"/instances/"+inst.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"][data-subscribed="true"]`),
		waitJS(fmt.Sprintf(`document.querySelector('#webhooks li[data-element="paid"] input.webhook-url')?.value === %q`, url)),
		waitJS(`!!document.querySelector('#webhooks li[data-element="paid"] button')`),
		waitJS(`document.querySelector('.wf-badge.webhook[data-element="paid"]')?.title.endsWith(`+fmt.Sprintf("%q", inst.Webhooks[0].URL)+`)`),
	)

	srv.post(t, inst.Webhooks[0].URL, "application/json", []byte(`{"status":"paid"}`), nil)
	b.run(b.ctx, "the URL goes when the wait ends",
		waitJS(`document.getElementById('instance-status').textContent === 'completed'`),
		waitJS(`document.getElementById('webhooks-card').hidden && !document.querySelector('.wf-badge.webhook')`),
	)
}

// TestBrowserDesignerWebhook: a receive task becomes a webhook wait in the
// designer's Workflow++ group (its filter and multi-use fields show once it
// is on); the deployed definition waits at a webhook with that filter.
func TestBrowserDesignerWebhook(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_webhook.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	entry := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	paid := `wfpp.modeler.get('elementRegistry').get('paid').businessObject`
	b.run(b.ctx, "import", importInDesigner(srv, file, "paid")...)
	b.run(b.ctx, "make the receive task a webhook wait and deploy",
		selectShape("paid"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(entry("webhook")+` select`),
		waitJS(`!document.querySelector('[data-entry-id="wf-webhookFilter"]')`),
		chromedp.SetValue(entry("webhook")+` select`, "true"),
		js(`document.querySelector('[data-entry-id="wf-webhook"] select').dispatchEvent(new Event('change', {bubbles: true}))`),
		waitJS(paid+`.get('wf:webhook') === 'true'`),
		chromedp.WaitVisible(entry("webhookFilter")+` input`),
		chromedp.SendKeys(entry("webhookFilter")+` input`, `amount > 10`),
		waitJS(paid+`.get('wf:webhookFilter') === 'amount > 10'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	rec, def, err := srv.eng.Definition(context.Background(), "browser_webhook", 0)
	require.NoError(t, err)
	require.Contains(t, string(rec.Source), `wf:webhook="true"`)
	w := def.Main().Node("paid").Webhook
	require.NotNil(t, w)
	require.Equal(t, "amount > 10", w.Filter)
	require.False(t, w.MultiUse)
}
