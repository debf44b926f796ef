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

// TestBrowserDesignerValidationStep: a validation step's schema (a JSON
// box that refuses text that is not a JSON object), mode, target and a
// rule are set in the designer's Workflow++ group; the deployed XML
// carries them and the step runs: in warn mode, invalid data goes on with
// a validation.warned event.
func TestBrowserDesignerValidationStep(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	file, err := filepath.Abs("testdata/browser_validate.bpmn")
	require.NoError(t, err)
	group := `[data-group-id="group-workflowpp"]`
	entry := func(name string) string { return fmt.Sprintf(`%s [data-entry-id="wf-%s"]`, group, name) }
	// type sets a box's text as typing then leaving it does.
	typeIn := func(sel, text string) chromedp.Action[chromedp.Void] {
		return js(fmt.Sprintf(`(() => { const el = document.querySelector(%q);
			el.value = %q; el.dispatchEvent(new Event('input', {bubbles: true}));
			el.dispatchEvent(new FocusEvent('blur')); el.dispatchEvent(new FocusEvent('focusout', {bubbles: true})); })()`, sel, text))
	}
	check := `wfpp.modeler.get('elementRegistry').get('check').businessObject`
	ext := func(typ string) string {
		return fmt.Sprintf(`(%s.extensionElements?.values || []).filter((v) => v.$type === %q)`, check, typ)
	}
	const schema = `{"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}`
	b.run(b.ctx, "import", importInDesigner(srv, file, "check")...)
	b.run(b.ctx, "set the validation step and deploy",
		selectShape("check"),
		chromedp.WaitVisible(group),
		openWorkflowpp(),
		chromedp.WaitVisible(entry("schema")+` textarea`),
		typeIn(entry("schema")+` textarea`, `{"type": "object",`),
		waitJS(`!document.querySelector('[data-entry-id="wf-schema"] .wf-schema-error').hidden`),
		waitJS(ext("wf:Schema")+`.length === 0`),
		typeIn(entry("schema")+` textarea`, schema),
		waitJS(ext("wf:Schema")+`.length === 1`),
		waitJS(`document.querySelector('[data-entry-id="wf-schema"] .wf-schema-error').hidden`),
		chromedp.SetValue(entry("validationMode")+` select`, "warn"),
		js(`document.querySelector('[data-entry-id="wf-validationMode"] select').dispatchEvent(new Event('change', {bubbles: true}))`),
		waitJS(check+`.get('wf:validationMode') === 'warn'`),
		chromedp.SendKeys(entry("validationTarget")+` input`, "order"),
		waitJS(check+`.get('wf:validationTarget') === 'order'`),
		js(fmt.Sprintf(`document.querySelector(%q).click()`, entry("rules")+` .wf-rule-add`)),
		waitJS(ext("wf:Rule")+`.length === 1`),
		chromedp.WaitVisible(entry("rules")+` .wf-rule-expression`),
		typeIn(entry("rules")+` .wf-rule-expression`, "order.total > 0"),
		waitJS(ext("wf:Rule")+`[0].expression === 'order.total > 0'`),
		typeIn(entry("rules")+` .wf-rule-message`, "the total must be positive"),
		waitJS(ext("wf:Rule")+`[0].message === 'the total must be positive'`),
		chromedp.Click(`#btn-deploy`),
		chromedp.WaitVisible(`#deployed-link`),
	)
	ctx := context.Background()
	rec, def, err := srv.eng.Definition(ctx, "browser_validate", 0)
	require.NoError(t, err)
	for _, want := range []string{`wf:validationMode="warn"`, `wf:validationTarget="order"`, `"required": ["id"]`, `<wf:rule expression="order.total &#62; 0" message="the total must be positive"`} {
		require.Contains(t, string(rec.Source), want)
	}
	require.Equal(t, map[string]any{
		"mode": "warn", "target": "order",
		"schema": map[string]any{"type": "object", "required": []any{"id"}, "properties": map[string]any{"id": map[string]any{"type": "string"}}},
		"rules":  []any{map[string]any{"expression": "order.total > 0", "message": "the total must be positive"}},
	}, def.Main().Node("check").Job.Parameters)

	inst, _, err := srv.eng.Start(ctx, engine.StartRequest{Definition: "browser_validate", Variables: map[string]any{"order": map[string]any{"total": 0}}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		page, err := srv.eng.Queries().Events(ctx, inst.ID, 0, 0)
		if err != nil {
			return false
		}
		for _, ev := range page {
			if ev.Type == engine.EventValidationWarned && len(ev.Detail["warnings"].([]any)) == 2 {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the missing id and the rule are warned about")
}
