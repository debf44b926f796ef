package graph

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// configure decodes a step's configuration and makes its model node what its
// type says. A Subflow's inline graph is collected and returned.
func (c *converter) configure(st *step) *scope {
	n, id := st.node, st.g.NodeID
	var cfg any
	switch st.typ {
	case TypeTask:
		cfg = &TaskConfig{}
	case TypeTimer:
		cfg = &TimerConfig{}
	case TypeManual:
		cfg = &ManualConfig{}
	case TypeSubflow:
		cfg = &SubflowConfig{}
	case TypeIfElse:
		cfg = &IfElseConfig{}
	case TypeSwitch:
		cfg = &SwitchConfig{}
	case TypeWhile:
		cfg = &WhileConfig{}
	case TypeForEach:
		cfg = &ForEachConfig{}
	case TypeParallel:
		cfg = &ParallelConfig{}
	case TypeValidate:
		cfg = &ValidateConfig{}
	}
	st.cfg = cfg
	if err := decodeConfig(st.g.Configuration, cfg); err != nil {
		c.probs.Add(id, "%v", err)
		return nil
	}
	switch cfg := cfg.(type) {
	case *TaskConfig:
		c.task(n, cfg)
	case *TimerConfig:
		c.timer(n, cfg)
	case *ManualConfig:
		c.manual(n, cfg)
	case *SubflowConfig:
		return c.subflow(n, cfg)
	case *IfElseConfig, *SwitchConfig:
		n.Kind = model.KindExclusiveGateway
	case *WhileConfig:
		n.Kind = model.KindExclusiveGateway
		if cfg.MaxIterations < 0 {
			c.probs.Add(id, "configuration.maxIterations is %d: use 0 (no limit) or more", cfg.MaxIterations)
		}
	case *ForEachConfig:
		c.forEachConfig(st, cfg)
	case *ParallelConfig:
		n.Kind = model.KindParallelGateway
		c.parallelConfig(id, cfg)
	case *ValidateConfig:
		validate(n, cfg)
	}
	return nil
}

// javaScriptNames are the spellings of the one language a Task script may be written in.
var javaScriptNames = map[string]bool{"javascript": true, "js": true, "ecmascript": true}

func (c *converter) task(n *model.Node, cfg *TaskConfig) {
	id := n.ID
	lang := cmp.Or(cfg.Language, cfg.ScriptLanguage)
	action := cmp.Or(cfg.ActionType, cfg.Handler)
	switch {
	case cfg.Language != "" && cfg.ScriptLanguage != "" && cfg.Language != cfg.ScriptLanguage:
		c.probs.Add(id, "configuration.language %q and scriptLanguage %q differ: keep one", cfg.Language, cfg.ScriptLanguage)
	case cfg.ActionType != "" && cfg.Handler != "" && cfg.ActionType != cfg.Handler:
		c.probs.Add(id, "configuration.actionType %q and handler %q differ: keep one", cfg.ActionType, cfg.Handler)
	case (cfg.Script != "" || lang != "") && action != "":
		c.probs.Add(id, "the Task has both a script and an actionType: a Task runs one or the other")
	case lang != "" && !javaScriptNames[strings.ToLower(lang)]:
		c.probs.Add(id, "language %q does not run: write the task in JavaScript", lang)
	case cfg.Script != "" || lang != "":
		if cfg.Script == "" {
			c.probs.Add(id, "the JavaScript Task has no script: write one in configuration.script")
		}
		if contextAssignment.MatchString(cfg.Script) {
			c.probs.Add(id, "the script assigns to context.Variables, which changes nothing: return the outputs as an object instead (return {fileCount: files.length})")
		}
		n.Kind = model.KindScriptTask
		n.Script = model.Script{Format: "javascript", Source: jsVariables(cfg.Script), ResultVariable: cfg.ResultVariable}
	case action != "":
		n.Kind = model.KindServiceTask
		n.Job = model.Job{Type: action, Headers: cfg.Headers, Parameters: cfg.Parameters, Timeout: millis(cfg.TimeoutMs)}
		n.Attrs["actionType"] = action
	default:
		c.probs.Add(id, "the Task does nothing: set configuration.script (JavaScript) or configuration.actionType")
	}
	if cfg.TimeoutMs < 0 {
		c.probs.Add(id, "configuration.timeoutMs is negative: use milliseconds above 0")
	}
	if cfg.TimeoutMs > 0 && n.Kind == model.KindScriptTask {
		c.probs.Add(id, "configuration.timeoutMs applies to actions only; scripts run under the engine's script budget: remove it")
	}
	if cfg.ResultVariable != "" && n.Kind == model.KindServiceTask {
		c.probs.Add(id, "configuration.resultVariable applies to scripts only: remove it")
	}
	if cfg.Retry != nil {
		n.Retry = c.retry(id, cfg.Retry)
	}
	if cfg.CircuitBreaker != nil {
		if n.Kind != model.KindServiceTask {
			c.probs.Add(id, "configuration.circuitBreaker guards actions, and scripts call nothing outside: remove it")
		}
		n.Circuit = c.circuit(id, cfg.CircuitBreaker)
	}
	if cc := cfg.Cache; cc != nil { // checked with the model (model.Validate)
		n.Cache = &model.CachePolicy{Key: cc.Key, TTL: millis(cc.TTLMs), Condition: cc.Condition, Scope: cc.Scope}
	}
}

