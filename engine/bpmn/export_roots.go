package bpmn

import (
	"strconv"

	"github.com/workflowpp/wfpp/engine/model"
)

// roots are the errors, escalations, messages and signals the nodes refer
// to, each by its code or name, with the id of the root element written
// for it.
type roots struct {
	errors, escalations, messages, signals map[string]string
	order                                  []rootElement
}

type rootElement struct{ tag, id, attr, value string }

func rootElements(def *model.Definition) *roots {
	r := &roots{errors: map[string]string{}, escalations: map[string]string{}, messages: map[string]string{}, signals: map[string]string{}}
	used := map[string]bool{}
	for _, p := range def.Processes {
		for _, n := range p.AllNodes {
			used[n.ID] = true
		}
		for _, f := range p.AllFlows {
			used[f.ID] = true
		}
	}
	add := func(m map[string]string, tag, attr, value string) {
		if _, ok := m[value]; ok {
			return
		}
		id := ""
		for i := len(r.order) + 1; id == "" || used[id]; i++ {
			id = tag + "_" + strconv.Itoa(i)
		}
		used[id] = true
		m[value] = id
		r.order = append(r.order, rootElement{tag, id, attr, value})
	}
	var visit func(n *model.Node)
	visit = func(n *model.Node) {
		switch {
		case n.Trigger == model.TriggerError && n.ErrorCode != "":
			add(r.errors, "error", "errorCode", n.ErrorCode)
		case n.Trigger == model.TriggerEscalation && n.EscalationCode != "":
			add(r.escalations, "escalation", "escalationCode", n.EscalationCode)
		case n.Trigger == model.TriggerSignal && n.SignalName != "":
			add(r.signals, "signal", "name", n.SignalName)
		case n.Message != nil:
			add(r.messages, "message", "name", n.Message.Name)
		}
		for _, alt := range n.Alternatives {
			visit(alt)
		}
	}
	for _, p := range def.Processes {
		for _, n := range p.AllNodes {
			visit(n)
		}
	}
	return r
}

func (r *roots) write(w *exporter) {
	for _, e := range r.order {
		w.leaf(e.tag, "", "id", e.id, e.attr, e.value)
	}
}
