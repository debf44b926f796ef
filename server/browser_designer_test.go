package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/identity"
)

// withUser configures one user who may design, deploy and work the
// managers' tasks, with password "secret".
func withUser(t *testing.T, name string, groups ...string) func(*server.Config) {
	hash, err := bcrypt.GenerateFromPassword([]byte("secret"), bcrypt.MinCost)
	require.NoError(t, err)
	return func(c *server.Config) {
		c.Identity = identity.Config{JWTSecret: testJWTSecret, Users: []identity.UserConfig{
			{Name: name, Password: string(hash), Groups: groups, Roles: []string{identity.RoleDesigner, identity.RoleWorker}},
		}}
	}
}

// login signs in through the login page.
func (b *browser) login(ctx context.Context, url, name string) {
	b.run(ctx, "log in as "+name,
		chromedp.Navigate(url+"/login"),
		chromedp.WaitVisible(`input[name="name"]`),
		chromedp.SendKeys(`input[name="name"]`, name),
		chromedp.SendKeys(`input[name="password"]`, "secret"),
		chromedp.Submit(`input[name="password"]`),
		chromedp.WaitVisible(`#task-list`),
	)
}

// fill types text into an input as a person does, and waits until it shows it.
func fill(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(sel),
		waitJS(fmt.Sprintf(`document.activeElement === document.querySelector(%q)`, sel)),
		chromedp.SendKeys(sel, text),
		waitJS(fmt.Sprintf(`document.querySelector(%q).value === %q`, sel, text)),
	)
}

// check ticks a checkbox and waits until it is ticked.
func check(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Click(sel),
		waitJS(fmt.Sprintf(`document.querySelector(%q).checked`, sel)),
	)
}

// openTask opens the inbox task of an instance. The list is refreshed live
// (a node clicked just as it is replaced gets no click), so it clicks again
// until the task's detail shows.
func openTask(instanceID string) chromedp.Action[chromedp.Void] {
	sel := fmt.Sprintf(`li.task[data-instance=%q] button.task-open`, instanceID)
	return chromedp.Steps(
		chromedp.WaitVisible(sel),
		waitJS(fmt.Sprintf(`(() => {
			const d = document.getElementById('task-detail'), b = document.querySelector(%q);
			if (d.dataset.task && b && d.dataset.task === b.dataset.task) return true;
			if (b && !(Date.now() - (window.__clicked || 0) < 1000)) { window.__clicked = Date.now(); b.click(); }
			return false;
		})()`, sel)),
	)
}

// drag drags the element of from onto the element of to with the mouse, as
// a person does: press, move in steps, release.
func drag(from, to string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		center := func(sel string) ([2]float64, error) {
			return chromedp.Evaluate[[2]float64](fmt.Sprintf(`(() => {
				const r = document.querySelector(%q).getBoundingClientRect();
				return [r.x + r.width / 2, r.y + r.height / 2];
			})()`, sel))(ctx, tg)
		}
		a, err := center(from)
		if err != nil {
			return err
		}
		b, err := center(to)
		if err != nil {
			return err
		}
		mouse := func(typ input.DispatchMouseEventType, x, y float64, buttons int64) error {
			p := input.DispatchMouseEventParams{Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: buttons, ClickCount: 1}
			if typ == input.DispatchMouseEventTypeMouseMoved {
				p.ClickCount = 0
			}
			_, err := chromedp.Call(ctx, input.DispatchMouseEvent, p)
			return err
		}
		if err := mouse(input.DispatchMouseEventTypeMousePressed, a[0], a[1], 1); err != nil {
			return err
		}
		const steps = 12
		for i := 1; i <= steps; i++ {
			x, y := a[0]+(b[0]-a[0])*float64(i)/steps, a[1]+(b[1]-a[1])*float64(i)/steps
			if err := mouse(input.DispatchMouseEventTypeMouseMoved, x, y, 1); err != nil {
				return err
			}
			time.Sleep(20 * time.Millisecond) // let the drag library follow, as it would a hand
		}
		return mouse(input.DispatchMouseEventTypeMouseReleased, b[0], b[1], 0)
	})
}

