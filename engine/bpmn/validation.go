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

// validationForms is a validation step's parameters as Export writes them:
// the wf:validationMode and wf:validationTarget attributes, wf:schema and
// wf:rule, which the designer shows in fields of their own, and the rest
// (left to wf:parameters), with any value no form holds as it is (a schema
// given as text, rules that are not {expression, message}).
type validationForms struct {
	attrs  []string
	schema string
	rules  []map[string]string
	rest   map[string]any
}

func splitValidation(params map[string]any) validationForms {
	v := validationForms{rest: maps.Clone(params)}
	for _, f := range []struct{ param, attr string }{{"mode", "wf:validationMode"}, {"target", "wf:validationTarget"}} {
		if s, ok := params[f.param].(string); ok {
			v.attrs = append(v.attrs, f.attr, s)
			delete(v.rest, f.param)
		}
	}
	if s, ok := params["schema"]; ok {
		if _, text := s.(string); !text {
			if v.schema = jsonText(s); v.schema != "" {
				delete(v.rest, "schema")
			}
		}
	}
	if list, ok := params["rules"].([]any); ok {
		rules := make([]map[string]string, 0, len(list))
		for _, item := range list {
			m, _ := item.(map[string]any)
			expr, ok1 := m["expression"].(string)
			msg, ok2 := m["message"].(string)
			if len(m) != 2 || !ok1 || !ok2 {
				return v // kept as a parameter
			}
			rules = append(rules, map[string]string{"expression": expr, "message": msg})
		}
		v.rules = rules
		delete(v.rest, "rules")
	}
	return v
}

// validationStep writes a validation step's wf:schema and wf:rule.
func (w *exporter) validationStep(v validationForms) {
	if v.schema != "" {
		w.leaf("wf:schema", v.schema)
	}
	for _, r := range v.rules {
		w.leaf("wf:rule", "", "expression", r["expression"], "message", r["message"])
	}
}
