package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
)

// chromiumPath is Debian's Chromium; the browser tests fail without it
// (install it with apt-get install -y chromium).
const chromiumPath = "/usr/bin/chromium"

// liveServer is the real server on a loopback port with the memstore engine.
type liveServer struct {
	url string
	eng *engine.Engine
}

func startLiveServer(t *testing.T, mods ...func(*server.Config)) *liveServer {
	t.Helper()
	eng, err := engine.New(engine.Config{Store: memstore.New(), Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2})
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	cfg := server.Config{Engine: eng}
	for _, m := range mods {
		m(&cfg)
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		srv.Close()
		eng.Close()
	})
	return &liveServer{url: "http://" + ln.Addr().String(), eng: eng}
}

// post sends a JSON (or XML) body to the server and decodes the answer.
func (l *liveServer) post(t *testing.T, path, ctype string, body []byte, out any) {
	t.Helper()
	resp, err := http.Post(l.url+path, ctype, bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	require.Less(t, resp.StatusCode, 300, "POST %s: %s", path, buf.String())
	if out != nil {
		require.NoError(t, json.Unmarshal(buf.Bytes(), out))
	}
}

// browser is one headless Chromium with what its tabs reported.
type browser struct {
	t       *testing.T
	ctx     context.Context
	mu      sync.Mutex
	errors  []string // console errors, exceptions, error log entries
	dialogs []string // JavaScript dialogs that opened: script ran
	wg      *sync.WaitGroup
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	_, err := exec.LookPath(chromiumPath)
	require.NoError(t, err, "browser tests need Chromium at %s: apt-get install -y chromium", chromiumPath)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	b := &browser{t: t, ctx: ctx}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
		wg.Wait()
	})
	require.NoError(t, chromedp.Do(ctx)) // start the browser and the first tab
	b.listen(ctx, &wg)
	b.wg = &wg
	return b
}

// listen records errors and dialogs of the tab of ctx until it closes.
func (b *browser) listen(ctx context.Context, wg *sync.WaitGroup) {
	console := chromedp.Console(ctx)
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.errors = append(b.errors, m.String()+" ("+m.URL+")")
				b.mu.Unlock()
			}
		}
	}()
	go func() {
		defer wg.Done()
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.dialogs = append(b.dialogs, string(ev.Type)+": "+ev.Message)
			b.mu.Unlock()
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
}

// tab opens another tab in the same browser, listened to like the first.
func (b *browser) tab() context.Context {
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	require.NoError(b.t, chromedp.Do(ctx))
	b.listen(ctx, b.wg)
	return ctx
}

// run runs actions with a deadline, saving a screenshot when they fail.
func (b *browser) run(ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
		png, _ := chromedp.Run(sctx, chromedp.CaptureScreenshot())
		html, _ := chromedp.Run(sctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
		scancel()
		shot := filepath.Join(os.TempDir(), "wfpp-browser-failure.png")
		_ = os.WriteFile(shot, png, 0o644)
		_ = os.WriteFile(strings.TrimSuffix(shot, ".png")+".html", []byte(html), 0o644)
		b.mu.Lock()
		errs := strings.Join(b.errors, "\n")
		b.mu.Unlock()
		b.t.Fatalf("%s: %v (screenshot: %s; page errors so far:\n%s)", what, err, shot, errs)
	}
}

func (b *browser) check() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	require.Empty(b.t, b.dialogs, "a JavaScript dialog opened: user text ran as script")
	require.Empty(b.t, b.errors, "the pages reported errors")
}

var updateScreenshots = flag.Bool("update-screenshots", false, "save the browser tests' screenshots in docs/screenshots (make screenshots)")

