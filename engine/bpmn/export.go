package bpmn

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// Export writes def as BPMN 2.0 XML without diagram interchange: how a
// definition written in another format (a JSON DAG, a graph) looks in
// BPMN, for the viewers that lay it out (the monitor, the heatmap, the
// version diff). Ids, names, kinds, triggers, flows, conditions and loop
// markers are kept, so tokens and counts land on the same ids; extensions
// (job types, retries, mappings) are not: the source stays what runs.
func Export(def *model.Definition) []byte {
	var w exporter
	w.WriteString(xml.Header)
	w.open("definitions", "xmlns", nsBPMN, "id", def.Key+"-bpmn", "targetNamespace", "https://workflowpp.dev/export")
	for _, p := range def.Processes {
		w.open("process", "id", p.ID, "name", p.Name, "isExecutable", strconv.FormatBool(p.Executable))
		w.scope(&p.Scope)
		w.close("process")
	}
	w.close("definitions")
	return []byte(w.String())
}

type exporter struct{ strings.Builder }

// open writes a start tag with the attributes (name, value pairs) that have a value.
func (w *exporter) open(name string, attrs ...string) {
	w.WriteString("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] == "" {
			continue
		}
		w.WriteString(" " + attrs[i] + `="`)
		_ = xml.EscapeText(w, []byte(attrs[i+1]))
		w.WriteString(`"`)
	}
	w.WriteString(">")
}

func (w *exporter) close(name string) { w.WriteString("</" + name + ">") }

// leaf writes an element with text (escaped), or empty.
func (w *exporter) leaf(name, text string, attrs ...string) {
	w.open(name, attrs...)
	_ = xml.EscapeText(w, []byte(text))
	w.close(name)
}

func (w *exporter) scope(s *model.Scope) {
	for _, n := range s.Nodes {
		w.node(n)
	}
	for _, f := range s.Flows {
		w.open("sequenceFlow", "id", f.ID, "name", f.Name, "sourceRef", f.SourceID, "targetRef", f.TargetID)
		if f.Condition != "" {
			w.leaf("conditionExpression", f.Condition)
		}
		w.close("sequenceFlow")
	}
}

// exportedElements are the BPMN element names a node's Attrs may name (a
// BPMN source's sendTask, manualTask...); any other name is the kind's.
var exportedElements = nameSet("sendTask", "businessRuleTask", "manualTask", "transaction", "adHocSubProcess")

func (w *exporter) node(n *model.Node) {
	name := n.Kind.String()
	if e := n.Attrs["element"]; exportedElements[e] {
		name = e
	}
	attrs := []string{"id", n.ID, "name", n.Name, "default", n.DefaultID}
	switch {
	case n.Kind == model.KindBoundaryEvent:
		attrs = append(attrs, "attachedToRef", n.AttachedToID, "cancelActivity", falseUnless(n.Interrupting))
	case n.Kind == model.KindStartEvent && n.Scope != nil && n.Scope.Owner != nil && n.Scope.Owner.EventSub:
		attrs = append(attrs, "isInterrupting", falseUnless(n.Interrupting))
	case n.EventSub:
		attrs = append(attrs, "triggeredByEvent", "true")
	case n.ForCompensation:
		attrs = append(attrs, "isForCompensation", "true")
	}
	if n.Trigger == model.TriggerMultiple && n.ParallelMultiple {
		attrs = append(attrs, "parallelMultiple", "true")
	}
	w.open(name, attrs...)
	switch {
	case n.Loop != nil:
		w.leaf("multiInstanceLoopCharacteristics", "", "isSequential", strconv.FormatBool(n.Loop.Sequential))
	case n.Repeat != nil:
		w.leaf("standardLoopCharacteristics", "")
	}
	if n.Trigger == model.TriggerMultiple {
		for _, alt := range n.Alternatives {
			w.eventDefinition(alt)
		}
	} else {
		w.eventDefinition(n)
	}
	if n.Body != nil {
		w.scope(n.Body)
	}
	w.close(name)
}

func falseUnless(b bool) string {
	if b {
		return ""
	}
	return "false"
}

// eventDefinition writes the event definition of n's trigger, when it has one.
func (w *exporter) eventDefinition(n *model.Node) {
	switch n.Trigger {
	case model.TriggerTimer:
		w.open("timerEventDefinition")
		if n.Timer != nil {
			w.leaf(n.Timer.Kind.String(), n.Timer.Expr)
		}
		w.close("timerEventDefinition")
	case model.TriggerConditional:
		w.open("conditionalEventDefinition")
		w.leaf("condition", n.Condition)
		w.close("conditionalEventDefinition")
	case model.TriggerLink:
		w.leaf("linkEventDefinition", "", "name", n.LinkName)
	case model.TriggerMessage, model.TriggerError, model.TriggerTerminate, model.TriggerSignal,
		model.TriggerEscalation, model.TriggerCompensation, model.TriggerCancel:
		def := map[model.Trigger]string{
			model.TriggerMessage: "messageEventDefinition", model.TriggerError: "errorEventDefinition",
			model.TriggerTerminate: "terminateEventDefinition", model.TriggerSignal: "signalEventDefinition",
			model.TriggerEscalation: "escalationEventDefinition", model.TriggerCompensation: "compensateEventDefinition",
			model.TriggerCancel: "cancelEventDefinition",
		}[n.Trigger]
		w.leaf(def, "")
	}
}
