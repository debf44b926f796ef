package steps

import (
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// check reports what is wrong with one step on its own and with the steps
// it names; conversion follows only when nothing is.
func (c *converter) check(st *Step) {
	bad := func(format string, args ...any) { c.probs.Add(st.ID, format, args...) }
	if !isStepType(st.Type) {
		if st.Type == "" {
			bad("has no type: use one of %s", strings.Join(stepTypes, ", "))
		} else {
			bad("type %q is not a step type: use one of %s", st.Type, strings.Join(stepTypes, ", "))
		}
		return
	}
	names := func(field string, ids ...string) {
		for _, id := range ids {
			switch {
			case id == "":
				bad("%s names no step: name one", field)
			case id == st.ID:
				bad("%s names the step itself: steps repeat only in a loop step", field)
			case c.byID[id] == nil && !c.listed(id):
				bad("%s %q is not a step: name one", field, id)
			}
		}
	}
	if st.NextStep != "" {
		names("next_step", st.NextStep)
	}
	has := []struct {
		field string
		set   bool
	}{
		{"agent_name", st.AgentName != ""},
		{"retry", st.Retry != nil},
		{"circuit_breaker", st.CircuitBreaker != nil},
		{"cache", st.Cache != nil},
		{"parallel_steps", st.ParallelSteps != nil},
		{"condition", st.Condition != ""},
		{"then", st.Then != ""},
		{"else", st.Else != ""},
		{"items", st.Items != "" || st.Collection != ""},
		{"body", st.Body != nil || st.LoopBody != nil || st.LoopSteps != nil},
		{"branches", st.Branches != nil},
		{"workflow_id", st.WorkflowID != "" || st.Workflow != ""},
		{"event_source", st.EventSource != ""},
		{"schema", st.Schema != nil || st.ValidationSchema != nil},
		{"item_variable", st.ItemVariable != ""},
		{"execution_mode", st.ExecutionMode != ""},
		{"max_iterations", st.MaxIterations != 0},
		{"on_error", st.OnError != ""},
		{"join_policy", st.JoinPolicy != ""},
		{"n_required", st.NRequired != 0},
		{"branch_timeout_seconds", st.BranchTimeoutSeconds != 0},
		{"cancel_remaining", st.CancelRemaining},
		{"workflow_version", st.WorkflowVersion != nil},
		{"on_timeout", st.OnTimeout != ""},
		{"event_name", st.EventName != ""},
		{"event_filter", st.EventFilter != nil},
		{"correlation_key", st.CorrelationKey != ""},
		{"duration", st.Duration != ""},
		{"multi_use", st.MultiUse},
		{"mode", st.Mode != "" || st.ValidationMode != ""},
		{"target", st.Target != "" || st.DataSource != ""},
		{"rules", st.Rules != nil || st.Assertions != nil},
		{"input_mapping", st.InputMapping != nil},
	}
	allowed := map[string][]string{
		TypeAgent:        {"agent_name", "retry", "circuit_breaker", "cache", "input_mapping"},
		TypeParallel:     {"parallel_steps"},
		TypeConditional:  {"condition", "then", "else"},
		TypeLoop:         {"items", "body", "item_variable", "execution_mode", "max_iterations", "on_error", "input_mapping"},
		TypeForkJoin:     {"branches", "join_policy", "n_required", "branch_timeout_seconds", "cancel_remaining"},
		TypeSubWorkflow:  {"workflow_id", "workflow_version", "on_timeout", "input_mapping"},
		TypeWaitForEvent: {"event_source", "on_timeout", "event_name", "event_filter", "correlation_key", "duration", "multi_use", "input_mapping"},
		TypeValidate:     {"schema", "mode", "target", "rules", "input_mapping"},
	}[st.Type]
	for _, h := range has {
		if h.set && !contains(allowed, h.field) {
			bad("a step of type %s has no %s: remove it", st.Type, h.field)
		}
	}
	switch st.Type {
	case TypeAgent:
		if st.AgentName == "" {
			bad("an agent step needs agent_name, the job type a handler or worker serves: set it")
		}
		c.checkResilience(st)
	case TypeParallel:
		if len(st.ParallelSteps) == 0 {
			bad("a parallel step needs parallel_steps, the steps that run at once: list them")
		}
		names("parallel_steps", st.ParallelSteps...)
		if st.MaxParallelism < 0 || st.MaxParallelism > 0 && st.MaxParallelism < len(st.ParallelSteps) {
			bad("max_parallelism %d is less than its %d parallel_steps, and a parallel step runs all of them at once: run the same step over a list with a loop step (whose max_parallelism caps it), or remove max_parallelism", st.MaxParallelism, len(st.ParallelSteps))
		}
	case TypeConditional:
		if st.Condition == "" {
			bad("a conditional step needs a condition: set it")
		}
		if st.Then == "" {
			bad("a conditional step needs then, the step taken when the condition holds: set it")
		} else {
			names("then", st.Then)
		}
		if st.Else != "" {
			names("else", st.Else)
		}
	case TypeLoop:
		c.checkLoop(st, names)
	case TypeForkJoin:
		c.checkForkJoin(st, names)
	case TypeSubWorkflow:
		if st.WorkflowID != "" && st.Workflow != "" && st.WorkflowID != st.Workflow {
			bad("workflow_id %q and workflow %q differ: keep one", st.WorkflowID, st.Workflow)
		}
		if st.WorkflowID == "" && st.Workflow == "" {
			bad("a sub_workflow step needs workflow_id, the workflow it runs: set it")
		}
		if _, err := version(st.WorkflowVersion); err != nil {
			bad("workflow_version: %v", err)
		}
		c.checkTimeout(st)
	case TypeWaitForEvent:
		c.checkEvent(st)
	case TypeValidate:
		c.checkValidate(st)
	}
	if st.TimeoutSeconds != nil && st.Type != TypeAgent && st.Type != TypeSubWorkflow && st.Type != TypeWaitForEvent {
		bad("a step of type %s has no timeout_seconds: put it on the agent, sub_workflow or wait_for_event steps inside", st.Type)
	}
	if st.MaxParallelism != 0 && st.Type != TypeParallel && st.Type != TypeLoop {
		bad("a step of type %s has no max_parallelism: remove it", st.Type)
	}
}

// listed reports whether id is a step that failed to read (already
// reported), so that references to it are not reported again.
func (c *converter) listed(id string) bool { return c.refused(id) }

func (c *converter) checkTimeout(st *Step) {
	if st.TimeoutSeconds != nil && *st.TimeoutSeconds < 0 {
		c.probs.Add(st.ID, "timeout_seconds is negative: use seconds, 0 (none) or more")
	}
	if st.OnTimeout != "" && !strings.EqualFold(st.OnTimeout, "fail") && !strings.EqualFold(st.OnTimeout, "continue") {
		c.probs.Add(st.ID, "on_timeout %q is not fail or continue: use one of them", st.OnTimeout)
	}
}

func (c *converter) checkLoop(st *Step, names func(string, ...string)) {
	bad := func(format string, args ...any) { c.probs.Add(st.ID, format, args...) }
	if st.Items != "" && st.Collection != "" && st.Items != st.Collection {
		bad("items and collection differ: keep one")
	}
	if st.Items == "" && st.Collection == "" {
		bad("a loop step needs items, an expression giving the list to walk: set it")
	}
	set := 0
	for _, b := range [][]string{st.Body, st.LoopBody, st.LoopSteps} {
		if b != nil {
			set++
		}
	}
	switch {
	case set > 1:
		bad("body, loop_body and loop_steps are the same: keep one")
	case len(loopBody(st)) == 0:
		bad("a loop step needs body, the steps each item runs through: list them")
	}
	names("body", loopBody(st)...)
	if !contains([]string{"", "sequential", "parallel"}, strings.ToLower(st.ExecutionMode)) {
		bad("execution_mode %q is not sequential or parallel: use one of them", st.ExecutionMode)
	}
	if strings.EqualFold(st.ExecutionMode, "sequential") && st.MaxParallelism > 0 {
		bad("max_parallelism caps a parallel loop, and execution_mode is sequential: remove one")
	}
	if st.MaxIterations < 0 || st.MaxParallelism < 0 {
		bad("max_iterations and max_parallelism are negative: use 0 (no limit) or more")
	}
	if !contains([]string{"", model.ErrorPolicyStop, model.ErrorPolicyContinue, model.ErrorPolicyCollect}, strings.ToLower(st.OnError)) {
		bad("on_error %q is not stop, continue or collect: use one of them", st.OnError)
	}
	if st.ErrorsVar != "" && !strings.EqualFold(st.OnError, model.ErrorPolicyCollect) {
		bad("errors_variable is where on_error collect gathers the errors: remove it or set on_error collect")
	}
}

func (c *converter) checkForkJoin(st *Step, names func(string, ...string)) {
	bad := func(format string, args ...any) { c.probs.Add(st.ID, format, args...) }
	if len(st.Branches) == 0 {
		bad("a fork_join step needs branches, each with the steps it runs: add them")
	}
	for name, br := range st.Branches {
		if len(br.Steps) == 0 {
			bad("branch %q has no steps: list them", name)
		}
		names("branches."+name+".steps", br.Steps...)
		if br.TimeoutSeconds != 0 && br.TimeoutSeconds != st.BranchTimeoutSeconds {
			bad("branch %q has timeout_seconds %d, and every branch of a fork_join has the same timeout: set branch_timeout_seconds instead", name, br.TimeoutSeconds)
		}
	}
	p := strings.ToLower(st.JoinPolicy)
	switch {
	case !contains([]string{"", model.JoinAll, model.JoinAny, model.JoinMajority, model.JoinNOfM}, p):
		bad("join_policy %q is not all, any, majority or n_of_m: use one of them", st.JoinPolicy)
	case p == model.JoinNOfM && (st.NRequired < 1 || st.NRequired > len(st.Branches)):
		bad("join_policy n_of_m needs n_required, the branches to wait for, from 1 to %d: set it", len(st.Branches))
	case p != model.JoinNOfM && st.NRequired != 0:
		bad("n_required counts the branches of join_policy n_of_m only: remove it or set join_policy n_of_m")
	}
	if st.BranchTimeoutSeconds < 0 {
		bad("branch_timeout_seconds is negative: use seconds, 0 (none) or more")
	}
}

func (c *converter) checkEvent(st *Step) {
	bad := func(format string, args ...any) { c.probs.Add(st.ID, format, args...) }
	switch strings.ToLower(st.EventSource) {
	case "webhook":
		if _, err := filterExpression(st.EventFilter); err != nil {
			bad("event_filter: %v", err)
		}
	case "message", "signal":
		if st.EventName == "" {
			bad("a %s wait needs event_name, the %s's name: set it", st.EventSource, st.EventSource)
		}
	case "timer":
		if st.Duration == "" {
			bad("a timer wait needs duration, ISO-8601 (PT5M): set it")
		}
		if st.TimeoutSeconds != nil || st.OnTimeout != "" {
			bad("a timer wait has no timeout_seconds or on_timeout: its duration is the wait")
		}
	case "kafka", "http_poll":
		bad("event_source %q does not run here: wait for a webhook, message, signal or timer (a Kafka consumer or poller can POST to the webhook)", st.EventSource)
	case "":
		bad("a wait_for_event step needs event_source: webhook, message, signal or timer")
	default:
		bad("event_source %q is not webhook, message, signal or timer: use one of them", st.EventSource)
	}
	if len(st.EventFilter) > 0 && !strings.EqualFold(st.EventSource, "webhook") {
		bad("event_filter applies to webhook waits: remove it (a message is matched by correlation_key)")
	}
	if st.CorrelationKey != "" && !strings.EqualFold(st.EventSource, "message") {
		bad("correlation_key applies to message waits: remove it")
	}
	if st.MultiUse && !strings.EqualFold(st.EventSource, "webhook") {
		bad("multi_use applies to webhook waits: remove it")
	}
	if st.Duration != "" && !strings.EqualFold(st.EventSource, "timer") {
		bad("duration applies to timer waits: use timeout_seconds for how long to wait")
	}
	c.checkTimeout(st)
}

func (c *converter) checkValidate(st *Step) {
	bad := func(format string, args ...any) { c.probs.Add(st.ID, format, args...) }
	pairs := []struct {
		a, b string
		set  bool
	}{
		{"schema", "validation_schema", st.Schema != nil && st.ValidationSchema != nil},
		{"mode", "validation_mode", st.Mode != "" && st.ValidationMode != ""},
		{"target", "data_source", st.Target != "" && st.DataSource != ""},
		{"rules", "assertions", st.Rules != nil && st.Assertions != nil},
	}
	for _, p := range pairs {
		if p.set {
			bad("%s and %s are the same: keep one", p.a, p.b)
		}
	}
	if st.Schema == nil && st.ValidationSchema == nil && st.Rules == nil && st.Assertions == nil {
		bad("a validate step needs a schema or rules to check: set one")
	}
	if m := strings.ToLower(cmpOr(st.Mode, st.ValidationMode)); m != "" && m != "strict" && m != "warn" {
		bad("mode %q is not strict or warn: use one of them", m)
	}
}

func isStepType(t string) bool { return contains(stepTypes, t) }

func contains(list []string, s string) bool { return slices.Contains(list, s) }
