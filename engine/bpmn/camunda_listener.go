package bpmn

import (
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// camundaTaskListener reads a Camunda 7 task listener: an inline JavaScript
// camunda:script runs; Java (class, delegateExpression, expression) and
// external script resources cannot, and are refused by name.
func (x *extension) camundaTaskListener(el *element) {
	event := el.attr("", "event")
	switch event {
	case model.ListenCreate, model.ListenAssign, model.ListenComplete, model.ListenCancel:
	case "update", "timeout":
		x.problem("camunda:taskListener event %q %s: use create, assignment, complete or delete", event, unsupportedMarker)
		return
	default:
		x.problem("camunda:taskListener event %q is unknown: use create, assignment, complete or delete", event)
		return
	}
	for _, java := range []string{"class", "delegateExpression", "expression"} {
		if v := el.attr("", java); v != "" {
			x.problem("camunda:taskListener %s %q is Java, which Workflow++ does not run: write the listener as a JavaScript camunda:script", java, v)
			return
		}
	}
	sc := el.child(nsCamunda, "script")
	switch {
	case sc == nil:
		x.problem("camunda:taskListener on %q has no camunda:script: write the listener as a JavaScript camunda:script", event)
		return
	case sc.attr("", "resource") != "":
		x.problem("camunda:taskListener script resource %q %s: put the script inline", sc.attr("", "resource"), unsupportedMarker)
		return
	}
	if f := sc.attr("", "scriptFormat"); f != "" && scriptLanguage(f) != "javascript" {
		x.problem("camunda:taskListener script format %q does not run: write the script in JavaScript", f)
		return
	}
	src := strings.TrimSpace(sc.trimmed())
	if src == "" {
		x.problem("camunda:taskListener on %q has an empty script", event)
		return
	}
	x.n.Human.Listeners = append(x.n.Human.Listeners, model.TaskListener{Event: event, Script: src})
}

// camundaExecutionListener reads a camunda:executionListener with a
// JavaScript camunda:script on start or end.
func (x *extension) camundaExecutionListener(el *element) {
	event := el.attr("", "event")
	switch event {
	case model.ListenStart, model.ListenEnd:
	case "take":
		x.problem("camunda:executionListener event \"take\" %s: listen on the start of the flow's target instead", unsupportedMarker)
		return
	default:
		x.problem("camunda:executionListener event %q is unknown: use start or end", event)
		return
	}
	for _, java := range []string{"class", "delegateExpression", "expression"} {
		if v := el.attr("", java); v != "" {
			x.problem("camunda:executionListener %s %q is Java, which Workflow++ does not run: write the listener as a JavaScript camunda:script", java, v)
			return
		}
	}
	sc := el.child(nsCamunda, "script")
	switch {
	case sc == nil || strings.TrimSpace(sc.trimmed()) == "":
		x.problem("camunda:executionListener on %q has no script: write the listener as a JavaScript camunda:script", event)
		return
	case sc.attr("", "resource") != "":
		x.problem("camunda:executionListener script resource %q %s: put the script inline", sc.attr("", "resource"), unsupportedMarker)
		return
	case sc.attr("", "scriptFormat") != "" && scriptLanguage(sc.attr("", "scriptFormat")) != "javascript":
		x.problem("camunda:executionListener script format %q does not run: write the script in JavaScript", sc.attr("", "scriptFormat"))
		return
	}
	x.n.ExecListeners = append(x.n.ExecListeners, model.ExecListener{Event: event, Script: strings.TrimSpace(sc.trimmed())})
}
