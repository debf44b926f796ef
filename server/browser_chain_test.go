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

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// TestBrowserChainTrigger: the designer's Workflow++ group adds a trigger
// to the process (with the process selected); the deployed XML carries it
// and the engine reads it. The monitor of an instance that triggered
// another links to it, and that one's monitor links back.
func TestBrowserChainTrigger(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	srv.post(t, "/api/v1/definitions", "application/xml", []byte(invoiceSource), nil)
	file, err := filepath.Abs("testdata/approval.bpmn")
	require.NoError(t, err)
	entry := `[data-group-id="group-workflowpp"] [data-entry-id="wf-triggers"]`
	root := `wfpp.modeler.get('canvas').getRootElement().businessObject`
	trigger := `(` + root + `.extensionElements?.values || []).find((v) => v.$instanceOf('wf:Trigger'))`

	b.run(b.ctx, "import", importInDesigner(srv, file, "book")...)
	b.run(b.ctx, "select the process, add a trigger, fill it in, deploy",
		js(`wfpp.modeler.get('selection').select(wfpp.modeler.get('canvas').getRootElement())`),
		chromedp.WaitVisible(`[data-group-id="group-workflowpp"]`),
		openWorkflowpp(),
		chromedp.WaitVisible(entry+` .wf-trigger-add`),
		chromedp.Click(entry+` .wf-trigger-add`),
		chromedp.WaitVisible(entry+` .wf-trigger input[data-attr="target"]`),
		enterText(entry+` .wf-trigger input[data-attr="target"]`, "invoice"),
		waitJS(trigger+`?.get('target') === 'invoice'`),
		enterText(entry+` .wf-trigger textarea[data-attr="inputs"]`, "orderId: =orderId"),
		waitJS(trigger+`?.inputs?.[0]?.source === '=orderId'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-trigger")

	rec, def, err := srv.eng.Definition(context.Background(), "approval", 0)
	require.NoError(t, err)
	require.Equal(t, []model.ChainTrigger{{On: model.ChainCompleted, Target: "invoice", Input: []model.Mapping{{Source: "=orderId", Target: "orderId"}}}},
		def.Main().Triggers)
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/definitions/approval/versions/%d/xml", srv.url, rec.Version))
	require.NoError(t, err)
	defer resp.Body.Close()
	xml, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(xml), `<wf:trigger on="completed" target="invoice">`)
	require.Contains(t, string(xml), `<wf:input source="=orderId" target="orderId" />`)

	srv.post(t, "/api/v1/definitions", "application/xml", []byte(chainSource), nil)
	var order struct{ ID string }
	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"order","variables":{"orderId":"o-9"}}`), &order)
	var view struct {
		Triggered []struct{ ID string }
	}
	require.Eventually(t, func() bool {
		ok, err := srv.getJSON(t, "/api/v1/instances/"+order.ID, &view)
		return err == nil && ok && len(view.Triggered) == 1
	}, 10*time.Second, 10*time.Millisecond)
	invoice := view.Triggered[0].ID
	b.run(b.ctx, "the order's monitor links the invoice, whose monitor links back",
		chromedp.Navigate(srv.url+"/instances/"+order.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"]`),
		chromedp.WaitVisible(fmt.Sprintf(`#triggered a[href="/instances/%s"]`, invoice)),
		chromedp.WaitVisible(fmt.Sprintf(`#timeline .chain-link[href="/instances/%s"]`, invoice)),
		chromedp.Click(fmt.Sprintf(`#triggered a[href="/instances/%s"]`, invoice)),
		chromedp.WaitVisible(fmt.Sprintf(`#triggered-by a[href="/instances/%s"]`, order.ID)),
		waitJS(`document.getElementById('monitor').dataset.instance === '`+invoice+`'`),
	)
	snap, err := srv.eng.Instance(context.Background(), invoice)
	require.NoError(t, err)
	require.Equal(t, &engine.ChainRef{InstanceID: order.ID, Definition: "order", Depth: 1}, snap.TriggeredBy)
}

// enterText puts text into the box sel names as one edit and leaves it, as a
// user does: focus, the value, blur. (Keys sent one by one can land in a
// box the panel re-renders meanwhile, after the previous box's save.)
func enterText(sel, text string) chromedp.Action[chromedp.Void] {
	return js(fmt.Sprintf(`(() => { const b = document.querySelector(%q); b.focus(); b.value = %q; b.dispatchEvent(new Event('input', {bubbles: true})); b.blur(); })()`, sel, text))
}
