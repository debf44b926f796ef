package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// loopBody is a loop step's body, however it is spelled.
func loopBody(st *Step) []string {
	switch {
	case st.Body != nil:
		return st.Body
	case st.LoopBody != nil:
		return st.LoopBody
	}
	return st.LoopSteps
}

// itemVariableDefault is the variable a loop's body sees its item as.
const itemVariableDefault = "item"

// loop converts a loop step into the multi-instance of its sub-process:
// sequential unless execution_mode is parallel or max_parallelism caps it;
// max_iterations walks only the first items, as the design cuts the list.
func loop(st *Step, r refs) *model.MultiInstance {
	items := r.condition(cmpOr(st.Items, st.Collection))
	if n := st.MaxIterations; n > 0 {
		items = fmt.Sprintf("(%s).slice(0, %d)", javaScript(items), n)
	}
	mode := strings.ToLower(st.ExecutionMode)
	return &model.MultiInstance{
		CounterFrom:    0, // loopCounter is the design's loop.index
		Sequential:     mode == "sequential" || mode == "" && st.MaxParallelism == 0,
		MaxParallel:    st.MaxParallelism,
		ErrorPolicy:    strings.ToLower(st.OnError),
		ErrorsVariable: st.ErrorsVar,
		Collection:     items,
		Element:        cmpOr(st.ItemVariable, itemVariableDefault),
	}
}

// javaScript returns the JavaScript inside a ${...} expression.
func javaScript(expr string) string {
	t := strings.TrimSpace(expr)
	if inner, ok := strings.CutPrefix(t, "${"); ok && strings.HasSuffix(inner, "}") && !strings.Contains(inner, "${") {
		return strings.TrimSuffix(inner, "}")
	}
	return t
}

// joinPolicy converts a fork_join's join settings.
func joinPolicy(st *Step) *model.JoinPolicy {
	return &model.JoinPolicy{
		Policy:          cmpOr(strings.ToLower(st.JoinPolicy), model.JoinAll),
		N:               st.NRequired,
		BranchTimeout:   seconds(&st.BranchTimeoutSeconds),
		CancelRemaining: st.CancelRemaining,
	}
}

// version reads a sub_workflow's workflow_version: a version number, or
// "latest" (or nothing) for the latest version.
func version(v any) (int, error) {
	switch v := v.(type) {
	case nil:
		return 0, nil
	case float64:
		if v >= 1 && v == float64(int(v)) {
			return int(v), nil
		}
	case string:
		if v == "" || strings.EqualFold(v, "latest") {
			return 0, nil
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(v, "v")); err == nil && n >= 1 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("%v is not a version number (1, 2, ...) or latest: write one of them", v)
}

// call converts a sub_workflow step: the called workflow gets the
// input_mapping (every variable when there is none) and its variables come
// back when it completes.
func call(st *Step, r refs) *model.Call {
	c := &model.Call{ProcessID: cmpOr(st.WorkflowID, st.Workflow), Binding: model.BindingLatest, AllOut: true}
	if n, _ := version(st.WorkflowVersion); n > 0 {
		c.Binding, c.Version = model.BindingVersion, n
	}
	if len(st.InputMapping) == 0 {
		c.AllIn = true
	} else {
		c.In = r.inputs(st.InputMapping)
	}
	return c
}

// validation is the parameters of a validate step's job, as the built-in
// handler of model.ValidateJobType reads them.
func validation(st *Step) map[string]any {
	p := map[string]any{"mode": cmpOr(strings.ToLower(cmpOr(st.Mode, st.ValidationMode)), "strict")}
	if raw := cmpOr(string(st.Schema), string(st.ValidationSchema)); raw != "" {
		var schema any
		_ = json.Unmarshal([]byte(raw), &schema) // decoded once already
		p["schema"] = schema
	}
	if t := cmpOr(st.Target, st.DataSource); t != "" {
		p["target"] = t
	}
	if rules := append(append([]string(nil), st.Rules...), st.Assertions...); len(rules) > 0 {
		p["expressions"] = rules
	}
	return p
}

// eventTimeoutDefault is the design's timeout_seconds of a wait_for_event: a day.
const eventTimeoutDefault = 86400

// waitForEvent converts a wait_for_event step: a webhook or message wait is
// a receive task (with its timeout a boundary timer), a signal wait a
// signal catch (with its timeout an event-based gateway racing a timer),
// a timer wait a timer catch.
func (c *converter) waitForEvent(st *Step, node *model.Node, cont target, reg *region, r refs) {
	if st.TimeoutSeconds == nil {
		d := eventTimeoutDefault
		st.TimeoutSeconds = &d
	}
	switch strings.ToLower(st.EventSource) {
	case "webhook":
		node.Kind = model.KindReceiveTask // waiting at its URL, not for a message
		filter, _ := filterExpression(st.EventFilter)
		node.Webhook = &model.Webhook{Filter: filter, MultiUse: st.MultiUse}
		c.timeout(st, node, cont, reg)
		c.connect(node, cont, reg, "", false)
	case "message":
		node.Kind = model.KindReceiveTask
		node.Message = &model.Message{Name: st.EventName, CorrelationKey: expression(r.condition(st.CorrelationKey))}
		c.timeout(st, node, cont, reg)
		c.connect(node, cont, reg, "", false)
	case "timer":
		node.Kind = model.KindIntermediateCatchEvent
		node.Trigger = model.TriggerTimer
		node.Timer = &model.Timer{Kind: model.TimerDuration, Expr: st.Duration}
		c.connect(node, cont, reg, "", false)
	case "signal":
		if *st.TimeoutSeconds == 0 {
			node.Kind = model.KindIntermediateCatchEvent
			node.Trigger = model.TriggerSignal
			node.SignalName = st.EventName
			c.connect(node, cont, reg, "", false)
			return
		}
		node.Kind = model.KindEventBasedGateway
		sig := c.b.Generate(reg.scope, st.ID+"__signal", model.KindIntermediateCatchEvent)
		sig.Trigger, sig.SignalName = model.TriggerSignal, st.EventName
		timer := c.b.Generate(reg.scope, st.ID+"__timeout", model.KindIntermediateCatchEvent)
		timer.Trigger = model.TriggerTimer
		timer.Timer = &model.Timer{Kind: model.TimerDuration, Expr: fmt.Sprintf("PT%dS", *st.TimeoutSeconds)}
		c.b.Connect(reg.scope, node.ID, sig.ID, "")
		c.b.Connect(reg.scope, node.ID, timer.ID, "")
		c.connect(sig, cont, reg, "", false)
		c.onTimeout(st, timer, cont, reg)
	}
}

// filterExpression reads a webhook's event_filter: an expression over the
// payload as text, or an object of fields the payload must hold, each
// compared with its value.
func filterExpression(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, nil
	}
	var fields map[string]any
	if json.Unmarshal(raw, &fields) != nil {
		return "", errors.New("is neither an expression nor an object of fields and values: write one of them")
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, name := range names {
		key, _ := json.Marshal(name)
		value, _ := json.Marshal(fields[name])
		parts = append(parts, fmt.Sprintf("JSON.stringify(payload[%s]) === %s", key, strconv.Quote(string(value))))
	}
	return strings.Join(parts, " && "), nil
}

// expression marks text as an expression for the fields of the model that
// are text unless marked (a message's correlation key).
func expression(text string) string {
	if text == "" || strings.HasPrefix(text, "=") || strings.HasPrefix(text, "${") {
		return text
	}
	return "${" + text + "}"
}
