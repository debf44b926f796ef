package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
)

// TestBrowserLimitsAndBackoff: the designer's Workflow++ group sets the
// process's limits (with the process selected) and a service task's backoff
// factor and statuses to retry; the deployed XML carries them and the engine
// reads them. A bad value is refused at deploy with the attribute named.
func TestBrowserLimitsAndBackoff(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/approval.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	field := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	selectOption := func(name, value string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			chromedp.SetValue(field(name)+` select`, value),
			js(fmt.Sprintf(`document.querySelector('[data-entry-id="wf-%s"] select').dispatchEvent(new Event('change', {bubbles: true}))`, name)),
		)
	}
	root := `wfpp.modeler.get('canvas').getRootElement().businessObject`

	b.run(b.ctx, "import", importInDesigner(srv, file, "book")...)
	b.run(b.ctx, "select the service task, set its backoff factor and statuses to retry",
		selectShape("book"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("backoffFactor")+` input`),
		chromedp.SendKeys(field("backoffFactor")+` input`, "3"),
		chromedp.SendKeys(field("retryOnStatus")+` input`, "429, 503"),
		waitJS(`(() => { const bo = wfpp.modeler.get('elementRegistry').get('book').businessObject;
			return bo.get('wf:backoffFactor') === '3' && bo.get('wf:retryOnStatus') === '429, 503'; })()`),
	)
	b.run(b.ctx, "select the process, set its limits, deploy",
		js(`wfpp.modeler.get('selection').select(wfpp.modeler.get('canvas').getRootElement())`),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("maxConcurrentInstances")+` input`),
		chromedp.SendKeys(field("timeout")+` input`, "PT1H"),
		chromedp.SendKeys(field("maxConcurrentInstances")+` input`, "2"),
		selectOption("overLimit", "refuse"),
		chromedp.SendKeys(field("retryBudget")+` input`, "5"),
		selectOption("onFailure", "fail"),
		waitJS(root+`.get('wf:timeout') === 'PT1H' && `+root+`.get('wf:maxConcurrentInstances') === '2' && `+
			root+`.get('wf:overLimit') === 'refuse' && `+root+`.get('wf:retryBudget') === '5' && `+root+`.get('wf:onFailure') === 'fail'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-limits")

	rec, def, err := srv.eng.Definition(context.Background(), "approval", 0)
	require.NoError(t, err)
	require.Equal(t, model.Limits{Timeout: time.Hour, MaxConcurrent: 2, OverLimit: model.OverLimitRefuse, RetryBudget: 5, OnFailure: model.FailureFail}, def.Main().Limits)
	require.InDelta(t, 3.0, def.Main().Node("book").Retry.Factor, 0)
	require.Equal(t, []int{429, 503}, def.Main().Node("book").Retry.RetryOnStatus)
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/definitions/approval/versions/%d/xml", srv.url, rec.Version))
	require.NoError(t, err)
	defer resp.Body.Close()
	xml, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", xml)
	for _, attr := range []string{
		`wf:timeout="PT1H"`, `wf:maxConcurrentInstances="2"`, `wf:overLimit="refuse"`, `wf:retryBudget="5"`, `wf:onFailure="fail"`,
		`wf:backoffFactor="3"`, `wf:retryOnStatus="429, 503"`,
	} {
		require.Contains(t, string(xml), attr)
	}

	b.run(b.ctx, "a bad limit is refused, the attribute named",
		js(`wfpp.modeler.get('selection').select(wfpp.modeler.get('canvas').getRootElement())`),
		chromedp.WaitVisible(field("maxConcurrentInstances")+` input`),
		chromedp.SendKeys(field("maxConcurrentInstances")+` input`, kb.End+kb.Backspace+"many"),
		waitJS(root+`.get('wf:maxConcurrentInstances') === 'many'`),
		chromedp.Click(`#btn-deploy`),
		waitJS(`document.getElementById('problems').textContent.includes('wf:maxConcurrentInstances "many" is not a positive whole number')`),
	)
	_, latest, err := srv.eng.Definition(context.Background(), "approval", 0)
	require.NoError(t, err)
	require.Equal(t, 2, latest.Main().Limits.MaxConcurrent, "nothing new was deployed")
}
