package bpmn

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// Export writes def as BPMN 2.0 XML without diagram interchange, in the
// extension attributes and elements Parse reads, so that Parse(Export(def))
// runs like def: a JSON DAG or a graph saved as BPMN and deployed runs as
// the original did, and the viewers (monitor, heatmap, version diff) see
// tokens and counts on the same ids.
//
// Kept: ids, names, documentation, kinds, triggers, flows, conditions (as
// written: =FEEL, ${...} and JavaScript read the same back), default and
// fallback flows (wf:fallback); job type and headers (zeebe:taskDefinition,
// zeebe:taskHeaders), parameters (wf:parameters, JSON), input and output
// mappings (wf:input, wf:output), job timeout, concurrency, rate limit and
// priority, the retry policy (wf:retries, wf:backoff...), the circuit
// breaker (wf:circuit*); scripts (format, body, wf:resultVariable) and
// Camunda 7 service task expressions; user tasks (assignee, candidates,
// form, linked form, priority, dates, inbox variables, job listeners);
// execution job listeners; timers (duration, date, cycle, wf:timeZone);
// errors (codes, messages, code and message variables), escalations,
// messages (with correlation keys), signals, links, compensation;
// multi-instance and standard loops, ad-hoc sub-processes, transactions,
// complex gateways' activation conditions; join policies on gateways;
// process limits (wf:timeout, wf:maxConcurrentInstances, wf:overLimit,
// wf:retryBudget, wf:onFailure), readers and version tag; the default
// variables (wf:variables, JSON); and the JSON DAG's read model
// (wf:readModel="dataworkflows": trigger and context variables, {{ }}
// templates, conditions that throw count as false).
//
// Call activities keep what they call, their binding and how variables
// pass (zeebe:calledElement, or camunda:in and camunda:out when they map
// variables); Camunda 7 task and execution listener scripts are kept as
// camunda:script. Not kept: format-specific display details (Attrs such as
// a DAG node's actionType or a graph edge's ports), which do not run; and
// one Camunda 7 rule: the export declares Camunda 8's namespace, so a
// Camunda 7 multi-instance by loopCardinality alone (no collection) counts
// its loopCounter from 1 when read back, where it counted from 0.
func Export(def *model.Definition) []byte {
	w := exporter{roots: rootElements(def)}
	w.WriteString(xml.Header)
	w.open("definitions", "xmlns", nsBPMN, "xmlns:zeebe", nsZeebe, "xmlns:camunda", nsCamunda, "xmlns:wf", nsWF,
		"id", def.Key+"-bpmn", "name", def.Name, "targetNamespace", "https://workflowpp.dev/export")
	w.roots.write(&w)
	for _, p := range def.Processes {
		w.process(def, p)
	}
	w.close("definitions")
	return []byte(w.String())
}

type exporter struct {
	strings.Builder
	roots *roots
}

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

// extensionElements writes what write writes inside extensionElements, and
// nothing when it writes nothing.
func (w *exporter) extensionElements(write func(x *exporter)) {
	var x exporter
	write(&x)
	if x.Len() > 0 {
		w.WriteString("<extensionElements>" + x.String() + "</extensionElements>")
	}
}

func (w *exporter) process(def *model.Definition, p *model.Process) {
	readModel := ""
	if def.ReadModel != "" && p == def.Main() {
		readModel = def.ReadModel
	}
	l := p.Limits
	w.open("process", "id", p.ID, "name", p.Name, "isExecutable", strconv.FormatBool(p.Executable),
		"wf:readers", strings.Join(p.Readers, ","), "wf:readModel", readModel,
		"wf:timeout", isoDuration(l.Timeout), "wf:maxConcurrentInstances", positive(l.MaxConcurrent),
		"wf:overLimit", l.OverLimit, "wf:retryBudget", positive(l.RetryBudget), "wf:onFailure", l.OnFailure)
	w.extensionElements(func(x *exporter) {
		if p.VersionTag != "" {
			x.leaf("zeebe:versionTag", "", "value", p.VersionTag)
		}
		if len(def.Variables) > 0 && p == def.Main() {
			x.leaf("wf:variables", jsonText(def.Variables))
		}
		x.triggers(p.Triggers)
	})
	w.scope(&p.Scope)
	w.close("process")
}

func (w *exporter) scope(s *model.Scope) {
	for _, n := range s.Nodes {
		w.node(n)
	}
	for _, f := range s.Flows {
		fallback := ""
		if f.Fallback {
			fallback = "true"
		}
		w.open("sequenceFlow", "id", f.ID, "name", f.Name, "sourceRef", f.SourceID, "targetRef", f.TargetID, "wf:fallback", fallback)
		if f.Condition != "" {
			w.leaf("conditionExpression", f.Condition)
		}
		w.close("sequenceFlow")
	}
	for _, n := range s.Nodes {
		if n.HandlerID != "" { // a compensation boundary event names its handler so
			w.leaf("association", "", "id", n.ID+"__handler", "sourceRef", n.ID, "targetRef", n.HandlerID)
		}
	}
}

// exportedElements are the BPMN element names a node's Attrs may name (a
// BPMN source's sendTask, manualTask...); any other name is the kind's.
var exportedElements = nameSet("sendTask", "businessRuleTask", "manualTask", "transaction", "adHocSubProcess")

