package bpmn

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// How a node's work runs, as Export writes it.

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
	if n.Job.Type == model.ValidateJobType {
		a = append(a, splitValidation(n.Job.Parameters).attrs...)
	}
	if c := n.Cache; c != nil {
		a = append(a, "wf:cacheKey", c.Key, "wf:cacheTtl", isoDuration(c.TTL), "wf:cacheCondition", c.Condition, "wf:cacheScope", c.Scope)
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
	if wh := n.Webhook; wh != nil {
		a = append(a, "wf:webhook", "true", "wf:webhookFilter", wh.Filter, "wf:webhookMultiUse", trueOrEmpty(wh.MultiUse))
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
	params := j.Parameters
	if j.Type == model.ValidateJobType {
		v := splitValidation(params)
		w.validationStep(v)
		params = v.rest
	}
	if len(params) > 0 {
		w.leaf("wf:parameters", jsonText(params))
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