// selectShape clicks a diagram element until the modeler has it selected: a
// click that lands while the canvas still moves after the last change is
// clicked again, as a person would.
func selectShape(id string) chromedp.Action[chromedp.Void] {
	sel := fmt.Sprintf(`g.djs-element[data-element-id=%q]`, id)
	selected := fmt.Sprintf(`(() => { const s = wfpp.modeler.get('selection').get(); return s.length === 1 && s[0].id === %q && !!document.querySelector('.djs-context-pad.open'); })()`, id)
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		var err error
		for range 5 {
			if _, err = chromedp.Click(sel)(ctx, tg); err != nil {
				return err
			}
			if _, err = chromedp.Poll[any](selected, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(2*time.Second))(ctx, tg); err == nil {
				return nil
			}
		}
		return fmt.Errorf("selecting %s: %w", id, err)
	})
}

// padAction clicks an entry of the selected element's context pad until
// done holds: a click that lands while the pad is being redrawn reaches the
// canvas instead, which drops the selection; then the element is selected
// again and the entry clicked again.
func padAction(action, done string) chromedp.Action[chromedp.Void] {
	entry := fmt.Sprintf(`.djs-context-pad.open .entry[data-action=%q]`, action)
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		cur, err := chromedp.Evaluate[string](`wfpp.modeler.get('selection').get()[0]?.id || ''`)(ctx, tg)
		if err != nil {
			return err
		}
		for i := range 5 {
			if i > 0 {
				if _, err := selectShape(cur)(ctx, tg); err != nil {
					return err
				}
			}
			if _, err = chromedp.Click(entry)(ctx, tg); err != nil {
				return err
			}
			if _, err = chromedp.Poll[any](done, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(2*time.Second))(ctx, tg); err == nil {
				return nil
			}
		}
		return fmt.Errorf("context pad %s: %w", action, err)
	})
}

// TestBrowserDrawFormInboxJourney is the journey of a process designer and
// a task worker: draw a process with the palette's start event and the
// context pad (append a task, change it into a user task with the wrench,
// an exclusive gateway, two ends), give the task a candidate group in the
// properties panel, open the form editor with its button, add a text field
// "Comment" and a checkbox "Approve", apply, deploy; an instance starts
// over REST; a member of the group opens the inbox, sees both fields,
// fills them and clicks "Complete"; the instance holds both values and took
// the approve path.
func TestBrowserDrawFormInboxJourney(t *testing.T) {
	srv := startLiveServer(t, withUser(t, "ada", "managers"))
	b := newBrowser(t)
	b.login(b.ctx, srv.url, "ada")

	b.run(b.ctx, "draw start → task → user task → gateway → two ends",
		chromedp.Navigate(srv.url+"/designer"),
		chromedp.WaitVisible(`#designer[data-loaded="true"]`),
		selectShape("StartEvent_1"),
		padAction("append.append-task", `wfpp.modeler.get('elementRegistry').filter((e) => e.type === 'bpmn:Task').length === 1`),
		padAction("replace", `!!document.querySelector('.djs-popup .entry[data-id="replace-with-user-task"]')`),
		chromedp.Click(`.djs-popup .entry[data-id="replace-with-user-task"]`),
		waitJS(`wfpp.modeler.get('elementRegistry').filter((e) => e.type === 'bpmn:UserTask').length === 1`),
		padAction("append.gateway", `wfpp.modeler.get('elementRegistry').filter((e) => e.type === 'bpmn:ExclusiveGateway').length === 1`),
		js(`window.__gw = wfpp.modeler.get('elementRegistry').filter((e) => e.type === 'bpmn:ExclusiveGateway')[0].id`),
		padAction("append.end-event", `wfpp.modeler.get('elementRegistry').filter((e) => e.type === 'bpmn:EndEvent').length === 1`),
	)
	// Back to the gateway for the second end.
	gw, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`window.__gw`))
	require.NoError(t, err)
	b.run(b.ctx, "second end from the gateway",
		selectShape(gw),
		padAction("append.end-event", `wfpp.modeler.get('elementRegistry').filter((e) => e.type === 'bpmn:EndEvent').length === 2`),
	)
	ids, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]string](`(() => {
		const reg = wfpp.modeler.get('elementRegistry');
		const gw = reg.get(window.__gw);
		const [yes, no] = gw.outgoing;
		return { task: reg.filter((e) => e.type === 'bpmn:UserTask')[0].id, yes: yes.id, no: no.id,
			yesEnd: yes.target.id, noEnd: no.target.id,
			process: wfpp.modeler.getDefinitions().rootElements.find((e) => e.$type === 'bpmn:Process').id };
	})()`))
	require.NoError(t, err)

	// The properties panel: the task's candidate group, the flows' conditions.
	b.run(b.ctx, "candidate group",
		selectShape(ids["task"]),
		chromedp.WaitVisible(`[data-group-id="group-assignmentDefinition"]`),
		chromedp.Click(`[data-group-id="group-assignmentDefinition"] .bio-properties-panel-group-header`),
		chromedp.WaitVisible(`#bio-properties-panel-assignmentDefinitionCandidateGroups`),
		chromedp.SendKeys(`#bio-properties-panel-assignmentDefinitionCandidateGroups`, "managers"),
		chromedp.Blur(`#bio-properties-panel-assignmentDefinitionCandidateGroups`),
	)
	for flow, cond := range map[string]string{ids["yes"]: "approved = true", ids["no"]: "approved != true"} {
		b.setFlowCondition(b.ctx, flow, cond)
	}
	designFormDeployAndWork(t, srv, b, ids)
}

