package bpmn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/bpmn"
)

// TestCamundaFormData: Camunda 7 generated-form fields become the
// equivalent form-js schema on the task.
func TestCamundaFormData(t *testing.T) {
	t.Parallel()
	p := valid(t, "camunda_form_data.bpmn")
	require.JSONEq(t, `{"type":"default","id":"FormData_request","components":[
		{"id":"Field_reason","key":"reason","label":"Reason","type":"textfield","validate":{"required":true,"maxLength":50}},
		{"id":"Field_days","key":"days","label":"Days","type":"number","decimalDigits":0,"defaultValue":1,"validate":{"min":1,"max":30}},
		{"id":"Field_paid","key":"paid","label":"Paid leave","type":"checkbox","defaultValue":true},
		{"id":"Field_from","key":"from","label":"From","type":"datetime","subtype":"date","dateLabel":"From"},
		{"id":"Field_kind","key":"kind","label":"Kind","type":"select","values":[{"value":"rest","label":"Rest"},{"value":"sick","label":"Sick leave"}]},
		{"id":"Field_employee","key":"employee","label":"Employee","type":"textfield","defaultValue":"ada","readonly":true}
	]}`, node(t, p, "request").Human.Form)
}

// TestCamundaFormKeys: deployed form-js forms link by id; HTML forms and
// unknown field types are refused with the element id and what to do.
func TestCamundaFormKeys(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("testdata", "camunda_form_data.bpmn"))
	require.NoError(t, err)
	for _, tc := range []struct{ from, to, want string }{
		{`camunda:candidateGroups="staff"`, `camunda:candidateGroups="staff" camunda:formKey="embedded:app:forms/x.html"`, `request: camunda:formKey "embedded:app:forms/x.html" is an HTML form`},
		{`type="long"`, `type="color"`, `camunda:formField "days" has type "color"`},
		{`name="min"`, `name="validator"`, `constraint "validator"`},
	} {
		_, err := bpmn.Parse([]byte(strings.Replace(string(src), tc.from, tc.to, 1)), bpmn.Options{})
		require.ErrorContains(t, err, tc.want)
	}
}

// TestStartEventForms: start events carry forms the same three ways.
func TestStartEventForms(t *testing.T) {
	t.Parallel()
	for name, ext := range map[string]string{
		"camunda:formData": `<camunda:formData><camunda:formField id="amount" type="long"/></camunda:formData>`,
		"wf:form":          `<wf:form>{"components":[{"type":"number","key":"amount"}]}</wf:form>`,
		"zeebe formId":     `<zeebe:formDefinition formId="start-form" bindingType="deployment"/>`,
	} {
		src := `<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
  xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s"><extensionElements>` + ext + `</extensionElements></startEvent>
    <endEvent id="e"/><sequenceFlow id="f" sourceRef="s" targetRef="e"/>
  </process>
</definitions>`
		def, err := bpmn.Parse([]byte(src), bpmn.Options{})
		require.NoError(t, err, name)
		h := def.Process("p").Node("s").Human
		if name == "zeebe formId" {
			require.Equal(t, "start-form", h.FormID, name)
			require.Equal(t, "deployment", h.FormBinding, name)
			continue
		}
		require.Contains(t, h.Form, `"key":"amount"`, name)
	}
}
