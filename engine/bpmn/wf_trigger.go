package bpmn

import (
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// processTriggers reads the wf:trigger elements in a process's
// extensionElements (model.ChainTrigger): attributes on
// (completed|failed|cancelled), target (a definition key), version
// ("latest", the default, or a version number), condition and
// allVariables, and wf:input children mapping the ended instance's
// variables (source, an expression) into the new instance's (target).
// Whether on and target make sense is checked with the model
// (model.Validate), as for every format.
func (c *converter) processTriggers(p *model.Process, e *element) {
	for _, el := range e.extensions(nsWF) {
		if el.name.Local != "trigger" {
			continue
		}
		tr := model.ChainTrigger{
			On:        strings.TrimSpace(el.attr("", "on")),
			Target:    strings.TrimSpace(el.attr("", "target")),
			Condition: el.attr("", "condition"),
		}
		switch v := strings.TrimSpace(el.attr("", "version")); v {
		case "", model.BindingLatest:
		default:
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				c.probs.Add(p.ID, "wf:trigger %q of process %q has version %q: write latest or a version number such as 3", tr.Target, p.ID, v)
				continue
			}
			tr.Binding, tr.Version = model.BindingVersion, n
		}
		switch v := strings.TrimSpace(el.attr("", "allVariables")); v {
		case "", "false":
		case "true":
			tr.AllVariables = true
		default:
			c.probs.Add(p.ID, "wf:trigger %q of process %q has allVariables %q: write true or false", tr.Target, p.ID, v)
		}
		for _, in := range el.all(nsWF, "input") {
			tr.Input = append(tr.Input, model.Mapping{Source: in.attr("", "source"), Target: in.attr("", "target")})
		}
		p.Triggers = append(p.Triggers, tr)
	}
}

// triggers writes a process's chain triggers as processTriggers reads them.
func (w *exporter) triggers(trs []model.ChainTrigger) {
	for _, tr := range trs {
		version, all := "", ""
		if tr.Binding == model.BindingVersion {
			version = strconv.Itoa(tr.Version)
		}
		if tr.AllVariables {
			all = "true"
		}
		w.open("wf:trigger", "on", tr.On, "target", tr.Target, "version", version, "condition", tr.Condition, "allVariables", all)
		for _, m := range tr.Input {
			w.leaf("wf:input", "", "source", m.Source, "target", m.Target)
		}
		w.close("wf:trigger")
	}
}