// designFormDeployAndWork is the second half of both journeys: the form
// editor, opened with its button on the user task, gets a text field and a
// checkbox dragged from its palette with the mouse, labelled "Comment" and
// "Approve" (keys comment, approved: set through the editor's modeling API,
// as the properties panel would); Apply, Deploy, the form is
// still there on reopening; an instance starts over REST; the inbox shows
// both fields to a member of the candidate group, who fills them and clicks
// "Complete"; the instance then holds both values and took the approve path
// (ids: task, process, yesEnd, noEnd).
func designFormDeployAndWork(t *testing.T, srv *liveServer, b *browser, ids map[string]string) {
	t.Helper()
	b.run(b.ctx, "design the form",
		selectShape(ids["task"]),
		chromedp.WaitEnabled(`#btn-form`),
		chromedp.Click(`#btn-form`),
		chromedp.WaitVisible(`#form-dialog[data-ready="true"] .fjs-editor-container`),
		drag(`#form-editor .fjs-palette-field[data-field-type="textfield"]`, `#form-editor .fjs-form-container`),
		chromedp.WaitVisible(`#form-editor .fjs-form-field-textfield`),
		drag(`#form-editor .fjs-palette-field[data-field-type="checkbox"]`, `#form-editor .fjs-form-container`),
		chromedp.WaitVisible(`#form-editor .fjs-form-field-checkbox`),
		// Label and key in the editor's properties panel.
		js(`(() => {
			const ed = wfpp.formEditor, modeling = ed.get('modeling'), reg = ed.get('formFieldRegistry');
			const [text] = reg.getAll().filter((f) => f.type === 'textfield');
			const [box] = reg.getAll().filter((f) => f.type === 'checkbox');
			modeling.editFormField(text, { label: 'Comment', key: 'comment' });
			modeling.editFormField(box, { label: 'Approve', key: 'approved' });
		})()`),
		chromedp.Click(`#form-save`),
		waitJS(`!document.getElementById('form-dialog').open`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	// Reopening the editor shows what is stored.
	b.run(b.ctx, "the form is still there",
		chromedp.Click(`#btn-form`),
		chromedp.WaitVisible(`#form-dialog[data-ready="true"] .fjs-editor-container`),
		waitJS(`wfpp.formEditor.saveSchema().components.map((c) => c.key).join() === 'comment,approved'`),
		chromedp.Click(`#form-close`),
	)

	var inst struct {
		ID string `json:"id"`
	}
	srv.postAs(t, bearer(t, "api-client", nil, time.Hour), "/api/v1/instances", fmt.Appendf(nil, `{"definition":%q}`, ids["process"]), &inst)

	b.run(b.ctx, "work the task in the inbox",
		chromedp.Navigate(srv.url+"/inbox"),
		openTask(inst.ID),
		chromedp.WaitVisible(`#task-form[data-source="embedded"] .fjs-form`),
		waitJS(`[...document.querySelectorAll('#task-form .fjs-form-field label')].map((l) => l.textContent.trim()).join() === 'Comment,Approve'`),
		fill(`#task-form input[type="text"]`, "receipt checked"),
		check(`#task-form input[type="checkbox"]`),
	)
	if ids["process"] == "import_form" {
		b.screenshot(b.ctx, "inbox-form")
	}
	b.run(b.ctx, "complete the task",
		chromedp.Click(`//button[normalize-space()="Complete"]`),
		chromedp.WaitVisible(`.task-detail .done`),
	)
	b.check()

	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(context.Background(), inst.ID)
		return err == nil && snap.Status == engine.StatusCompleted
	}, 10*time.Second, 50*time.Millisecond)
	snap, err := srv.eng.Instance(context.Background(), inst.ID)
	require.NoError(t, err)
	require.Equal(t, "receipt checked", snap.Variables["comment"])
	require.Equal(t, true, snap.Variables["approved"])
	events, err := srv.eng.Queries().Events(context.Background(), inst.ID, 0, 1000)
	require.NoError(t, err)
	var ended []string
	for _, e := range events {
		if e.Type == engine.EventElementCompleted && (e.ElementID == ids["yesEnd"] || e.ElementID == ids["noEnd"]) {
			ended = append(ended, e.ElementID)
		}
	}
	require.Equal(t, []string{ids["yesEnd"]}, ended, "the gateway took the approve path")
}

