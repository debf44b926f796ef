package bpmn

import (
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// call reads what a call activity calls and how variables pass: the BPMN
// calledElement, Camunda 8's zeebe:calledElement, and Camunda 7's
// camunda:calledElementBinding, camunda:calledElementVersion, camunda:in and
// camunda:out.
//
// Camunda 8 passes every variable in and out unless propagateAll*Variables
// says not to; Camunda 7 passes only what camunda:in and camunda:out name
// (variables="all" for all). A call activity with no extension at all
// passes all, as Camunda 8 does.
func (c *converter) call(n *model.Node, e *element) {
	call := &model.Call{ProcessID: e.attr("", "calledElement"), Binding: model.BindingLatest, AllIn: true, AllOut: true}
	n.Call = call
	problem := func(format string, args ...any) { c.probs.Add(n.ID, format, args...) }

	if z := firstOf(e.extensions(nsZeebe), "calledElement"); z != nil {
		set(&call.ProcessID, z.attr("", "processId"))
		call.AllIn = z.attr("", "propagateAllParentVariables") != "false"
		call.AllOut = z.attr("", "propagateAllChildVariables") != "false"
		switch b := z.attr("", "bindingType"); b {
		case "", "latest":
		case "deployment":
			call.Binding = model.BindingDeployment
		case "versionTag":
			call.Binding, call.VersionTag = model.BindingVersionTag, z.attr("", "versionTag")
		default:
			problem("zeebe:calledElement bindingType %q is unknown: use latest, deployment or versionTag", b)
		}
	}

	camunda := false
	for _, a := range e.attrs {
		camunda = camunda || a.Name.Space == nsCamunda
	}
	switch b := e.attr(nsCamunda, "calledElementBinding"); b {
	case "", "latest":
	case "deployment":
		call.Binding = model.BindingDeployment
	case "version":
		call.Binding = model.BindingVersion
		v := e.attr(nsCamunda, "calledElementVersion")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			problem("camunda:calledElementVersion %q is not a version number: write one from 1", v)
		}
		call.Version = n
	case "versionTag":
		call.Binding, call.VersionTag = model.BindingVersionTag, e.attr(nsCamunda, "calledElementVersionTag")
	default:
		problem("camunda:calledElementBinding %q is unknown: use latest, deployment, version or versionTag", b)
	}
	if t := e.attr(nsCamunda, "calledElementTenantId"); t != "" {
		problem("camunda:calledElementTenantId %s: Workflow++ has no tenants; leave it out", unsupportedMarker)
	}

	for _, el := range e.extensions(nsCamunda) {
		in := el.name.Local == "in"
		if !in && el.name.Local != "out" {
			continue
		}
		camunda = true
		if bk := el.attr("", "businessKey"); in && bk != "" {
			if isParentBusinessKey(bk) {
				call.ParentBusinessKey = true
			} else {
				call.BusinessKey = bk
			}
			continue
		}
		if el.attr("", "variables") == "all" {
			if in {
				call.AllIn = true
			} else {
				call.AllOut = true
			}
			continue
		}
		target := el.attr("", "target")
		source := el.attr("", "sourceExpression")
		if source == "" {
			source = el.attr("", "source") // a variable name: as an expression, its value
		}
		if target == "" {
			target = el.attr("", "source")
		}
		m := model.Mapping{Source: source, Target: target}
		if in {
			call.In = append(call.In, m)
		} else {
			call.Out = append(call.Out, m)
		}
	}
	if camunda {
		// Camunda 7: only what camunda:in and camunda:out pass, unless
		// variables="all" said otherwise above.
		call.AllIn = call.AllIn && hasAll(e, "in")
		call.AllOut = call.AllOut && hasAll(e, "out")
	}
}

func firstOf(els []*element, local string) *element {
	for _, el := range els {
		if el.name.Local == local {
			return el
		}
	}
	return nil
}

func hasAll(e *element, local string) bool {
	for _, el := range e.extensions(nsCamunda) {
		if el.name.Local == local && el.attr("", "variables") == "all" {
			return true
		}
	}
	return false
}

// isParentBusinessKey reports whether a camunda:in businessKey passes the
// caller's own business key, as Camunda 7 models write it.
func isParentBusinessKey(v string) bool {
	v = strings.Join(strings.Fields(v), "")
	return v == "${execution.processBusinessKey}" || v == "#{execution.processBusinessKey}" ||
		v == "${execution.getProcessBusinessKey()}"
}
