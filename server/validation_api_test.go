package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// validationBPMN is a process whose validation step check warns about
// orders without an id, with the JSON Schema schema.
func validationBPMN(schema string) []byte {
	return []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="orders" isExecutable="true">
    <startEvent id="s"/>
    <serviceTask id="check" wf:type="core.validate" wf:validationMode="warn" wf:validationTarget="order">
      <extensionElements><wf:schema>` + schema + `</wf:schema></extensionElements>
    </serviceTask>
    <userTask id="ship"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="check"/><sequenceFlow id="f2" sourceRef="check" targetRef="ship"/>
  </process></definitions>`)
}

// TestValidationWarningInHistory: a validation step in warn mode lets an
// invalid order through, and the instance's history over the API shows the
// validation.warned event with the violation; a schema that does not
// compile is refused at deploy, naming the step.
func TestValidationWarningInHistory(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var refused envelope
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/xml", validationBPMN(`{"type": 7}`), &refused)
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, refused.Error.Message, "check: validation step: schema")

	resp = f.do(http.MethodPost, "/api/v1/definitions", "application/xml", validationBPMN(`{"type": "object", "required": ["id"]}`), nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	inst, resp := f.start(map[string]any{"definition": "orders", "variables": map[string]any{"order": map[string]any{"total": 3}}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, "ship", f.waitTask(inst.ID).ElementID, "warn goes on")

	got := f.waitStatus(inst.ID, "waiting")
	var warned []map[string]any
	for _, ev := range got.History {
		if ev["type"] == "validation.warned" {
			warned = append(warned, ev)
		}
	}
	require.Len(t, warned, 1)
	require.Equal(t, "check", warned[0]["elementId"])
	warnings := warned[0]["detail"].(map[string]any)["warnings"].([]any)
	require.Len(t, warnings, 1)
	w := warnings[0].(map[string]any)
	require.Empty(t, w["path"])
	require.True(t, strings.Contains(w["message"].(string), "id"), "%v", w)
	require.Len(t, got.Variables["validationErrors"], 1)
}
