package bpmn

import (
	"cmp"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// zeebeFormPrefix marks a formKey that points at a zeebe:userTaskForm of the
// same process (Camunda 8 before linked forms).
const zeebeFormPrefix = "camunda-forms:bpmn:"

// zeebe reads the Camunda 8 extensions (zeebe: elements in extensionElements).
func (x *extension) zeebe() {
	n := x.n
	h := &n.Human
	for _, el := range x.e.extensions(nsZeebe) {
		attr := func(name string) string { return el.attr("", name) }
		switch name := el.name.Local; name {
		case "taskDefinition":
			set(&n.Job.Type, attr("type"))
			x.attempts("zeebe:taskDefinition retries", attr("retries"))
		case "ioMapping":
			x.zeebeIOMapping(el)
		case "taskHeaders":
			headers := map[string]string{}
			for _, hd := range el.all(nsZeebe, "header") {
				headers[hd.attr("", "key")] = hd.attr("", "value")
			}
			x.mergeHeaders(headers)
		case "assignmentDefinition":
			set(&h.Assignee, attr("assignee"))
			setList(&h.CandidateGroups, attr("candidateGroups"))
			setList(&h.CandidateUsers, attr("candidateUsers"))
		case "formDefinition":
			if id := attr("formId"); id != "" {
				x.linkForm(id, attr("bindingType"), attr("versionTag"))
			} else {
				x.zeebeForm(cmp.Or(attr("formKey"), attr("externalReference")))
			}
		case "priorityDefinition":
			set(&h.Priority, attr("priority"))
		case "jobPriorityDefinition":
			set(&n.Job.Priority, attr("priority"))
		case "taskSchedule":
			set(&h.DueDate, attr("dueDate"))
			set(&h.FollowUpDate, attr("followUpDate"))
		case "script":
			if n.Kind == model.KindScriptTask {
				n.Script = model.Script{Format: "feel", Source: attr("expression"), ResultVariable: attr("resultVariable")}
			}
		case "calledDecision":
			x.decision(attr("decisionId"), attr("resultVariable"))
		case "executionListeners":
			x.zeebeExecutionListeners(el)
		case "taskListeners":
			x.zeebeTaskListeners(el)
		}
		// Others (calledElement, loopCharacteristics, properties, userTask,
		// versionTag...) belong to elements reported as unsupported or change
		// nothing that runs.
	}
}

func (x *extension) zeebeIOMapping(io *element) {
	var in, out []model.Mapping
	for _, m := range io.children {
		mp := model.Mapping{Source: zeebeSource(m.attr("", "source")), Target: m.attr("", "target")}
		switch {
		case m.is(nsZeebe, "input"):
			in = append(in, mp)
		case m.is(nsZeebe, "output"):
			out = append(out, mp)
		}
	}
	if len(in) > 0 {
		x.n.Inputs = in
	}
	if len(out) > 0 {
		x.n.Outputs = out
	}
}

// zeebeSource: Zeebe reads a source with a leading "=" as FEEL and anything
// else as a string.
func zeebeSource(v string) string {
	if v == "" {
		return "" // reported by model.Validate: a mapping needs a source
	}
	return literal(v, strings.HasPrefix(v, "="))
}

func (x *extension) zeebeForm(key string) {
	h := &x.n.Human
	id, embedded := strings.CutPrefix(key, zeebeFormPrefix)
	switch {
	case key == "":
	case !embedded:
		h.FormKey = key
	case x.c.forms[id] == "":
		x.problem("form key %q refers to zeebe:userTaskForm %q, which the process does not define", key, id)
	default:
		h.Form, h.FormKey = x.c.forms[id], ""
	}
}

// linkForm links a deployed form by id with a Camunda 8 binding type
// (latest when empty).
func (x *extension) linkForm(id, binding, tag string) {
	h := &x.n.Human
	h.FormID, h.FormBinding, h.FormVersionTag = id, cmp.Or(binding, "latest"), tag
	switch h.FormBinding {
	case "latest", "deployment":
	case "versionTag":
		if tag == "" {
			x.problem("form %q is bound by versionTag but names none: set zeebe:formDefinition versionTag", id)
		}
	default:
		x.problem("form binding %q is unknown: use latest, deployment or versionTag", binding)
	}
}

// zeebeTaskListeners reads Camunda 8 user task listeners: jobs that the
// task's creation, assignment and completion wait for. Both 8.6's
// (create, assignment, complete) and 8.8's (creating, assigning,
// completing, canceling) event names are read.
func (x *extension) zeebeTaskListeners(el *element) {
	events := map[string]string{
		"creating": model.ListenCreate, "create": model.ListenCreate,
		"assigning": model.ListenAssign, "assignment": model.ListenAssign,
		"completing": model.ListenComplete, "complete": model.ListenComplete,
		"canceling": model.ListenCancel, "cancel": model.ListenCancel,
	}
	for _, l := range el.all(nsZeebe, "taskListener") {
		ev, typ := l.attr("", "eventType"), l.attr("", "type")
		event, ok := events[ev]
		switch {
		case ev == "updating" || ev == "update":
			x.problem("zeebe:taskListener eventType %q %s: tasks change here only by claim, release and delegation, which run the assigning listeners", ev, unsupportedMarker)
			continue
		case !ok:
			x.problem("zeebe:taskListener eventType %q is unknown: use creating, assigning, completing or canceling", ev)
			continue
		case typ == "":
			x.problem("zeebe:taskListener on %q has no type: name the job type its worker fetches", ev)
			continue
		}
		x.n.Human.JobListeners = append(x.n.Human.JobListeners, model.JobListener{Event: event, Type: typ})
	}
}

// zeebeExecutionListeners reads zeebe:executionListener children: jobs the
// token waits for when it starts (eventType start) or ends (end) the node.
func (x *extension) zeebeExecutionListeners(el *element) {
	for _, l := range el.all(nsZeebe, "executionListener") {
		event, typ := l.attr("", "eventType"), l.attr("", "type")
		switch {
		case event != model.ListenStart && event != model.ListenEnd:
			x.problem("zeebe:executionListener eventType %q: use start or end", event)
		case typ == "":
			x.problem("zeebe:executionListener for %s has no job type: set type to the job type a worker or handler serves", event)
		default:
			x.n.ExecJobs = append(x.n.ExecJobs, model.JobListener{Event: event, Type: typ})
		}
	}
}