func (c *converter) timer(n *model.Node, cfg *TimerConfig) {
	n.Kind, n.Trigger = model.KindIntermediateCatchEvent, model.TriggerTimer
	if cfg.Schedule != "" || cfg.TimeZone != "" {
		c.schedule(n, cfg)
		return
	}
	wait := cfg.Duration
	switch {
	case cfg.Duration != nil && cfg.Delay != nil:
		c.probs.Add(n.ID, "configuration has both duration and delay: keep one")
		return
	case cfg.Duration == nil:
		wait = cfg.Delay
	}
	switch {
	case wait != nil && cfg.Date != "":
		c.probs.Add(n.ID, "configuration has both a duration and a date: keep one")
	case cfg.Date != "":
		n.Timer = &model.Timer{Kind: model.TimerDate, Expr: cfg.Date}
	case wait == nil:
		c.probs.Add(n.ID, "the Timer has no configuration.duration: set an ISO-8601 duration (PT5M) or milliseconds")
	default:
		expr, err := duration(wait)
		if err != nil {
			c.probs.Add(n.ID, "configuration.duration: %v", err)
			return
		}
		n.Timer = &model.Timer{Kind: model.TimerDuration, Expr: expr}
	}
}

// duration turns milliseconds into an ISO-8601 duration and keeps ISO-8601
// durations and expressions as they are.
func duration(v any) (string, error) {
	var ms float64
	switch v := v.(type) {
	case float64:
		ms = v
	case string:
		t := strings.TrimSpace(v)
		if model.IsExpression(t) || strings.HasPrefix(t, "P") {
			return t, nil
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return "", fmt.Errorf("%q is neither an ISO-8601 duration (PT5M), an expression nor milliseconds: write one of them", v)
		}
		ms = f
	default:
		return "", fmt.Errorf("%v is neither an ISO-8601 duration (PT5M), an expression nor milliseconds: write one of them", v)
	}
	if ms < 0 || math.IsInf(ms, 0) || math.IsNaN(ms) || ms > 1e15 {
		return "", fmt.Errorf("%v milliseconds is out of range: wait 0 or more milliseconds", ms)
	}
	return "PT" + strconv.FormatFloat(ms/1000, 'f', -1, 64) + "S", nil
}

