package server_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestBrowserDesignerSavesDAGAsRunnableBPMN: a JSON DAG opened in the
// designer (read only, exported as BPMN) and saved keeps what runs: the
// job types, parameters, retry policies, circuit breakers, the fallback
// flow, the join policy, the limits, the default variables and the read
// model survive the designer's own reading and writing of the export.
func TestBrowserDesignerSavesDAGAsRunnableBPMN(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	b := newBrowser(t)
	src, err := os.ReadFile("../engine/bpmn/testdata/export/resilience.dag.json")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/json", src, nil)

	b.run(b.ctx, "the definition page shows the export, extensions and all",
		chromedp.Navigate(srv.url+"/definitions/resilient-dag"),
		chromedp.WaitVisible(`.djs-element[data-element-id="merge__join"]`),
	)
	b.run(b.ctx, "the designer opens the DAG as BPMN and saves it",
		chromedp.Navigate(srv.url+"/designer/resilient-dag"),
		chromedp.WaitVisible(`#designer[data-loaded="true"][data-readonly="true"]`),
		chromedp.WaitVisible(`.djs-element[data-element-id="fetch"]`),
		js(`wfpp.modeler.saveXML({ format: true }).then((r) => { window.__saved = r.xml; })`),
		waitJS(`typeof window.__saved === 'string'`),
	)
	saved, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`window.__saved`))
	require.NoError(t, err)

	want, err := engine.Parse(src, engine.FormatDAG)
	require.NoError(t, err)
	got, err := engine.Parse([]byte(saved), engine.FormatBPMN)
	require.NoError(t, err, saved)
	require.Equal(t, want.ReadModel, got.ReadModel)
	require.Equal(t, want.Variables, got.Variables)
	p, q := want.Main(), got.Main()
	require.Equal(t, p.Limits, q.Limits)
	require.Len(t, q.AllNodes, len(p.AllNodes))
	for _, n := range p.AllNodes {
		m := q.Node(n.ID)
		require.NotNil(t, m, n.ID)
		require.Equal(t, n.Kind, m.Kind, n.ID)
		require.Equal(t, n.Job.Type, m.Job.Type, n.ID)
		require.Equal(t, n.Job.Timeout, m.Job.Timeout, n.ID)
		require.Equal(t, len(n.Job.Parameters), len(m.Job.Parameters), n.ID)
		require.Equal(t, n.Retry, m.Retry, n.ID)
		require.Equal(t, n.Circuit, m.Circuit, n.ID)
		require.Equal(t, n.JoinPolicy, m.JoinPolicy, n.ID)
	}
	require.Equal(t, want.Main().Node("fetch").Job.Parameters, got.Main().Node("fetch").Job.Parameters)
	for _, f := range p.AllFlows {
		g := q.Flow(f.ID)
		require.NotNil(t, g, f.ID)
		require.Equal(t, [2]any{f.Condition, f.Fallback}, [2]any{g.Condition, g.Fallback}, f.ID)
	}
}

// TestBrowserDesignerParameters: a service task's parameters are written
// as JSON in the Workflow++ group; text that is no JSON object is marked
// and not saved, a JSON object is, and the engine reads it as the job's
// parameters.
func TestBrowserDesignerParameters(t *testing.T) {
	t.Parallel()
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_aids.bpmn")
	require.NoError(t, err)
	box := `[data-group-id="group-workflowpp"] [data-entry-id="wf-parameters"] textarea`
	set := func(text string) chromedp.Action[chromedp.Void] {
		return js(fmt.Sprintf(`(() => { const ta = document.querySelector(%q);
			ta.value = %q; ta.dispatchEvent(new Event('input', {bubbles: true}));
			ta.dispatchEvent(new FocusEvent('blur')); ta.dispatchEvent(new FocusEvent('focusout', {bubbles: true})); })()`, box, text))
	}
	params := `(wfpp.modeler.get('elementRegistry').get('call').businessObject.extensionElements?.values || []).filter((v) => v.$type === 'wf:Parameters')`
	b.run(b.ctx, "import", importInDesigner(srv, file, "call")...)
	b.run(b.ctx, "write parameters, wrong then right, and save the BPMN",
		selectShape("call"),
		openWorkflowpp(),
		chromedp.WaitVisible(box),
		set(`{"channel": "#ops",`),
		waitJS(`!document.querySelector('[data-entry-id="wf-parameters"] .wf-parameters-error').hidden`),
		waitJS(params+`.length === 0`),
		set(`{"channel": "#ops", "text": "Order ${orderId} shipped", "retry": {"max": 2}}`),
		waitJS(params+`.length === 1`),
		waitJS(`document.querySelector('[data-entry-id="wf-parameters"] .wf-parameters-error').hidden`),
		js(`wfpp.modeler.saveXML({ format: true }).then((r) => { window.__saved = r.xml; })`),
		waitJS(`typeof window.__saved === 'string'`),
	)
	saved, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`window.__saved`))
	require.NoError(t, err)
	def, err := engine.Parse([]byte(saved), engine.FormatBPMN)
	require.NoError(t, err, saved)
	require.Equal(t, map[string]any{"channel": "#ops", "text": "Order ${orderId} shipped", "retry": map[string]any{"max": 2.0}},
		def.Main().Node("call").Job.Parameters)
}