// screenshot captures the tab and, with -update-screenshots, saves it as
// docs/screenshots/name.png.
func (b *browser) screenshot(ctx context.Context, name string) {
	b.t.Helper()
	b.run(ctx, "settle before screenshot", chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(b.t, err)
	require.NotEmpty(b.t, png)
	if !*updateScreenshots {
		return
	}
	dir := filepath.Join("..", "docs", "screenshots")
	require.NoError(b.t, os.MkdirAll(dir, 0o755))
	require.NoError(b.t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// setFlowCondition types a sequence flow's condition in the properties
// panel. A short flow is hard to hit with the mouse: it is selected as a
// click would, until the panel shows it.
func (b *browser) setFlowCondition(ctx context.Context, flow, text string) {
	b.t.Helper()
	b.run(ctx, "set the condition of "+flow+" to "+text,
		waitJS(fmt.Sprintf(`(() => {
			const sel = wfpp.modeler.get('selection'), flow = wfpp.modeler.get('elementRegistry').get(%q);
			if (!sel.isSelected(flow)) sel.select(flow);
			return !!document.querySelector('[data-group-id="group-condition"]');
		})()`, flow)),
		js(`(() => {
			const g = document.querySelector('[data-group-id="group-condition"]');
			if (!g.querySelector('.bio-properties-panel-group-entries.open')) g.querySelector('.bio-properties-panel-group-header').click();
		})()`),
		chromedp.WaitVisible(`[data-group-id="group-condition"] [contenteditable="true"]`),
		chromedp.Click(`[data-group-id="group-condition"] [contenteditable="true"]`),
		js(`document.execCommand('selectAll')`),
		chromedp.SendKeys(`[data-group-id="group-condition"] [contenteditable="true"]`, text),
		waitJS(fmt.Sprintf(`wfpp.modeler.get('elementRegistry').get(%q).businessObject.conditionExpression?.body === %q`, flow, "="+text)),
	)
}

// js runs a JavaScript expression, ignoring its value.
func js(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](expr)(ctx, t)
		return err
	})
}

// waitJS polls a JavaScript expression until it is true.
func waitJS(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[any](expr, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(20*time.Second))(ctx, t)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", expr, err)
		}
		return nil
	})
}

