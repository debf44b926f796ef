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