func (c *converter) manual(n *model.Node, cfg *ManualConfig) {
	n.Kind = model.KindUserTask
	h := model.Human{Assignee: cfg.Assignee, FormKey: cfg.FormKey, DueDate: cfg.DueDate, FollowUpDate: cfg.FollowUpDate}
	var err error
	if h.CandidateUsers, err = names(cfg.CandidateUsers); err != nil {
		c.probs.Add(n.ID, "configuration.candidateUsers: %v", err)
	}
	if h.CandidateGroups, err = names(cfg.CandidateGroups); err != nil {
		c.probs.Add(n.ID, "configuration.candidateGroups: %v", err)
	}
	switch form := cfg.Form.(type) {
	case nil:
	case string:
		h.Form = form
	case map[string]any:
		b, err := json.Marshal(form)
		if err != nil {
			c.probs.Add(n.ID, "configuration.form: %v", err)
		}
		h.Form = string(b)
	default:
		c.probs.Add(n.ID, "configuration.form is a %T: give a form-js schema as an object or JSON text", form)
	}
	switch p := cfg.Priority.(type) {
	case nil:
	case string:
		h.Priority = p
	case float64:
		h.Priority = strconv.FormatFloat(p, 'f', -1, 64)
	default:
		c.probs.Add(n.ID, "configuration.priority is a %T: give a number or an expression", p)
	}
	n.Human = h
}

// names reads a list of user or group names: a list, or one string that is
// an expression or a comma-separated list.
func names(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if model.IsExpression(v) {
			return []string{v}, nil
		}
		var out []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%v is not a name: write names as text", e)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%v is neither a list nor text: list the names", v)
}

func (c *converter) subflow(n *model.Node, cfg *SubflowConfig) *scope {
	n.Kind = model.KindSubProcess
	if ref := cmp.Or(cfg.GraphID, cfg.Ref); ref != "" {
		c.probs.Add(n.ID, "Subflow by reference is not supported yet: put the nodes and edges of %q inline under configuration.graph", ref)
		return nil
	}
	nodes, edges, start := cfg.Nodes, cfg.Edges, cfg.StartNodeID
	if g := cfg.Graph; g != nil {
		if len(nodes) > 0 || len(edges) > 0 || start != "" {
			c.probs.Add(n.ID, "the Subflow has both configuration.graph and nodes or edges beside it: keep one")
			return nil
		}
		nodes, edges, start = g.Nodes, g.Edges, g.StartNodeID
	}
	n.Body = &model.Scope{ID: n.ID}
	return c.collect(n.Body, n.ID, start, nodes, edges)
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func (c *converter) forEachConfig(st *step, cfg *ForEachConfig) {
	st.node.Kind = model.KindExclusiveGateway
	id := st.g.NodeID
	if cfg.ItemVariable != "" && cfg.ItemVariableName != "" && cfg.ItemVariable != cfg.ItemVariableName {
		c.probs.Add(id, "configuration.itemVariable %q and itemVariableName %q differ: keep one", cfg.ItemVariable, cfg.ItemVariableName)
	}
	if cfg.Collection != nil && cfg.CollectionExpression != nil {
		c.probs.Add(id, "configuration has both collection and collectionExpression: keep one")
	}
	if cfg.Collection == nil {
		cfg.Collection = cfg.CollectionExpression
	}
	cfg.ItemVariable = cmp.Or(cfg.ItemVariable, cfg.ItemVariableName, "item")
	cfg.IndexVariable = cmp.Or(cfg.IndexVariable, cfg.ItemVariable+"Index")
	for _, v := range []struct{ field, name string }{{"itemVariable", cfg.ItemVariable}, {"indexVariable", cfg.IndexVariable}} {
		if !identifier.MatchString(v.name) {
			c.probs.Add(id, "configuration.%s %q is not a JavaScript name: use letters, digits, _ and $", v.field, v.name)
		}
	}
	if cfg.ItemVariable == cfg.IndexVariable {
		c.probs.Add(id, "configuration.itemVariable and indexVariable are both %q: name them apart", cfg.ItemVariable)
	}
	switch coll := cfg.Collection.(type) {
	case nil:
		c.probs.Add(id, "the ForEach has no configuration.collection: give an expression for the list to walk")
	case string:
		if strings.TrimSpace(coll) == "" {
			c.probs.Add(id, "the ForEach has no configuration.collection: give an expression for the list to walk")
		}
	case []any:
	default:
		c.probs.Add(id, "configuration.collection is a %T: give an expression or a list", coll)
	}
	if cfg.MaxIterations < 0 {
		c.probs.Add(id, "configuration.maxIterations is %d: use 0 (no limit) or more", cfg.MaxIterations)
	}
	c.errorPolicy(id, cfg)
}