// TestBrowserDesignDeployRunComplete walks the whole path in Chromium:
// import a diagram, set a condition and an assignee in the properties
// panel, see a validation problem on its element, deploy, start, complete
// the task in the inbox (it appears live), and watch the monitor finish.
func TestBrowserDesignDeployRunComplete(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	designer := b.ctx
	bpmnFile, err := filepath.Abs("testdata/browser_review.bpmn")
	require.NoError(t, err)

	// Designer: import the file.
	b.run(designer, "open the designer and import",
		chromedp.Navigate(srv.url+"/designer"),
		chromedp.WaitVisible(`#designer[data-loaded="true"]`),
		chromedp.SetUploadFiles(`#file-input`, []string{bpmnFile}),
		chromedp.WaitVisible(`.djs-element[data-element-id="review"]`),
	)

	// Properties panel: the assignee of the user task.
	b.run(designer, "set the assignee",
		chromedp.Click(`g.djs-element[data-element-id="review"]`),
		chromedp.WaitVisible(`[data-group-id="group-assignmentDefinition"]`),
		chromedp.Click(`[data-group-id="group-assignmentDefinition"] .bio-properties-panel-group-header`),
		chromedp.WaitVisible(`#bio-properties-panel-assignmentDefinitionAssignee`),
		chromedp.SendKeys(`#bio-properties-panel-assignmentDefinitionAssignee`, "demo"),
		chromedp.Blur(`#bio-properties-panel-assignmentDefinitionAssignee`),
		waitJS(`(() => {
			const bo = wfpp.modeler.get('elementRegistry').get('review').businessObject;
			const ad = (bo.extensionElements?.values || []).find((v) => v.$type === 'zeebe:AssignmentDefinition');
			return ad?.assignee === 'demo';
		})()`),
	)

	// Properties panel: a broken condition first, to see validation mark it.
	setCondition := func(text string) { b.setFlowCondition(designer, "yes", text) }
	setCondition("approved = ")
	b.run(designer, "validate shows the problem on the flow",
		chromedp.Click(`#btn-validate`),
		chromedp.WaitVisible(`.wf-problem-note[data-element="yes"]`),
		waitJS(`document.querySelector('g.djs-element[data-element-id="yes"]').classList.contains('wf-problem')`),
	)
	setCondition("approved = true")
	b.run(designer, "validate passes, deploy",
		chromedp.Click(`#btn-validate`),
		waitJS(`document.getElementById('problems').hidden && !document.querySelector('.wf-problem-note')`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(designer, "designer")

	// The inbox is open before the instance starts: the task must arrive live.
	inbox := b.tab()
	b.run(inbox, "open the inbox",
		chromedp.Navigate(srv.url+"/inbox"),
		chromedp.WaitVisible(`#task-list`),
		js(`window.__noReload = true`),
	)

	// Start from the definition page; it lands on the monitor.
	monitor := designer
	b.run(monitor, "start an instance",
		chromedp.Navigate(srv.url+"/definitions/browser_review"),
		chromedp.WaitVisible(`#start-form`),
		chromedp.SetValue(`#start-vars`, `{"amount": 120, "approved": false}`),
		chromedp.Click(`#start-button`),
		chromedp.WaitVisible(`#monitor[data-ready="true"]`),
		waitJS(`document.getElementById('monitor').dataset.active === 'review'`),
		js(`window.__noReload = true`),
	)
	attr, err := chromedp.Run(monitor, chromedp.AttributeValue(`#monitor`, "data-instance"))
	require.NoError(t, err)
	instanceID := attr.Value

	b.run(inbox, "the task appears live and is completed",
		waitJS(`window.__noReload === true`),
		openTask(instanceID),
		// The task has no form: the generated one offers what the condition
		// after it reads ("approved", a checkbox).
		chromedp.WaitVisible(`#task-form[data-source="generated"] input[type="checkbox"][id$="Field_approved"]`),
		chromedp.Click(`#task-form input[id$="Field_approved"]`),
	)
	b.screenshot(inbox, "inbox")
	b.run(inbox, "complete",
		chromedp.Click(`#btn-complete`),
		chromedp.WaitVisible(`.task-detail .done`),
		waitJS(fmt.Sprintf(`!document.querySelector('li.task[data-instance=%q]')`, instanceID)),
	)

	b.run(monitor, "the monitor shows the end without reload",
		waitJS(`document.getElementById('monitor').dataset.status === 'completed'`),
		waitJS(`document.querySelector('g.djs-element[data-element-id="end_ok"]').classList.contains('wf-completed')`),
		waitJS(`!document.querySelector('g.djs-element[data-element-id="end_no"]').classList.contains('wf-completed')`),
		waitJS(`!!document.querySelector('#timeline li[data-type="instance.completed"]')`),
		waitJS(`window.__noReload === true`),
	)
	b.screenshot(monitor, "monitor")
	b.check()
}

// TestBrowserXSSDiagram opens a diagram whose labels and documentation are
// markup in the designer, the monitor and the inbox: no script may run.
func TestBrowserXSSDiagram(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	src, err := os.ReadFile("testdata/browser_xss.bpmn")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/xml", src, nil)
	var inst struct {
		ID string `json:"id"`
	}
	body, _ := json.Marshal(map[string]any{"definition": "browser_xss", "variables": map[string]any{"note": "<img src=x onerror=alert(6)>", "approved": true}})
	srv.post(t, "/api/v1/instances", "application/json", body, &inst)

	b.run(b.ctx, "designer",
		chromedp.Navigate(srv.url+"/designer/browser_xss"),
		chromedp.WaitVisible(`#designer[data-loaded="true"]`),
		chromedp.Click(`g.djs-element[data-element-id="review"]`),
		chromedp.WaitVisible(`[data-group-id="group-documentation"]`),
		chromedp.Click(`[data-group-id="group-documentation"] .bio-properties-panel-group-header`),
		chromedp.Sleep(300*time.Millisecond),
	)
	b.run(b.ctx, "monitor",
		chromedp.Navigate(srv.url+"/instances/"+inst.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"]`),
		waitJS(`document.querySelectorAll('#variables tr').length > 0`),
	)
	b.run(b.ctx, "inbox",
		chromedp.Navigate(srv.url+"/inbox"),
		openTask(inst.ID),
		chromedp.WaitVisible(`#task-form[data-source="generated"] input[id$="Field_approved"]`),
		chromedp.Sleep(300*time.Millisecond),
	)
	imgs, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"]').length`))
	require.NoError(t, err)
	require.Zero(t, imgs, "user text became an <img> element")
	b.check()
}

// TestBrowserPages opens every page, at 1280 and at 800 pixels wide, with
// data in them (an instance stuck on an incident), and fails on any page
// error; it retries the incident from the incidents page.
func TestBrowserPages(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	src, err := os.ReadFile("testdata/browser_incident.bpmn")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/xml", src, nil)
	var inst struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	body, _ := json.Marshal(map[string]any{"definition": "browser_incident", "variables": map[string]any{"amount": 5}})
	srv.post(t, "/api/v1/instances", "application/json", body, &inst)

	for _, width := range []int64{1280, 800} {
		b.run(b.ctx, fmt.Sprintf("viewport %d", width), chromedp.EmulateViewport(width, 900))
		b.run(b.ctx, "root redirects to the inbox",
			chromedp.Navigate(srv.url+"/"),
			waitJS(`location.pathname === '/inbox' && !!document.querySelector('#task-list .empty')`),
		)
		b.run(b.ctx, "definitions",
			chromedp.Navigate(srv.url+"/definitions"),
			chromedp.WaitVisible(`#definitions tr[data-key="browser_incident"]`),
		)
		b.run(b.ctx, "definition with heatmap",
			chromedp.Navigate(srv.url+"/definitions/browser_incident"),
			waitJS(`/1 instance/.test(document.getElementById('heatmap-summary').textContent)`),
			waitJS(`document.querySelector('g.djs-element[data-element-id="decide"]').classList.contains('wf-incident')`),
		)
		if width == 1280 {
			b.screenshot(b.ctx, "definition-heatmap")
		}
		b.run(b.ctx, "instances",
			chromedp.Navigate(srv.url+"/instances?definition=browser_incident"),
			chromedp.WaitVisible(fmt.Sprintf(`#instances tr[data-instance=%q] .status.incident`, inst.ID)),
		)
		b.run(b.ctx, "monitor with the incident",
			chromedp.Navigate(srv.url+"/instances/"+inst.ID),
			chromedp.WaitVisible(`#monitor[data-ready="true"]`),
			chromedp.WaitVisible(`#incidents li.incident`),
			waitJS(`document.querySelector('g.djs-element[data-element-id="decide"]').classList.contains('wf-incident')`),
		)
		if width == 800 {
			b.screenshot(b.ctx, "monitor-800")
		}
		b.run(b.ctx, "incidents",
			chromedp.Navigate(srv.url+"/incidents"),
			chromedp.WaitVisible(fmt.Sprintf(`#incident-list tr button[data-instance=%q]`, inst.ID)),
		)
		b.run(b.ctx, "designer",
			chromedp.Navigate(srv.url+"/designer/browser_incident"),
			chromedp.WaitVisible(`#designer[data-loaded="true"]`),
		)
		b.run(b.ctx, "an unknown instance is a page in words",
			chromedp.Navigate(srv.url+"/instances/nope"),
			chromedp.WaitVisible(`.error-page .error`),
		)
	}
	v2 := bytes.Replace(src, []byte(`name="Score"`), []byte(`name="Score twice"`), 1)
	srv.post(t, "/api/v1/definitions", "application/xml", v2, nil)
	b.run(b.ctx, "the visual diff of v2 against v1",
		chromedp.Navigate(srv.url+"/definitions/browser_incident"),
		chromedp.WaitVisible(`#diff-from`),
		waitJS(`!!document.querySelector('g.djs-element[data-element-id="review"]')`),
		js(`(() => { const s = document.getElementById('diff-from'); s.value = '1'; s.dispatchEvent(new Event('change')); })()`),
		waitJS(`document.querySelector('g.djs-element[data-element-id="review"]').classList.contains('wf-diff-changed')`),
		chromedp.WaitVisible(`#diff-list li.diff-changed`),
	)
	b.screenshot(b.ctx, "definition-diff")
	b.run(b.ctx, "fix the variable in the monitor",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(srv.url+"/instances/"+inst.ID),
		chromedp.WaitVisible(`#monitor[data-ready="true"]`),
		chromedp.Click(`#variables tr[data-var="score"] button`),
		chromedp.SetValue(`#variables tr[data-var="score"] textarea`, "5000"),
		chromedp.Click(`#variables tr[data-var="score"] button.primary`),
		waitJS(`document.querySelector('#variables tr[data-var="score"] code')?.textContent === '5000'`),
	)
	b.run(b.ctx, "retry from the incidents page, with confirmation",
		chromedp.Navigate(srv.url+"/incidents"),
		chromedp.Click(fmt.Sprintf(`#incident-list button[data-instance=%q]`, inst.ID)),
		chromedp.WaitVisible(`dialog.confirm button[data-confirm="yes"]`),
		chromedp.Click(`dialog.confirm button[data-confirm="yes"]`),
		chromedp.WaitVisible(`#flash`),
	)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(context.Background(), inst.ID)
		return err == nil && snap.Status == engine.StatusCompleted
	}, 10*time.Second, 50*time.Millisecond, "the retried instance did not complete")
	// The page for the missing instance answered 404: the browser logs it.
	b.mu.Lock()
	kept := b.errors[:0]
	for _, e := range b.errors {
		if !strings.Contains(e, "/instances/nope") {
			kept = append(kept, e)
		}
	}
	b.errors = kept
	b.mu.Unlock()
	b.check()
}

// TestBrowserFormJS completes a task whose form is a form-js schema (with a
// markup label and a required field), and designs a form in the designer.
func TestBrowserFormJS(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	src, err := os.ReadFile("testdata/browser_form.bpmn")
	require.NoError(t, err)
	srv.post(t, "/api/v1/definitions", "application/xml", src, nil)
	var inst struct {
		ID string `json:"id"`
	}
	srv.post(t, "/api/v1/instances", "application/json", []byte(`{"definition":"browser_form","variables":{"approved":false}}`), &inst)

	b.run(b.ctx, "the form-js form validates and completes",
		chromedp.Navigate(srv.url+"/inbox"),
		openTask(inst.ID),
		chromedp.WaitVisible(`#task-form .fjs-form input[type="text"]`),
		chromedp.Click(`#btn-complete`),
		chromedp.WaitVisible(`.task-detail .form-error`),
		chromedp.SendKeys(`#task-form .fjs-form input[type="text"]`, "looks fine"),
		chromedp.Click(`#task-form .fjs-form input[type="checkbox"]`),
		chromedp.Click(`#btn-complete`),
		chromedp.WaitVisible(`.task-detail .done`),
	)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(context.Background(), inst.ID)
		return err == nil && snap.Status == engine.StatusCompleted && snap.Variables["comment"] == "looks fine"
	}, 10*time.Second, 50*time.Millisecond)

	b.run(b.ctx, "design a form in the designer",
		chromedp.Navigate(srv.url+"/designer/browser_form"),
		chromedp.WaitVisible(`#designer[data-loaded="true"]`),
		chromedp.Click(`g.djs-element[data-element-id="review"]`),
		chromedp.WaitEnabled(`#btn-form`),
		chromedp.Click(`#btn-form`),
		chromedp.WaitVisible(`#form-dialog[data-ready="true"] .fjs-editor-container`),
		chromedp.Click(`#form-save`),
		waitJS(`document.getElementById('designer').dataset.dirty === 'true'`),
		waitJS(`(() => {
			const task = wfpp.modeler.get('elementRegistry').get('review').businessObject;
			const f = task.extensionElements.values.find((v) => v.$type === 'wf:Form');
			return JSON.parse(f.body).components.length === 2;
		})()`),
		// Leave nothing unsaved, or leaving the page asks first.
		chromedp.Click(`#btn-draft`),
	)
	b.check()
}
