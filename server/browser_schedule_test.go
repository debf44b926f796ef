package server_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestBrowserSchedules: on the Schedules page a person creates a schedule
// for a deployed definition, sees it listed with its next fire times, and
// disables it; the engine holds it disabled.
func TestBrowserSchedules(t *testing.T) {
	srv := startLiveServer(t)
	_, _, err := srv.eng.Deploy(context.Background(), engine.DeployRequest{Source: []byte(scheduledXML)})
	require.NoError(t, err)
	b := newBrowser(t)

	row := `#schedule-list tr[data-schedule]`
	b.run(b.ctx, "create a weekday schedule in Berlin time",
		chromedp.Navigate(srv.url+"/schedules"),
		chromedp.WaitVisible(`#schedule-form`),
		chromedp.SetValue(`#schedule-form select[name="definitionKey"]`, "report"),
		chromedp.SendKeys(`#schedule-form input[name="cron"]`, "0 9 * * 1-5"),
		chromedp.SendKeys(`#schedule-form input[name="timeZone"]`, "Europe/Berlin"),
		chromedp.SendKeys(`#schedule-form textarea[name="variables"]`, `{"at": "${scheduledTime}"}`),
		chromedp.Click(`#schedule-save`),
		chromedp.WaitVisible(row+`[data-enabled="true"]`),
		chromedp.WaitVisible(row+` td.next[data-count="3"]`),
	)
	b.screenshot(b.ctx, "schedules")
	b.run(b.ctx, "disable it",
		chromedp.Click(row+` button[data-action="disable"]`),
		chromedp.WaitVisible(row+`[data-enabled="false"]`),
	)

	// A timer start event's schedule: marked as the definition's, no edit,
	// but it is disabled like the others.
	_, _, err = srv.eng.Deploy(context.Background(), engine.DeployRequest{Source: []byte(nightlyXML)})
	require.NoError(t, err)
	timerRow := `#schedule-list tr[data-schedule="bpmn:nightly:at2"]`
	b.run(b.ctx, "see the timer start event",
		chromedp.Reload(),
		chromedp.WaitVisible(timerRow+`[data-enabled="true"]`),
	)
	source, err := chromedp.Run(b.ctx, chromedp.Text(timerRow+` td.source`))
	require.NoError(t, err)
	require.Equal(t, "from the definition: timer start at2", source)
	actions, err := chromedp.Run(b.ctx, chromedp.Text(timerRow+` td:last-child`))
	require.NoError(t, err)
	require.Equal(t, "Disable", actions, "no Edit: its timing is changed in the BPMN")
	b.run(b.ctx, "disable the timer start event",
		chromedp.Click(timerRow+` button[data-action="disable"]`),
		chromedp.WaitVisible(timerRow+`[data-enabled="false"]`),
	)

	all, err := srv.eng.Schedules(context.Background())
	require.NoError(t, err)
	require.Len(t, all, 2)
	if all[0].Source == engine.ScheduleSourceBPMN {
		all[0], all[1] = all[1], all[0]
	}
	require.Equal(t, "bpmn:nightly:at2", all[1].ID)
	require.False(t, all[1].Enabled)
	require.Equal(t, "report", all[0].DefinitionKey)
	require.Equal(t, "0 9 * * 1-5", all[0].Cron)
	require.Equal(t, "Europe/Berlin", all[0].TimeZone)
	require.Equal(t, map[string]any{"at": "${scheduledTime}"}, all[0].Vars)
	require.False(t, all[0].Enabled)
}
