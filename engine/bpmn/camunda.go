package bpmn

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// camunda reads the Camunda 7 extensions (camunda: attributes and elements).
func (x *extension) camunda() {
	n, e := x.n, x.e
	attr := func(name string) string { return e.attr(nsCamunda, name) }

	if v := attr("expression"); v != "" && n.Kind == model.KindServiceTask && !strings.ContainsAny(v, "()") {
		// A plain expression (${approved}, ${total * 2}), no bean method:
		// the engine evaluates it, as it runs a script task.
		n.Kind, n.Attrs = model.KindScriptTask, map[string]string{"element": "serviceTask"}
		n.Script = model.Script{Format: model.ScriptExpression, Source: v, ResultVariable: attr("resultVariable")}
	}
	for _, java := range []string{"class", "delegateExpression", "expression"} {
		if v := attr(java); v != "" && n.Script.Format != model.ScriptExpression {
			x.needJobType.Add(n.ID, "camunda:%s %q %s: Workflow++ runs no Java; give the task a job type with wf:type, or camunda:type=\"external\" and camunda:topic, and serve it with a handler or an external worker",
				java, v, unsupportedMarker)
		}
	}
	if v := attr("decisionRef"); v != "" {
		x.decision(v, attr("resultVariable"))
	}
	switch t := attr("type"); t {
	case "", "external":
		set(&n.Job.Type, attr("topic"))
	default:
		x.problem("camunda:type %q %s: use camunda:type=\"external\" with camunda:topic, or wf:type", t, unsupportedMarker)
	}

	h := &n.Human
	set(&h.Assignee, attr("assignee"))
	setList(&h.CandidateUsers, attr("candidateUsers"))
	setList(&h.CandidateGroups, attr("candidateGroups"))
	x.camundaFormKey(attr("formKey"))
	if ref := attr("formRef"); ref != "" {
		x.camundaFormRef(ref, attr("formRefBinding"), attr("formRefVersion"))
	}
	set(&h.Priority, attr("priority"))
	set(&n.Job.Priority, attr("jobPriority"))
	set(&h.DueDate, attr("dueDate"))
	set(&h.FollowUpDate, attr("followUpDate"))
	x.resultVariable(attr("resultVariable"))

	for _, el := range e.extensions(nsCamunda) {
		switch name := el.name.Local; name {
		case "inputOutput":
			x.camundaInputOutput(el)
		case "failedJobRetryTimeCycle":
			x.camundaRetryCycle(el.trimmed())
		case "taskListener":
			x.camundaTaskListener(el)
		case "executionListener":
			x.camundaExecutionListener(el)
		case "connector":
			x.needJobType.Add(n.ID, "camunda:connector %s: give the task a job type with wf:type and use the built-in http handler", unsupportedMarker)
		case "formData":
			x.camundaFormData(el)
		}
		// Others (field, properties, in/out of call activities...) configure
		// things that are reported already or change nothing that runs.
	}
	if attr("resource") != "" {
		x.problem("camunda:resource (an external script file) %s: put the script inline", unsupportedMarker)
	}
}

func (x *extension) camundaInputOutput(io *element) {
	var in, out []model.Mapping
	for _, p := range io.children {
		if p.name.Space != nsCamunda {
			continue
		}
		var dst *[]model.Mapping
		switch p.name.Local {
		case "inputParameter":
			dst = &in
		case "outputParameter":
			dst = &out
		default:
			continue
		}
		name := p.attr("", "name")
		source := "null" // an empty parameter is null in Camunda
		switch {
		case len(p.children) > 0:
			v, err := camundaValue(p.children[0])
			if err != nil {
				x.problem("camunda:%s %q: %v", p.name.Local, name, err)
				continue
			}
			source = v
		case p.trimmed() != "":
			v := p.trimmed()
			source = literal(v, model.IsExpression(v))
		}
		*dst = append(*dst, model.Mapping{Source: source, Target: name})
	}
	if len(in) > 0 {
		x.n.Inputs = in
	}
	if len(out) > 0 {
		x.n.Outputs = out
	}
}

// camundaValue turns a camunda:list, camunda:map or camunda:script of an
// input or output parameter into one JavaScript expression: lists and maps
// as literals whose ${...} items are their expressions, a JavaScript script
// as it is (one expression: its value is the parameter's).
func camundaValue(v *element) (string, error) {
	item := func(e *element) (string, error) {
		if len(e.children) > 0 {
			return camundaValue(e.children[0])
		}
		text := e.trimmed()
		if inner, ok := strings.CutPrefix(text, "${"); ok && strings.HasSuffix(inner, "}") && strings.Count(text, "${") == 1 {
			return "(" + strings.TrimSuffix(inner, "}") + ")", nil
		}
		if text == "" {
			return "null", nil
		}
		return literal(text, false), nil
	}
	switch v.name.Local {
	case "list":
		var parts []string
		for _, c := range v.children {
			s, err := item(c)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case "map":
		var parts []string
		for _, c := range v.all(nsCamunda, "entry") {
			s, err := item(c)
			if err != nil {
				return "", err
			}
			parts = append(parts, literal(c.attr("", "key"), false)+": "+s)
		}
		return "({" + strings.Join(parts, ", ") + "})", nil
	case "script":
		switch lang := scriptLanguage(v.attr("", "scriptFormat")); {
		case v.attr("", "resource") != "":
			return "", fmt.Errorf("a camunda:script from a resource %s: put the script inline", unsupportedMarker)
		case lang != "javascript":
			return "", fmt.Errorf("a camunda:script in %q %s: write it as one JavaScript expression", v.attr("", "scriptFormat"), unsupportedMarker)
		case v.trimmed() == "":
			return "null", nil
		}
		return v.trimmed(), nil
	}
	return "", fmt.Errorf("camunda:%s %s: use a value, camunda:list, camunda:map or camunda:script", v.name.Local, unsupportedMarker)
}

// camundaRetryCycle reads camunda:failedJobRetryTimeCycle, R<n>/<duration>:
// n retries a fixed delay apart.
func (x *extension) camundaRetryCycle(v string) {
	if v == "" {
		return
	}
	count, delay, ok := strings.Cut(v, "/")
	n, err := strconv.Atoi(strings.TrimPrefix(count, "R"))
	if !ok || !strings.HasPrefix(count, "R") || err != nil || n < 0 {
		x.problem("camunda:failedJobRetryTimeCycle %q %s: write R<retries>/<delay>, e.g. R3/PT10M", v, unsupportedMarker)
		return
	}
	d, err := ParseDuration(delay)
	if err != nil {
		x.problem("camunda:failedJobRetryTimeCycle %q: %v", v, err)
		return
	}
	x.n.Retry.Retries = n
	if n == 0 {
		x.n.Retry.Retries = model.NoRetries
	}
	x.n.Retry.Backoff = model.BackoffFixed
	x.n.Retry.Delay = d
}
