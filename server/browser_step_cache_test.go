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
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/model"
)

// TestBrowserStepCache: the Workflow++ group gives a service task a result
// cache (its settings show once it has a key); the deployed XML carries it
// and the engine reads it.
func TestBrowserStepCache(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/approval.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	field := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	b.run(b.ctx, "import", importInDesigner(srv, file, "book")...)
	b.run(b.ctx, "select the service task, give it a cache key, tune the cache",
		selectShape("book"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("cacheKey")+` input`),
		waitJS(`!document.querySelector('[data-entry-id="wf-cacheTtl"]')`), // no key: no settings
		chromedp.SendKeys(field("cacheKey")+` input`, "room-${room}"),
		chromedp.WaitVisible(field("cacheTtl")+` input`),
		chromedp.SendKeys(field("cacheTtl")+` input`, "PT15M"),
		chromedp.SendKeys(field("cacheCondition")+` input`, "cacheable"),
		chromedp.SetValue(field("cacheScope")+` select`, "global"),
		js(`document.querySelector('[data-entry-id="wf-cacheScope"] select').dispatchEvent(new Event('change', {bubbles: true}))`),
		waitJS(`(() => { const bo = wfpp.modeler.get('elementRegistry').get('book').businessObject;
			return bo.get('wf:cacheKey') === 'room-${room}' && bo.get('wf:cacheTtl') === 'PT15M' &&
				bo.get('wf:cacheCondition') === 'cacheable' && bo.get('wf:cacheScope') === 'global'; })()`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-step-cache")

	rec, def, err := srv.eng.Definition(context.Background(), "approval", 0)
	require.NoError(t, err)
	require.Equal(t, &model.CachePolicy{Key: "room-${room}", TTL: 15 * time.Minute, Condition: "cacheable", Scope: model.CacheGlobal},
		def.Main().Node("book").Cache)
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/definitions/approval/versions/%d/xml", srv.url, rec.Version))
	require.NoError(t, err)
	defer resp.Body.Close()
	xml, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", xml)
	for _, want := range []string{`wf:cacheKey="room-${room}"`, `wf:cacheTtl="PT15M"`, `wf:cacheCondition="cacheable"`, `wf:cacheScope="global"`} {
		require.Contains(t, string(xml), want)
	}
}
