package server_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestBrowserInboxCards: cards show the business key and the variables the
// designer chose; search narrows the list; a saved filter survives a
// reload; the navigation's count of my tasks changes live when a task is
// assigned to me.
func TestBrowserInboxCards(t *testing.T) {
	srv := startLiveServer(t, withUser(t, "ada", "managers"))
	b := newBrowser(t)
	ctx := context.Background()
	src, err := os.ReadFile("testdata/browser_inbox.bpmn")
	require.NoError(t, err)
	_, _, err = srv.eng.Deploy(ctx, engine.DeployRequest{Source: src})
	require.NoError(t, err)
	start := func(bkey string, vars map[string]any) {
		_, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_inbox", BusinessKey: bkey, Variables: vars})
		require.NoError(t, err)
	}
	start("INV-1", map[string]any{"owner": "", "amount": 120, "vendor": "Acme"})
	start("INV-2", map[string]any{"owner": "", "amount": 990, "vendor": "Globex"})
	b.login(b.ctx, srv.url, "ada")

	card := func(bkey string) string {
		return fmt.Sprintf(`//li[contains(@class,"task")][.//span[@class="bkey" and text()=%q]]`, bkey)
	}
	b.run(b.ctx, "cards",
		chromedp.WaitVisible(card("INV-1")),
		chromedp.WaitVisible(card("INV-2")),
		waitJS(`[...document.querySelectorAll('li.task .var')].map((e) => e.textContent).sort().join() === 'amount: 120,amount: 990,vendor: Acme,vendor: Globex'`),
		waitJS(`document.getElementById('inbox-total').textContent.trim() === '1–2 of 2'`),
		chromedp.WaitNotVisible(`#nav-inbox-count`),
	)
	b.run(b.ctx, "search, save the filter, reload",
		chromedp.SendKeys(`#inbox-search`, "globex"),
		waitJS(`document.querySelectorAll('li.task').length === 1 && !!document.evaluate('//span[@class="bkey" and text()="INV-2"]', document).iterateNext()`),
		chromedp.Click(`#btn-save-filter`),
		chromedp.WaitVisible(`#save-filter-name`),
		chromedp.SendKeys(`#save-filter-name`, "globex invoices"),
		chromedp.Click(`#btn-save-filter-ok`),
		chromedp.WaitVisible(`#saved-filters a.saved[data-name="globex invoices"]`),
		chromedp.Navigate(srv.url+"/inbox"),
		chromedp.WaitVisible(card("INV-1")),
		chromedp.Click(`#saved-filters a.saved[data-name="globex invoices"]`),
		chromedp.WaitVisible(card("INV-2")),
		waitJS(`document.querySelectorAll('li.task').length === 1 && document.getElementById('inbox-search').value === 'globex'`),
	)
	start("INV-3", map[string]any{"owner": "ada", "amount": 5, "vendor": "Initech"})
	b.run(b.ctx, "the count of my tasks changes live",
		waitJS(`document.getElementById('nav-inbox-count').textContent === '1' && !document.getElementById('nav-inbox-count').hidden`),
	)
	b.check()
}
