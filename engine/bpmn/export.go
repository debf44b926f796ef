package bpmn

import (
	"cmp"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

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

// workAttrs are the attributes of how n's work runs: the job's settings,
// its retry policy and circuit breaker, the user task's, the script's
// result and the join policy of a gateway.
func workAttrs(n *model.Node) []string {
	j, r, h := n.Job, n.Retry, n.Human
	a := []string{
		"wf:timeout", isoDuration(j.Timeout), "wf:concurrency", positive(j.Concurrency), "wf:rateLimit", number(j.RateLimit),
		"wf:backoff", backoffName(r.Backoff), "wf:retryDelay", isoDuration(r.Delay), "wf:maxDelay", isoDuration(r.MaxDelay),
		"wf:backoffFactor", number(r.Factor), "wf:retryOn", strings.Join(r.RetryOn, ","),
		"wf:doNotRetryOn", strings.Join(r.DoNotRetryOn, ","), "wf:retryOnStatus", joinInts(r.RetryOnStatus),
		"wf:inboxVariables", strings.Join(h.InboxVariables, ","),
	}
	if !zeebeFormKey(h) {
		a = append(a, "wf:formKey", h.FormKey)
	}
	switch {
	case r.Retries == model.NoRetries:
		a = append(a, "wf:retries", "0")
	case r.Retries > 0:
		a = append(a, "wf:retries", strconv.Itoa(r.Retries))
	}
	switch {
	case r.Jitter == model.NoJitter:
		a = append(a, "wf:jitter", "0")
	case r.Jitter > 0:
		a = append(a, "wf:jitter", number(r.Jitter))
	}
	if c := n.Circuit; c != nil {
		a = append(a, "wf:circuitBreaker", cmp.Or(c.Key, "true"),
			"wf:circuitFailureThreshold", positive(c.FailureThreshold), "wf:circuitFailureRate", number(c.FailureRate),
			"wf:circuitMinCalls", positive(c.MinCalls), "wf:circuitWindow", isoDuration(c.Window),
			"wf:circuitOpenTimeout", isoDuration(c.OpenTimeout), "wf:circuitHalfOpenCalls", positive(c.HalfOpenCalls))
	}
	if p := n.JoinPolicy; p != nil {
		// cancelRemaining is always written: it alone keeps a policy
		// whose other settings are all defaults.
		a = append(a, "wf:joinPolicy", p.Policy, "wf:joinN", positive(p.N), "wf:branchTimeout", isoDuration(p.BranchTimeout),
			"wf:cancelRemaining", strconv.FormatBool(p.CancelRemaining), "wf:joinResultsVariable", p.ResultsVariable)
	}
	switch {
	case n.Script.Format == model.ScriptExpression:
		a = append(a, "camunda:expression", n.Script.Source, "camunda:resultVariable", n.Script.ResultVariable)
	case n.Kind == model.KindScriptTask:
		a = append(a, "wf:resultVariable", n.Script.ResultVariable)
	}
	if n.Message != nil && n.Message.CorrelationKey != "" {
		a = append(a, "wf:correlationKey", n.Message.CorrelationKey)
	}
	return a
}

// work writes the extension elements of n's work.
func (w *exporter) work(n *model.Node) {
	j, h := n.Job, n.Human
	if j.Type != "" {
		w.leaf("zeebe:taskDefinition", "", "type", j.Type)
	}
	if len(j.Headers) > 0 {
		w.open("zeebe:taskHeaders")
		for _, k := range slices.Sorted(maps.Keys(j.Headers)) {
			w.leaf("zeebe:header", "", "key", k, "value", j.Headers[k])
		}
		w.close("zeebe:taskHeaders")
	}
	if len(j.Parameters) > 0 {
		w.leaf("wf:parameters", jsonText(j.Parameters))
	}
	if j.Priority != "" {
		w.leaf("zeebe:jobPriorityDefinition", "", "priority", j.Priority)
	}
	if h.Priority != "" {
		w.leaf("zeebe:priorityDefinition", "", "priority", h.Priority)
	}
	// A user task's assignment, schedule and form in Camunda 8's elements,
	// which the designer's Camunda 8 panel shows.
	if h.Assignee != "" || len(h.CandidateUsers) > 0 || len(h.CandidateGroups) > 0 {
		w.leaf("zeebe:assignmentDefinition", "", "assignee", h.Assignee,
			"candidateUsers", strings.Join(h.CandidateUsers, ","), "candidateGroups", strings.Join(h.CandidateGroups, ","))
	}
	if h.DueDate != "" || h.FollowUpDate != "" {
		w.leaf("zeebe:taskSchedule", "", "dueDate", h.DueDate, "followUpDate", h.FollowUpDate)
	}
	switch {
	case h.FormID != "":
		w.leaf("zeebe:formDefinition", "", "formId", h.FormID, "bindingType", h.FormBinding, "versionTag", h.FormVersionTag)
	case zeebeFormKey(h):
		w.leaf("zeebe:formDefinition", "", "formKey", h.FormKey)
	}
	if h.Form != "" {
		w.leaf("wf:form", h.Form)
	}
	for _, m := range n.Inputs {
		w.leaf("wf:input", "", "source", m.Source, "target", m.Target)
	}
	for _, m := range n.Outputs {
		w.leaf("wf:output", "", "source", m.Source, "target", m.Target)
	}
	if len(h.JobListeners) > 0 {
		w.open("zeebe:taskListeners")
		for _, l := range h.JobListeners {
			w.leaf("zeebe:taskListener", "", "eventType", taskListenerEvents[l.Event], "type", l.Type)
		}
		w.close("zeebe:taskListeners")
	}
	if len(n.ExecJobs) > 0 {
		w.open("zeebe:executionListeners")
		for _, l := range n.ExecJobs {
			w.leaf("zeebe:executionListener", "", "eventType", l.Event, "type", l.Type)
		}
		w.close("zeebe:executionListeners")
	}
	if n.AdHoc != nil && n.AdHoc.ActiveElements != "" {
		w.leaf("zeebe:adHoc", "", "activeElementsCollection", n.AdHoc.ActiveElements)
	}
	if n.Call != nil {
		w.call(n.Call)
	}
	for _, l := range h.Listeners {
		w.open("camunda:taskListener", "event", l.Event)
		w.leaf("camunda:script", l.Script, "scriptFormat", "javascript")
		w.close("camunda:taskListener")
	}
	for _, l := range n.ExecListeners {
		w.open("camunda:executionListener", "event", l.Event)
		w.leaf("camunda:script", l.Script, "scriptFormat", "javascript")
		w.close("camunda:executionListener")
	}
}

// camundaCall reports whether a call needs Camunda 7's extensions to be
// written: variable mappings, a business key or a version number, which
// Camunda 8's zeebe:calledElement cannot say.
func camundaCall(c *model.Call) bool {
	return len(c.In) > 0 || len(c.Out) > 0 || c.BusinessKey != "" || c.ParentBusinessKey || c.Binding == model.BindingVersion
}

// callAttrs are a call activity's attributes: what it calls, and in
// Camunda 7's dialect which version.
func callAttrs(c *model.Call) []string {
	a := []string{"calledElement", c.ProcessID}
	if camundaCall(c) && c.Binding != model.BindingLatest {
		a = append(a, "camunda:calledElementBinding", c.Binding, "camunda:calledElementVersion", positive(c.Version),
			"camunda:calledElementVersionTag", c.VersionTag)
	}
	return a
}

// call writes how a call activity binds and passes variables: in Camunda
// 7's camunda:in and camunda:out when it maps variables, else in Camunda
// 8's zeebe:calledElement.
func (w *exporter) call(c *model.Call) {
	if !camundaCall(c) {
		binding := c.Binding
		if binding == model.BindingLatest {
			binding = ""
		}
		w.leaf("zeebe:calledElement", "", "processId", c.ProcessID, "bindingType", binding, "versionTag", c.VersionTag,
			"propagateAllParentVariables", falseUnless(c.AllIn), "propagateAllChildVariables", falseUnless(c.AllOut))
		return
	}
	if c.AllIn {
		w.leaf("camunda:in", "", "variables", "all")
	}
	if c.AllOut {
		w.leaf("camunda:out", "", "variables", "all")
	}
	for _, m := range c.In {
		w.leaf("camunda:in", "", "sourceExpression", m.Source, "target", m.Target)
	}
	for _, m := range c.Out {
		w.leaf("camunda:out", "", "sourceExpression", m.Source, "target", m.Target)
	}
	switch {
	case c.ParentBusinessKey:
		w.leaf("camunda:in", "", "businessKey", "${execution.processBusinessKey}")
	case c.BusinessKey != "":
		w.leaf("camunda:in", "", "businessKey", c.BusinessKey)
	}
}

// zeebeFormKey reports whether the form key goes in zeebe:formDefinition:
// when no linked form takes its place there, and it does not read as a
// reference to an embedded form.
func zeebeFormKey(h model.Human) bool {
	return h.FormKey != "" && h.FormID == "" && !strings.HasPrefix(h.FormKey, zeebeFormPrefix)
}

// taskListenerEvents are the zeebe:taskListener eventTypes of the model's events.
var taskListenerEvents = map[string]string{
	model.ListenCreate: "creating", model.ListenAssign: "assigning",
	model.ListenComplete: "completing", model.ListenCancel: "canceling",
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

func falseUnless(b bool) string {
	if b {
		return ""
	}
	return "false"
}

func trueOrEmpty(b bool) string {
	if b {
		return "true"
	}
	return ""
}

// positive writes a count that is set (above 0).
func positive(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// number writes a share or factor that is set (above 0).
func number(f float64) string {
	if f <= 0 {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func joinInts(l []int) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// backoffName is the name wf:backoff reads for b; "" for the default.
func backoffName(b model.Backoff) string {
	if b == model.BackoffExponential {
		return ""
	}
	for name, v := range model.Backoffs {
		if v == b && name != "" {
			return name
		}
	}
	return ""
}

// isoDuration writes a set duration (above 0) as ISO-8601 seconds, exactly:
// PT90S, PT0.25S.
func isoDuration(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	s, ns := d/time.Second, d%time.Second
	if ns == 0 {
		return fmt.Sprintf("PT%dS", s)
	}
	return fmt.Sprintf("PT%d.%sS", s, strings.TrimRight(fmt.Sprintf("%09d", ns), "0"))
}

// jsonText writes a value of a JSON document (parameters, variables) as
// JSON text; what cannot be JSON was not read from JSON, and is left out.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
