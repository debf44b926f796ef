package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// openPanelGroup opens a properties panel group unless it is open already.
func openPanelGroup(id string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.WaitVisible(fmt.Sprintf(`[data-group-id=%q]`, id)),
		js(fmt.Sprintf(`(() => {
			const g = document.querySelector('[data-group-id=%q]');
			if (!g.querySelector('.bio-properties-panel-group-entries.open')) g.querySelector('.bio-properties-panel-group-header').click();
		})()`, id)),
	)
}

// TestBrowserAutoLayout: a file without diagram interchange is laid out on
// import (the status line says so), its shapes can be selected, and the
// deployed source carries the diagram, the file's wf: attributes and its
// gateway condition.
func TestBrowserAutoLayout(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_nodi.bpmn")
	require.NoError(t, err)
	b.run(b.ctx, "import the file without a diagram",
		chromedp.Navigate(srv.url+"/designer"),
		chromedp.WaitVisible(`#designer[data-loaded="true"]`),
		chromedp.SetUploadFiles(`#file-input`, []string{file}),
		chromedp.WaitVisible(`#designer[data-layout="auto"]`),
		waitJS(`document.getElementById('designer-status').textContent.includes('laid out automatically: the file had no diagram')`),
	)
	for _, id := range []string{"received", "price", "large", "approve", "ship", "done"} {
		b.run(b.ctx, "shape "+id, chromedp.WaitVisible(fmt.Sprintf(`.djs-element[data-element-id=%q]`, id)))
	}
	// A straight flow has no height, so it is never "visible": it is drawn.
	for _, id := range []string{"f1", "f2", "big", "small", "f3", "f4"} {
		b.run(b.ctx, "flow "+id, chromedp.WaitReady(fmt.Sprintf(`.djs-element.djs-connection[data-element-id=%q] path`, id)))
	}
	b.run(b.ctx, "laid out left to right, one shape apart from the other",
		waitJS(`(() => {
			const reg = wfpp.modeler.get('elementRegistry');
			const shapes = ['received', 'price', 'large', 'approve', 'ship', 'done'].map((id) => reg.get(id));
			const apart = shapes.every((a, i) => shapes.every((b, j) => i === j || a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y));
			return apart && shapes[0].x < shapes[2].x && shapes[2].x < shapes[5].x;
		})()`),
		selectShape("approve"),
		chromedp.WaitEnabled(`#btn-form`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-auto-layout")
	b.check()

	ctx := context.Background()
	rec, def, err := srv.eng.Definition(ctx, "browser_nodi", 0)
	require.NoError(t, err)
	src := string(rec.Source)
	require.Contains(t, src, "BPMNDiagram")
	for _, id := range []string{"received", "price", "large", "approve", "ship", "done"} {
		require.Contains(t, src, fmt.Sprintf(`bpmnElement=%q`, id), "a shape for %s", id)
	}
	require.Equal(t, 2, def.Main().Node("price").Retry.Retries, "wf:retries survives the layout")
	inst, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_nodi"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(ctx, inst.ID)
		return err == nil && len(snap.Tasks) == 1 && snap.Tasks[0].ElementID == "approve"
	}, 10*time.Second, 10*time.Millisecond, "the gateway's condition survives the layout: a total of 120 needs approval")
}

// TestBrowserCamunda7Properties: a Camunda 7 file opens with the Camunda 7
// properties panel (camunda:assignee, the script's format, asynchronous
// continuations; the Workflow++ group too); the assignee changed there is
// the one the deployed process gives its task. A new diagram is Camunda 8
// again, and stays open when a Camunda 7 file cannot be opened.
func TestBrowserCamunda7Properties(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_c7.bpmn")
	require.NoError(t, err)
	const assignee = `[data-group-id="group-CamundaPlatform__UserAssignment"] [data-entry-id="assignee"] input`
	b.run(b.ctx, "import the Camunda 7 file",
		chromedp.Navigate(srv.url+"/designer"),
		chromedp.WaitVisible(`#designer[data-loaded="true"][data-flavour="zeebe"]`),
		chromedp.SetUploadFiles(`#file-input`, []string{file}),
		chromedp.WaitVisible(`#designer[data-flavour="camunda7"]`),
		chromedp.WaitVisible(`.djs-element[data-element-id="decide"]`),
		waitJS(`document.getElementById('designer-status').textContent.includes('Camunda 7')`),
	)
	b.run(b.ctx, "the script task's Camunda 7 properties",
		selectShape("prepare"),
		openPanelGroup("group-CamundaPlatform__Script"),
		chromedp.WaitVisible(`[data-group-id="group-CamundaPlatform__Script"] [data-entry-id="scriptFormat"] input`),
		waitJS(`document.querySelector('[data-group-id="group-CamundaPlatform__Script"] [data-entry-id="scriptFormat"] input').value === 'javascript'`),
		openPanelGroup("group-CamundaPlatform__AsynchronousContinuations"),
		waitJS(`document.querySelector('[data-group-id="group-CamundaPlatform__AsynchronousContinuations"] input[type="checkbox"]').checked`),
	)
	b.run(b.ctx, "the user task's assignee, changed in the panel",
		selectShape("decide"),
		chromedp.WaitEnabled(`#btn-form`), // the form dialog follows the new modeler
		chromedp.WaitVisible(`[data-group-id="group-workflowpp"]`),
		waitJS(`!document.querySelector('[data-group-id="group-assignmentDefinition"]')`), // not the Zeebe panel
		openPanelGroup("group-CamundaPlatform__UserAssignment"),
		chromedp.WaitVisible(assignee),
		waitJS(fmt.Sprintf(`document.querySelector(%q).value === 'demo'`, assignee)),
		chromedp.Click(assignee),
		js(fmt.Sprintf(`document.querySelector(%q).select()`, assignee)),
		chromedp.SendKeys(assignee, "ada"),
		waitJS(`wfpp.modeler.get('elementRegistry').get('decide').businessObject.get('camunda:assignee') === 'ada'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-camunda7")
	broken, err := filepath.Abs("testdata/browser_c7_broken.bpmn")
	require.NoError(t, err)
	b.run(b.ctx, "a new diagram is Camunda 8; a Camunda 7 file that cannot be opened keeps it",
		chromedp.Click(`#btn-new`),
		chromedp.WaitVisible(`#designer[data-flavour="zeebe"]`),
		waitJS(`!!wfpp.modeler.get('elementRegistry').get('StartEvent_1')`),
		chromedp.SetUploadFiles(`#file-input`, []string{broken}),
		waitJS(`document.body.textContent.includes('The diagram could not be opened')`),
		chromedp.WaitVisible(`#designer[data-flavour="zeebe"] .djs-element[data-element-id="StartEvent_1"]`),
	)
	b.check()

	ctx := context.Background()
	rec, def, err := srv.eng.Definition(ctx, "browser_c7", 0)
	require.NoError(t, err)
	require.Equal(t, "ada", def.Main().Node("decide").Human.Assignee)
	require.Equal(t, []string{"managers"}, def.Main().Node("decide").Human.CandidateGroups)
	require.Contains(t, string(rec.Source), `camunda:assignee="ada"`)
	require.NotContains(t, string(rec.Source), "zeebe:", "a Camunda 7 file stays Camunda 7")
	inst, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_c7"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(ctx, inst.ID)
		return err == nil && len(snap.Tasks) == 1 && snap.Tasks[0].Assignee == "ada"
	}, 10*time.Second, 10*time.Millisecond, "the task is assigned to the new assignee")
}
