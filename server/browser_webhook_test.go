package server_test

import (
	"fmt"
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