// postAs sends a JSON body with the given headers and decodes the answer.
func (l *liveServer) postAs(t *testing.T, h http.Header, path string, body []byte, out any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, l.url+path, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header = h.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	require.Less(t, resp.StatusCode, 300, "POST %s: %s", path, raw)
	if out != nil {
		require.NoError(t, json.Unmarshal(raw, out))
	}
}

// TestBrowserImportFormInboxJourney: the same form journey on an imported
// Camunda 8 file whose user task carries <zeebe:userTask/> (the case where
// Camunda's modeling behaviors used to drop the form right after Apply).
func TestBrowserImportFormInboxJourney(t *testing.T) {
	srv := startLiveServer(t, withUser(t, "ada", "managers"))
	b := newBrowser(t)
	b.login(b.ctx, srv.url, "ada")
	file, err := filepath.Abs("testdata/browser_import_form.bpmn")
	require.NoError(t, err)
	b.run(b.ctx, "import the file", importInDesigner(srv, file, "review")...)
	designFormDeployAndWork(t, srv, b, map[string]string{"task": "review", "process": "import_form", "yesEnd": "end_ok", "noEnd": "end_no"})
}

// TestBrowserCamundaAndLinkedForms: a Camunda 7 file with camunda:formData,
// and a Camunda 8 file linking a .form deployed on its own, each worked from
// the inbox by a member of the candidate group.
func TestBrowserCamundaAndLinkedForms(t *testing.T) {
	srv := startLiveServer(t, withUser(t, "ada", "managers"))
	b := newBrowser(t)
	api := bearer(t, "api-client", nil, time.Hour)
	ctx := context.Background()
	for _, f := range []string{"testdata/browser_formdata.bpmn", "testdata/browser_linked.bpmn"} {
		if f == "testdata/browser_linked.bpmn" {
			src, err := os.ReadFile("testdata/browser_linked.form")
			require.NoError(t, err)
			_, _, err = srv.eng.DeployForm(ctx, src, "test")
			require.NoError(t, err)
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		_, _, err = srv.eng.Deploy(ctx, engine.DeployRequest{Source: src})
		require.NoError(t, err)
	}
	start := func(key string) string {
		var inst struct {
			ID string `json:"id"`
		}
		srv.postAs(t, api, "/api/v1/instances", fmt.Appendf(nil, `{"definition":%q}`, key), &inst)
		return inst.ID
	}
	formData, linked := start("browser_formdata"), start("browser_linked")
	b.login(b.ctx, srv.url, "ada")

	open := func(id, source string) {
		b.run(b.ctx, "open the task of "+id,
			chromedp.Navigate(srv.url+"/inbox"),
			openTask(id),
			chromedp.WaitVisible(fmt.Sprintf(`#task-form[data-source=%q] .fjs-form`, source)),
		)
	}
	open(formData, "embedded")
	b.run(b.ctx, "camunda:formData in the inbox",
		waitJS(`[...document.querySelectorAll('#task-form .fjs-form-field label')].map((l) => l.textContent.trim()).join() === 'Reason*,Days,Paid leave'`),
		check(`#task-form input[type="checkbox"]`),
		// Complete without the required reason: the form says so, nothing completes.
		chromedp.Click(`//button[normalize-space()="Complete"]`),
		chromedp.WaitVisible(`.task-detail .form-error`),
		fill(`#task-form input[type="text"]`, "family visit"),

		chromedp.Click(`//button[normalize-space()="Complete"]`),
		chromedp.WaitVisible(`.task-detail .done`),
	)
	open(linked, "linked")
	b.run(b.ctx, "a linked .form in the inbox",
		waitJS(`[...document.querySelectorAll('#task-form .fjs-form-field label')].map((l) => l.textContent.trim()).join() === 'Note*,OK to pay'`),
		fill(`#task-form input[type="text"]`, "paid by card"),
		check(`#task-form input[type="checkbox"]`),
		chromedp.Click(`//button[normalize-space()="Complete"]`),
		chromedp.WaitVisible(`.task-detail .done`),
	)
	b.check()
	for id, want := range map[string]map[string]any{
		formData: {"reason": "family visit", "days": float64(2), "paid": true},
		linked:   {"note": "paid by card", "ok": true},
	} {
		require.Eventually(t, func() bool {
			snap, err := srv.eng.Instance(ctx, id)
			return err == nil && snap.Status == engine.StatusCompleted
		}, 10*time.Second, 50*time.Millisecond)
		snap, err := srv.eng.Instance(ctx, id)
		require.NoError(t, err)
		for k, v := range want {
			require.Equal(t, v, snap.Variables[k], k)
		}
	}
}

// TestBrowserLinkDeployedForm: a form deployed on its own is listed on the
// definitions page and can be linked to a user task from the designer's
// form dialog; the deployed process then shows it in the inbox.
func TestBrowserLinkDeployedForm(t *testing.T) {
	srv := startLiveServer(t, withUser(t, "ada", "managers"))
	b := newBrowser(t)
	src, err := os.ReadFile("testdata/browser_linked.form")
	require.NoError(t, err)
	_, _, err = srv.eng.DeployForm(context.Background(), src, "dora")
	require.NoError(t, err)
	file, err := filepath.Abs("testdata/browser_import_form.bpmn")
	require.NoError(t, err)
	b.login(b.ctx, srv.url, "ada")
	b.run(b.ctx, "the form is listed",
		chromedp.Navigate(srv.url+"/definitions"),
		chromedp.WaitVisible(`#forms tr[data-form="expense-decision"]`),
	)
	b.run(b.ctx, "import", importInDesigner(srv, file, "review")...)
	b.run(b.ctx, "link it in the designer and deploy",
		selectShape("review"),
		chromedp.WaitEnabled(`#btn-form`),
		chromedp.Click(`#btn-form`),
		waitJS(`!!document.querySelector('#form-linked option[value="expense-decision"]')`),
		chromedp.SetValue(`#form-linked`, "expense-decision"),
		chromedp.Click(`#form-link`),
		waitJS(`(wfpp.modeler.get('elementRegistry').get('review').businessObject.extensionElements.values || [])
			.some((v) => v.$type === 'zeebe:FormDefinition' && v.formId === 'expense-decision')`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	var inst struct {
		ID string `json:"id"`
	}
	srv.postAs(t, bearer(t, "api-client", nil, time.Hour), "/api/v1/instances", []byte(`{"definition":"import_form"}`), &inst)
	b.run(b.ctx, "the inbox shows the linked form",
		chromedp.Navigate(srv.url+"/inbox"),
		openTask(inst.ID),
		chromedp.WaitVisible(`#task-form[data-source="linked"] .fjs-form`),
		waitJS(`[...document.querySelectorAll('#task-form .fjs-form-field label')].map((l) => l.textContent.trim()).join() === 'Note*,OK to pay'`),
	)
	b.check()
}

// TestBrowserWorkflowppProperties: the designer's Workflow++ group edits
// the wf: attributes the engine reads, without XML: a service task's
// retries and backoff, the process's readers; the deployed definition
// carries them and the engine runs with them.
func TestBrowserWorkflowppProperties(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/approval.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	field := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	b.run(b.ctx, "import", importInDesigner(srv, file, "book")...)
	b.run(b.ctx, "import, select the service task, set retries and backoff",
		selectShape("book"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("retries")+` input`),
		chromedp.SendKeys(field("retries")+` input`, "4"),
		chromedp.SetValue(field("backoff")+` select`, "linear"),
		js(`document.querySelector('[data-entry-id="wf-backoff"] select').dispatchEvent(new Event('change', {bubbles: true}))`),
		waitJS(`(() => { const bo = wfpp.modeler.get('elementRegistry').get('book').businessObject;
			return bo.get('wf:retries') === '4' && bo.get('wf:backoff') === 'linear'; })()`),
	)
	b.run(b.ctx, "select the process, set its readers, deploy",
		js(`wfpp.modeler.get('selection').select(wfpp.modeler.get('canvas').getRootElement())`),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("readers")+` input`),
		chromedp.SendKeys(field("readers")+` input`, "auditors, ada"),
		waitJS(`wfpp.modeler.get('canvas').getRootElement().businessObject.get('wf:readers') === 'auditors, ada'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-workflowpp")

	rec, def, err := srv.eng.Definition(context.Background(), "approval", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"auditors", "ada"}, def.Main().Readers)
	require.Equal(t, 4, def.Main().Node("book").Retry.Retries)
	require.Equal(t, model.BackoffLinear, def.Main().Node("book").Retry.Backoff)
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/definitions/approval/versions/%d/xml", srv.url, rec.Version))
	require.NoError(t, err)
	defer resp.Body.Close()
	xml, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", xml)
	require.Contains(t, string(xml), `wf:retries="4"`)
	require.Contains(t, string(xml), `wf:backoff="linear"`)
	require.Contains(t, string(xml), `wf:readers="auditors, ada"`)
}

// TestBrowserCallActivity: a call activity drawn in the designer names its
// called process in the Called element group, deploys, and runs: the
// called process starts as an instance of its own, and the caller goes on
// when it ends.
func TestBrowserCallActivity(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_call.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-calledElement"]`
	b.run(b.ctx, "import", importInDesigner(srv, file, "call")...)
	b.run(b.ctx, "import, select the call activity, name the called process, deploy",
		selectShape("call"),
		chromedp.WaitVisible(group),
		js(`(() => {
			const g = document.querySelector('[data-group-id="group-calledElement"]');
			if (!g.querySelector('.bio-properties-panel-group-entries.open')) g.querySelector('.bio-properties-panel-group-header').click();
		})()`),
		chromedp.WaitVisible(group+` [data-entry-id="targetProcessId"] input`),
		chromedp.SendKeys(group+` [data-entry-id="targetProcessId"] input`, "shipping"),
		waitJS(`(() => { const bo = wfpp.modeler.get('elementRegistry').get('call').businessObject;
			const ce = (bo.extensionElements && bo.extensionElements.values || []).find((v) => v.$type === 'zeebe:CalledElement');
			return !!ce && ce.processId === 'shipping'; })()`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	b.screenshot(b.ctx, "designer-call-activity")

	ctx := context.Background()
	_, _, err = srv.eng.Deploy(ctx, engine.DeployRequest{Source: []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="s" targetNamespace="t">
  <process id="shipping" isExecutable="true">
    <startEvent id="s"/><userTask id="pack"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="pack"/><sequenceFlow id="f2" sourceRef="pack" targetRef="e"/></process></definitions>`)})
	require.NoError(t, err)
	caller, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_call", Variables: map[string]any{"order": "o-1"}})
	require.NoError(t, err)
	var child *engine.Snapshot
	require.Eventually(t, func() bool {
		page, _, err := srv.eng.Queries().Instances(ctx, engine.InstanceFilter{ParentID: caller.ID})
		if err != nil || len(page) != 1 || len(page[0].Tasks) != 1 {
			return false
		}
		child = page[0]
		return true
	}, 10*time.Second, 10*time.Millisecond, "the called process runs as an instance of its own")
	require.Equal(t, "shipping", child.ProcessID)
	_, err = srv.eng.CompleteTask(ctx, child.Tasks[0].ID, "packer", map[string]any{"tracking": "T-9"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(ctx, caller.ID)
		return err == nil && snap.Status == engine.StatusCompleted && snap.Variables["tracking"] == "T-9"
	}, 10*time.Second, 10*time.Millisecond, "the caller goes on with the child's variables")
}

// TestBrowserStandardLoop: a loop marker's condition, test-before and
// maximum are set in the Workflow++ group, and the deployed process loops
// as they say.
func TestBrowserStandardLoop(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_loop.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	field := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	b.run(b.ctx, "import", importInDesigner(srv, file, "count")...)
	b.run(b.ctx, "import, select the looping task, set how it loops, deploy",
		selectShape("count"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("loopCondition")+` input`),
		chromedp.SendKeys(field("loopCondition")+` input`, "n < 10"),
		chromedp.SendKeys(field("loopMaximum")+` input`, "3"),
		waitJS(`(() => { const lc = wfpp.modeler.get('elementRegistry').get('count').businessObject.loopCharacteristics;
			return lc.loopCondition && lc.loopCondition.body === 'n < 10' && lc.loopMaximum === 3; })()`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	ctx := context.Background()
	_, def, err := srv.eng.Definition(ctx, "browser_loop", 0)
	require.NoError(t, err)
	require.Equal(t, &model.StandardLoop{Condition: "n < 10", Maximum: 3}, def.Main().Node("count").Repeat)
	inst, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_loop"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(ctx, inst.ID)
		return err == nil && snap.Status == engine.StatusCompleted && fmt.Sprint(snap.Variables["n"]) == "3"
	}, 10*time.Second, 10*time.Millisecond, "three runs: the maximum")
}

// TestBrowserImportsMIWG: every BPMN MIWG reference file opens in the
// designer without an error (warnings about drawing details are allowed).
func TestBrowserImportsMIWG(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	files, err := filepath.Glob("../../shared/conformance/miwg-reference/*.bpmn")
	require.NoError(t, err)
	require.NotEmpty(t, files, "the MIWG reference files are beside the repository")
	b.run(b.ctx, "open the designer",
		chromedp.Navigate(srv.url+"/designer"),
		chromedp.WaitVisible(`#designer[data-loaded="true"]`),
	)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		quoted, err := json.Marshal(string(src))
		require.NoError(t, err)
		b.run(b.ctx, "import "+filepath.Base(f),
			js(`window.__imported = null; wfpp.modeler.importXML(`+string(quoted)+`).then(
				(r) => { window.__imported = 'ok: ' + r.warnings.length + ' warning(s)'; },
				(e) => { window.__imported = 'error: ' + e.message; })`),
			waitJS(`window.__imported !== null`),
		)
		result, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`window.__imported`))
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(result, "ok"), "%s: %s", filepath.Base(f), result)
		t.Logf("%s: %s", filepath.Base(f), result)
	}
}

// TestBrowserComplexGatewayAndAdHoc: a complex gateway's activation
// condition and an ad-hoc sub-process's ordering are set in the
// Workflow++ group (its active elements in the panel's own ad-hoc group),
// and the deployed process runs as they say.
func TestBrowserComplexGatewayAndAdHoc(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_adhoc.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	field := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	b.run(b.ctx, "import", importInDesigner(srv, file, "join")...)
	b.run(b.ctx, "import, set the join's activation condition and the ad-hoc ordering, deploy",
		selectShape("join"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(field("activationCondition")+` input`),
		chromedp.SendKeys(field("activationCondition")+` input`, "activationCount >= 2"),
		waitJS(`(() => { const c = wfpp.modeler.get('elementRegistry').get('join').businessObject.activationCondition;
			return c && c.body === 'activationCount >= 2'; })()`),
		selectShape("work"),
		chromedp.WaitVisible(`[data-group-id="group-activeElements"]`),
		openWorkflowpp(),
		chromedp.WaitVisible(field("ordering")+` select`),
		chromedp.SetValue(field("ordering")+` select`, "Sequential"),
		js(`document.querySelector('[data-entry-id="wf-ordering"] select').dispatchEvent(new Event('change', {bubbles: true}))`),
		waitJS(`wfpp.modeler.get('elementRegistry').get('work').businessObject.ordering === 'Sequential'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	ctx := context.Background()
	_, def, err := srv.eng.Definition(ctx, "browser_adhoc", 0)
	require.NoError(t, err)
	require.Equal(t, "activationCount >= 2", def.Main().Node("join").ActivationCondition)
	require.True(t, def.Main().Node("work").AdHoc.Sequential)
	inst, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_adhoc"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		snap, err := srv.eng.Instance(ctx, inst.ID)
		return err == nil && snap.Status == engine.StatusCompleted && fmt.Sprint(snap.Variables["log"]) == "[x y]"
	}, 10*time.Second, 10*time.Millisecond, "both branches joined, then x and y ran one after the other")
}

// TestBrowserDesignerAids: a script task's JavaScript is written in a code
// box that marks syntax errors as one types; a service task's job type is
// offered the server's handlers; a timer shows when it fires and takes a
// time zone. The deployed model has all three.
func TestBrowserDesignerAids(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_aids.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	entry := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	b.run(b.ctx, "import", importInDesigner(srv, file, "calc")...)
	b.run(b.ctx, "write a script with a mistake, fix it, set a job type and a time zone, deploy",
		selectShape("calc"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(entry("script")+` textarea`),
		chromedp.SendKeys(entry("script")+` textarea`, "return {total: price * (qty}"),
		chromedp.WaitVisible(entry("script")+` .wf-syntax-error`),
		waitJS(`document.querySelector('[data-entry-id="wf-script"] .wf-syntax-error').textContent.startsWith('Syntax error: line 1')`),
		js(`(() => { const ta = document.querySelector('[data-entry-id="wf-script"] textarea');
			ta.value = 'return {total: price * qty}'; ta.dispatchEvent(new Event('input', {bubbles: true}));
			ta.dispatchEvent(new FocusEvent('blur')); ta.dispatchEvent(new FocusEvent('focusout', {bubbles: true})); })()`),
		waitJS(`wfpp.modeler.get('elementRegistry').get('calc').businessObject.script === 'return {total: price * qty}'`),
		waitJS(`document.querySelector('[data-entry-id="wf-script"] .wf-syntax-error').hidden`),
		selectShape("call"),
		openWorkflowpp(),
		chromedp.WaitVisible(entry("type")+` input`),
		waitJS(`[...document.querySelectorAll('#wf-job-types option')].some((o) => o.value === 'http')`),
		js(`(() => { const i = document.querySelector('[data-entry-id="wf-type"] input');
			i.value = 'http'; i.dispatchEvent(new FocusEvent('blur')); i.dispatchEvent(new FocusEvent('focusout', {bubbles: true})); })()`),
		waitJS(`wfpp.modeler.get('elementRegistry').get('call').businessObject.get('wf:type') === 'http'`),
		chromedp.WaitVisible(entry("maxParallelism")+` input`),
		chromedp.SendKeys(entry("maxParallelism")+` input`, "2"),
		waitJS(`wfpp.modeler.get('elementRegistry').get('call').businessObject.loopCharacteristics.get('wf:maxParallelism') === '2'`),
		chromedp.SetValue(entry("errorPolicy")+` select`, "collect"),
		js(`document.querySelector('[data-entry-id="wf-errorPolicy"] select').dispatchEvent(new Event('change', {bubbles: true}))`),
		waitJS(`wfpp.modeler.get('elementRegistry').get('call').businessObject.loopCharacteristics.get('wf:errorPolicy') === 'collect'`),
		selectShape("start"),
		openWorkflowpp(),
		chromedp.WaitVisible(entry("timerPreview")),
		waitJS(`document.querySelector('[data-entry-id="wf-timerPreview"] .wf-timer-preview').textContent.startsWith('From now:')`),
		waitJS(`document.querySelector('[data-entry-id="wf-timerPreview"] .wf-timer-preview').textContent.split(' · ').length === 3`),
		chromedp.SendKeys(entry("timeZone")+` input`, "Europe/Berlin"),
		waitJS(`wfpp.modeler.get('elementRegistry').get('start').businessObject.eventDefinitions[0].get('wf:timeZone') === 'Europe/Berlin'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	ctx := context.Background()
	_, def, err := srv.eng.Definition(ctx, "browser_aids", 0)
	require.NoError(t, err)
	p := def.Main()
	require.Equal(t, "return {total: price * qty}", p.Node("calc").Script.Source)
	require.Equal(t, "http", p.Node("call").Job.Type)
	require.Equal(t, 2, p.Node("call").Loop.MaxParallel)
	require.Equal(t, "collect", p.Node("call").Loop.ErrorPolicy)
	require.Equal(t, "Europe/Berlin", p.Node("start").Timer.TimeZone)
	require.Equal(t, "R3/PT1H", p.Node("start").Timer.Expr)
}

// openWorkflowpp opens the designer's Workflow++ properties group, unless it is open.
func openWorkflowpp() chromedp.Action[chromedp.Void] {
	return js(`(() => {
		const g = document.querySelector('[data-group-id="group-workflowpp"]');
		if (!g.querySelector('.bio-properties-panel-group-entries.open')) g.querySelector('.bio-properties-panel-group-header').click();
	})()`)
}

// importInDesigner opens the designer, imports the file and waits for the
// shape of element to show.
func importInDesigner(srv *liveServer, file, element string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(srv.url + "/designer"),
		chromedp.WaitVisible(`#designer[data-loaded="true"]`),
		chromedp.SetUploadFiles(`#file-input`, []string{file}),
		chromedp.WaitVisible(fmt.Sprintf(`.djs-element[data-element-id=%q]`, element)),
	}
}