func (w *exporter) node(n *model.Node) {
	name := n.Kind.String()
	switch e := n.Attrs["element"]; {
	case exportedElements[e]:
		name = e
	case n.AdHoc != nil:
		name = "adHocSubProcess"
	case n.Transaction:
		name = "transaction"
	case n.Script.Format == model.ScriptExpression:
		name = "serviceTask" // a Camunda 7 expression, read back from camunda:expression
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
	if a := n.AdHoc; a != nil {
		attrs = append(attrs, "cancelRemainingInstances", strconv.FormatBool(a.CancelRemaining))
		if a.Sequential {
			attrs = append(attrs, "ordering", "Sequential")
		}
	}
	if n.Kind == model.KindScriptTask && n.Script.Format != model.ScriptExpression {
		attrs = append(attrs, "scriptFormat", n.Script.Format)
	}
	if (n.Kind == model.KindReceiveTask || n.Kind == model.KindServiceTask) && n.Message != nil {
		attrs = append(attrs, "messageRef", w.roots.messages[n.Message.Name])
	}
	if n.Call != nil {
		attrs = append(attrs, callAttrs(n.Call)...)
	}
	attrs = append(attrs, workAttrs(n)...)
	w.open(name, attrs...)
	if n.Documentation != "" {
		w.leaf("documentation", n.Documentation)
	}
	w.extensionElements(func(x *exporter) { x.work(n) })
	switch {
	case n.Loop != nil:
		w.multiInstance(n.Loop)
	case n.Repeat != nil:
		w.open("standardLoopCharacteristics", "testBefore", trueOrEmpty(n.Repeat.TestBefore), "loopMaximum", positive(n.Repeat.Maximum))
		if n.Repeat.Condition != "" {
			w.leaf("loopCondition", n.Repeat.Condition)
		}
		w.close("standardLoopCharacteristics")
	}
	if n.ActivationCondition != "" {
		w.leaf("activationCondition", n.ActivationCondition)
	}
	if n.AdHoc != nil && n.AdHoc.Completion != "" {
		w.leaf("completionCondition", n.AdHoc.Completion)
	}
	if n.Kind == model.KindScriptTask && n.Script.Format != model.ScriptExpression {
		w.leaf("script", n.Script.Source)
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

func (w *exporter) multiInstance(mi *model.MultiInstance) {
	attrs := []string{
		"isSequential", strconv.FormatBool(mi.Sequential), "wf:maxParallelism", positive(mi.MaxParallel),
		"wf:errorPolicy", mi.ErrorPolicy, "wf:errorsVariable", mi.ErrorsVariable,
	}
	if mi.CounterFrom == 0 { // Camunda 7 counts instances from 0, and so reads its attributes
		attrs = append(attrs, "camunda:collection", mi.Collection, "camunda:elementVariable", mi.Element)
	}
	w.open("multiInstanceLoopCharacteristics", attrs...)
	if mi.CounterFrom != 0 && (mi.Collection != "" || mi.Element != "" || mi.OutputCollection != "" || mi.OutputElement != "") {
		w.extensionElements(func(x *exporter) {
			x.leaf("zeebe:loopCharacteristics", "", "inputCollection", mi.Collection, "inputElement", mi.Element,
				"outputCollection", mi.OutputCollection, "outputElement", mi.OutputElement)
		})
	}
	if mi.Cardinality != "" {
		w.leaf("loopCardinality", mi.Cardinality)
	}
	if mi.Completion != "" {
		w.leaf("completionCondition", mi.Completion)
	}
	w.close("multiInstanceLoopCharacteristics")
}

// eventDefinition writes the event definition of n's trigger, when it has one.
func (w *exporter) eventDefinition(n *model.Node) {
	switch n.Trigger {
	case model.TriggerTimer:
		tz := ""
		if n.Timer != nil {
			tz = n.Timer.TimeZone
		}
		w.open("timerEventDefinition", "wf:timeZone", tz)
		if n.Timer != nil {
			w.leaf(n.Timer.Kind.String(), n.Timer.Expr)
		}
		w.close("timerEventDefinition")
	case model.TriggerConditional:
		w.open("conditionalEventDefinition")
		if len(n.VariableNames) > 0 || len(n.VariableEvents) > 0 {
			w.extensionElements(func(x *exporter) {
				x.leaf("zeebe:conditionalFilter", "", "variableNames", strings.Join(n.VariableNames, ","),
					"variableEvents", strings.Join(n.VariableEvents, ","))
			})
		}
		w.leaf("condition", n.Condition)
		w.close("conditionalEventDefinition")
	case model.TriggerLink:
		w.leaf("linkEventDefinition", "", "name", n.LinkName)
	case model.TriggerError:
		ref := ""
		if n.ErrorCode != "" {
			ref = w.roots.errors[n.ErrorCode]
		}
		w.leaf("errorEventDefinition", "", "errorRef", ref, "camunda:errorMessage", n.ErrorMessage,
			"zeebe:errorCodeVariable", n.ErrorCodeVariable, "zeebe:errorMessageVariable", n.ErrorMessageVariable)
	case model.TriggerEscalation:
		ref := ""
		if n.EscalationCode != "" {
			ref = w.roots.escalations[n.EscalationCode]
		}
		w.leaf("escalationEventDefinition", "", "escalationRef", ref, "zeebe:escalationCodeVariable", n.EscalationCodeVariable)
	case model.TriggerMessage:
		ref := ""
		if n.Message != nil {
			ref = w.roots.messages[n.Message.Name]
		}
		w.leaf("messageEventDefinition", "", "messageRef", ref)
	case model.TriggerSignal:
		ref := ""
		if n.SignalName != "" {
			ref = w.roots.signals[n.SignalName]
		}
		w.leaf("signalEventDefinition", "", "signalRef", ref)
	case model.TriggerCompensation:
		w.leaf("compensateEventDefinition", "", "activityRef", n.ActivityRef)
	case model.TriggerTerminate:
		w.leaf("terminateEventDefinition", "")
	case model.TriggerCancel:
		w.leaf("cancelEventDefinition", "")
	}
}
