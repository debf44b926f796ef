package engine_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// validationStep is a process p whose service task check validates with
// the wf: settings attrs and the extension elements ext; an error boundary
// catching VALIDATION_FAILED leads to the user task fix, completing leads
// to the user task next.
func validationStep(attrs, ext string) []byte {
	return callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/>
    <serviceTask id="check" wf:type="core.validate" ` + attrs + `><extensionElements>` + ext + `</extensionElements></serviceTask>
    <boundaryEvent id="invalid" attachedToRef="check"><errorEventDefinition errorRef="vf"/></boundaryEvent>
    <userTask id="fix"/><userTask id="next"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="check"/><sequenceFlow id="f2" sourceRef="check" targetRef="next"/>
    <sequenceFlow id="f3" sourceRef="invalid" targetRef="fix"/></process>
  <error id="vf" errorCode="VALIDATION_FAILED"/>`)
}

const orderSchema = `<wf:schema>{
  "type": "object",
  "required": ["id", "total"],
  "properties": {"id": {"type": "string"}, "total": {"type": "number", "minimum": 0}}
}</wf:schema>`

// violations reads the validationErrors variable as path -> message.
func violations(t *testing.T, vars map[string]any) map[string]string {
	t.Helper()
	list, ok := vars[engine.ValidationErrorsVariable].([]any)
	require.True(t, ok, "validationErrors: %v", vars[engine.ValidationErrorsVariable])
	out := map[string]string{}
	for _, v := range list {
		m := v.(map[string]any)
		key := m["path"].(string)
		if r, ok := m["rule"].(string); ok {
			key = "rule " + r
		}
		out[key] = m["message"].(string)
	}
	return out
}

func TestValidationStrictThrowsEveryViolationToTheBoundary(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(validationStep(`wf:validationTarget="order"`, orderSchema+
		`<wf:rule expression="order.total &lt; limit" message="the total is over the limit"/>`))
	inst := h.start("p", map[string]any{"order": map[string]any{"total": -5}, "limit": -10})

	h.openTask(inst.ID, "fix")
	snap := h.instance(inst.ID)
	got := violations(t, snap.Variables)
	require.Len(t, got, 3, "%v", got)
	require.Contains(t, got[""], "id")
	require.Contains(t, got["/total"], "minimum")
	require.Equal(t, "the total is over the limit", got["rule order.total < limit"])
	require.Equal(t, model.ValidationFailedCode, snap.Variables["errorCode"])
	require.Contains(t, snap.Variables["errorMessage"], "3 violation(s)")
	require.Contains(t, snap.Variables["errorMessage"], "/total")
	require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "next"))
}

func TestValidationStrictPassesValidData(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(validationStep(`wf:validationTarget="order" wf:validationMode="strict"`, orderSchema))
	inst := h.start("p", map[string]any{"order": map[string]any{"id": "A-1", "total": 12.5}})

	h.openTask(inst.ID, "next")
	snap := h.instance(inst.ID)
	require.Empty(t, violations(t, snap.Variables))
	require.Zero(t, h.count(inst.ID, engine.EventValidationWarned, ""))
}

func TestValidationWarnGoesOnAndRecordsTheWarnings(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(validationStep(`wf:validationTarget="order" wf:validationMode="warn"`, orderSchema))
	inst := h.start("p", map[string]any{"order": map[string]any{"id": 7, "total": 3}})

	h.openTask(inst.ID, "next")
	snap := h.instance(inst.ID)
	require.Equal(t, map[string]string{"/id": violations(t, snap.Variables)["/id"]}, violations(t, snap.Variables))
	require.Contains(t, violations(t, snap.Variables)["/id"], "string")
	warned := h.eventsOf(inst.ID, engine.EventValidationWarned, "check")
	require.Len(t, warned, 1)
	warnings := warned[0].Detail["warnings"].([]any)
	require.Len(t, warnings, 1)
	require.Equal(t, "/id", warnings[0].(map[string]any)["path"])
}

// The schema's $schema picks the draft: draft-07 reads items as a list of
// schemas by position, draft 2020-12 (the default) as one schema for all.
func TestValidationDraftFollowsTheSchema(t *testing.T) {
	t.Parallel()
	h := setup(t)
	tuple := func(draft string) string {
		return `<wf:schema>{` + draft + `"type": "array", "items": [{"type": "string"}, {"type": "number"}]}</wf:schema>`
	}
	prefix := func(draft string) string {
		return `<wf:schema>{` + draft + `"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "number"}}</wf:schema>`
	}
	for _, tc := range []struct {
		name, ext string
		valid     bool
	}{
		{"draft-07 tuple", tuple(`"$schema": "http://json-schema.org/draft-07/schema#",`), true},
		{"2020-12 prefixItems", prefix(`"$schema": "https://json-schema.org/draft/2020-12/schema",`), true},
		{"default 2020-12", prefix(""), true},
		{"draft-07 ignores prefixItems", prefix(`"$schema": "http://json-schema.org/draft-07/schema#",`), false},
	} {
		h.deploySource(validationStep(`wf:validationTarget="pair" wf:validationMode="warn"`, tc.ext)) // the next version of p
		inst := h.start("p", map[string]any{"pair": []any{"a", 1}})
		h.openTask(inst.ID, "next")
		got := violations(t, h.instance(inst.ID).Variables)
		require.Equal(t, tc.valid, len(got) == 0, "%s: %v", tc.name, got)
	}
}

func TestValidationRulesWithoutSchemaCheckTheVariables(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(validationStep(``, `<wf:rule expression="qty > 0" message="order at least one"/>
      <wf:rule expression="customer.name.length > 0"/>`))
	inst := h.start("p", map[string]any{"qty": 0})

	h.openTask(inst.ID, "fix")
	got := violations(t, h.instance(inst.ID).Variables)
	require.Equal(t, "order at least one", got["rule qty > 0"])
	require.Contains(t, got["rule customer.name.length > 0"], "could not be evaluated")
}

func TestValidationBadSchemaIsRefusedAtDeploy(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for _, tc := range []struct{ attrs, ext, want string }{
		{``, `<wf:schema>{"type": "thing"}</wf:schema>`, "schema"},
		{``, `<wf:schema>{"type": </wf:schema>`, "wf:schema is not JSON"},
		{``, `<wf:schema>{"$ref": "https://example.test/other.json"}</wf:schema>`, "only references inside the schema"},
		{`wf:validationMode="loud"`, orderSchema, "mode loud is not a validation mode"},
		{``, `<wf:rule expression="qty >" message="m"/>`, "rules[0]"},
		{``, ``, "checks nothing"},
	} {
		_, _, err := h.e.Deploy(h.ctx, engine.DeployRequest{Source: validationStep(tc.attrs, tc.ext)})
		var probs model.Problems
		require.ErrorAs(t, err, &probs, tc.want)
		require.Len(t, probs, 1, "%v", probs)
		require.Equal(t, "check", probs[0].ElementID)
		require.Contains(t, probs[0].Message, tc.want)
	}
}

// A target that cannot be evaluated is a violation: the data is missing.
func TestValidationTargetMissing(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.deploySource(validationStep(`wf:validationTarget="order.lines[0]"`, orderSchema))
	inst := h.start("p", nil)

	h.openTask(inst.ID, "fix")
	got := violations(t, h.instance(inst.ID).Variables)
	require.Len(t, got, 1)
	require.Contains(t, got[""], "the target could not be evaluated")
}
