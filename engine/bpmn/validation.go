package bpmn

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// A validation step is a service task with wf:type="core.validate"
// (model.ValidateJobType). Its settings become the job's parameters, as a
// JSON DAG or graph gives them (see engine/validation.go):
//
//	<serviceTask id="check" wf:type="core.validate"
//	             wf:validationMode="warn" wf:validationTarget="order">
//	  <extensionElements>
//	    <wf:schema>{"type": "object", "required": ["id"]}</wf:schema>
//	    <wf:rule expression="order.total > 0" message="the total must be positive"/>
//	  </extensionElements>
//	</serviceTask>
//
// wf:schema may be an attribute too. The same settings in wf:parameters
// work alike; a setting given both ways is a problem.

// validationParam keeps one setting of a validation step.
func (x *extension) validationParam(name string, v any) {
	if x.validation == nil {
		x.validation = map[string]any{}
	}
	x.validation[name] = v
}

// validationSchema reads wf:schema, JSON text.
func (x *extension) validationSchema(text string) {
	var s any
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		x.problem("wf:schema is not JSON (%v): write the JSON Schema as a JSON object", err)
		return
	}
	x.validationParam("schema", s)
}

// validationRule reads one wf:rule.
func (x *extension) validationRule(el *element) {
	rules, _ := x.validation["rules"].([]any)
	x.validationParam("rules", append(rules, map[string]any{"expression": el.attr("", "expression"), "message": el.attr("", "message")}))
}

// validationStep puts the settings read into the job's parameters, once
// wf:parameters is read.
func (x *extension) validationStep() {
	if len(x.validation) == 0 {
		return
	}
	if x.n.Job.Type != model.ValidateJobType {
		x.problem("wf:schema, wf:rule, wf:validationMode and wf:validationTarget are settings of a validation step: set wf:type=%q or remove them", model.ValidateJobType)
		return
	}
	if x.n.Job.Parameters == nil {
		x.n.Job.Parameters = map[string]any{}
	}
	for _, k := range slices.Sorted(maps.Keys(x.validation)) {
		if _, twice := x.n.Job.Parameters[k]; twice {
			x.problem("the validation step's %s is given in wf:parameters too: keep one", k)
			continue
		}
		x.n.Job.Parameters[k] = x.validation[k]
	}
}

// validationAttr reads wf:validationMode or wf:validationTarget.
func validationAttr(name string) func(x *extension, v string) {
	return func(x *extension, v string) { x.validationParam(name, strings.TrimSpace(v)) }
}
