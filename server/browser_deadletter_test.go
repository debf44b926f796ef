package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestBrowserDeadLetterBulkDiscard: on the dead letters page an operator
// filters by error text, asks to discard what matches, sees how many a dry
// run counted before confirming (nothing changed yet), confirms, and sees
// the letters discarded with their incidents still open; then purges them.
func TestBrowserDeadLetterBulkDiscard(t *testing.T) {
	srv := startLiveServer(t)
	srv.eng.RegisterHandler("ext.work", engine.HandlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		return nil, engine.Permanent(errors.New(fmt.Sprint(j.Variables["failure"])))
	}))
	src, err := os.ReadFile("testdata/external.bpmn")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/xml", src, nil)
	for _, failure := range []string{"disk full on /var", "Disk full on /tmp", "quota exceeded"} {
		body, _ := json.Marshal(map[string]any{"definition": "external", "variables": map[string]any{"failure": failure}})
		srv.post(t, "/api/v1/instances", "application/json", body, nil)
	}
	ctx := context.Background()
	count := func(st engine.DeadLetterStatus) int {
		n, err := srv.eng.Queries().CountDeadLetters(ctx, engine.DeadLetterFilter{Status: []engine.DeadLetterStatus{st}})
		require.NoError(t, err)
		return n
	}
	require.Eventually(t, func() bool { return count(engine.DeadLetterPending) == 3 }, 10*time.Second, 20*time.Millisecond)

	b := newBrowser(t)
	b.run(b.ctx, "the dead letters page lists them",
		chromedp.Navigate(srv.url+"/dead-letters"),
		waitJS(`document.querySelectorAll('#deadletter-list tr[data-status="pending"]').length === 3`),
	)
	b.run(b.ctx, "filter by error text",
		chromedp.SetValue(`#deadletter-filters input[name="error"]`, "disk full"),
		chromedp.Click(`#deadletter-filters button[type="submit"]`),
		waitAfterNavigation(`new URLSearchParams(location.search).get('error') === 'disk full'`),
		waitJS(`document.querySelectorAll('#deadletter-list tr[data-deadletter]').length === 2`),
	)
	b.run(b.ctx, "a dry run counts what the discard would change",
		// once the page's module has its click handler, in the page's own
		// document: chromedp's node ids can lag the navigation just made
		waitJS(`document.readyState === 'complete'`),
		js(`document.querySelector('#deadletter-bulk button[data-bulk="discard"]').click()`),
		chromedp.WaitVisible(`dialog.confirm button[data-confirm="yes"]`),
	)
	question := b.dialogText()
	require.Contains(t, question, "Discard 2 pending dead letter(s)")
	require.Equal(t, 3, count(engine.DeadLetterPending), "nothing changes before the operator confirms")
	b.run(b.ctx, "confirm the discard",
		chromedp.Click(`dialog.confirm button[data-confirm="yes"]`),
		waitAfterNavigation(`document.querySelectorAll('#deadletter-list tr[data-status="discarded"]').length === 2`),
	)
	b.screenshot(b.ctx, "dead-letters")
	require.Equal(t, 2, count(engine.DeadLetterDiscarded))
	require.Equal(t, 1, count(engine.DeadLetterPending), "the letter the filter left out is still pending")
	open, err := srv.eng.Queries().Incidents(ctx, engine.IncidentFilter{Open: true})
	require.NoError(t, err)
	require.Len(t, open, 3, "discarding resolves no incident")

	b.run(b.ctx, "purge the discarded letters, with a dry run first",
		waitJS(`document.readyState === 'complete'`),
		js(`document.getElementById('purge-age').value = '0s'`),
		js(`document.querySelector('#deadletter-bulk button[data-bulk="purge"]').click()`),
		chromedp.WaitVisible(`dialog.confirm button[data-confirm="yes"]`),
	)
	question = b.dialogText()
	require.Contains(t, question, "Purge 2 settled dead letter(s)")
	require.Equal(t, 2, count(engine.DeadLetterDiscarded), "nothing is purged before the operator confirms")
	b.run(b.ctx, "confirm the purge",
		chromedp.Click(`dialog.confirm button[data-confirm="yes"]`),
		waitAfterNavigation(`!document.querySelector('#deadletter-list') && /^0 dead letter/.test(document.querySelector('#deadletters-section h2').textContent)`),
	)
	require.Zero(t, count(engine.DeadLetterDiscarded))
	require.Equal(t, 1, count(engine.DeadLetterPending))
	b.check()
}

// dialogText is the question of the confirmation dialog that is open.
func (b *browser) dialogText() string {
	b.t.Helper()
	text, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('dialog.confirm p').textContent`))
	require.NoError(b.t, err)
	return text
}

// waitAfterNavigation is waitJS across a navigation the last action started
// (a form submitted, a page reloaded): a poll the navigation cut off starts
// again on the new page.
func waitAfterNavigation(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			_, err := waitJS(expr)(ctx, t)
			if err == nil || !strings.Contains(err.Error(), "navigated or closed") && !strings.Contains(err.Error(), "Cannot find context") || ctx.Err() != nil {
				return err
			}
		}
	})
}
