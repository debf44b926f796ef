package dag

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/workflowpp/wfpp/engine/model"
)

// Limits on what Parse reads.
const (
	MaxSize  = 4 << 20 // bytes
	MaxDepth = 64      // nested JSON objects and arrays
)

// Parse reads a JSON DAG document, checks it against Schema and its rules,
// and converts it into a linked, validated Definition. Every error it
// returns is a model.Problems naming the node (or the DAG id) it is about.
func Parse(data []byte) (*model.Definition, error) {
	if len(data) > MaxSize {
		return nil, model.Problems{{Message: fmt.Sprintf("the DAG is %d bytes, more than the %d allowed: split it up", len(data), MaxSize)}}
	}
	if d := model.JSONDepth(data); d > MaxDepth {
		return nil, model.Problems{{Message: fmt.Sprintf("the DAG nests objects and arrays %d deep, more than the %d allowed: flatten its parameters", d, MaxDepth)}}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, model.Problems{{Message: syntaxMessage(data, err)}}
	}
	if probs := validateSchema(doc); len(probs) > 0 {
		return nil, probs
	}
	var wf Workflow
	if err := json.Unmarshal(data, &wf); err != nil {
		return nil, model.Problems{{Message: syntaxMessage(data, err)}}
	}
	return Convert(&wf)
}

// Convert turns a Workflow that satisfies Schema into a linked, validated
// Definition, or returns the model.Problems found.
func Convert(wf *Workflow) (*model.Definition, error) {
	if probs := check(wf); len(probs) > 0 {
		return nil, probs
	}
	b := model.NewBuilder(wf.ID, wf.DisplayName)
	p := b.Process()
	root := &p.Scope
	tasks := make(map[string]*model.Node, len(wf.Nodes))
	for i := range wf.Nodes {
		tasks[wf.Nodes[i].ID] = b.Add(root, task(&wf.Nodes[i]))
	}
	start := b.Generate(root, wf.StartNode+"__start", model.KindStartEvent)
	b.Connect(root, start.ID, wf.StartNode, "")
	for i := range wf.Nodes {
		n := &wf.Nodes[i]
		var success, failure []model.Branch
		for _, e := range n.Edges {
			br := model.Branch{Target: e.TargetNode, Condition: e.Condition}
			if e.onSuccess() {
				success = append(success, br)
			}
			if e.onFailure() {
				failure = append(failure, br)
			}
		}
		if len(failure) == 0 && n.failureRoute() { // the implicit failure edge
			failure = []model.Branch{{Target: n.OnFailure}}
		}
		next := b.Split(root, n.ID, success)
		switch {
		case len(failure) > 0:
			bound := b.AttachErrorBoundary(root, tasks[n.ID], n.ID+"__onFailure")
			b.Split(root, bound.ID, failure)
		case n.OnFailure == OnFailureContinue:
			bound := b.AttachErrorBoundary(root, tasks[n.ID], n.ID+"__onFailure")
			b.Connect(root, bound.ID, next, "")
		}
		if n.Policies.Fallback != "" {
			b.Fallback(root, n.ID, n.Policies.Fallback)
		}
	}
	b.InsertJoins(root)
	if probs := joins(wf, root); len(probs) > 0 {
		return nil, probs
	}
	p.Limits = limits(wf)
	triggers, probs := model.ChainTriggers(wf.ID, wf.Triggers)
	if len(probs) > 0 {
		return nil, probs
	}
	p.Triggers = triggers
	return finish(wf, p)
}

// joins gives the generated join of every node with a join policy that
// policy, and reports a join on a node fewer than two edges enter.
func joins(wf *Workflow, root *model.Scope) model.Problems {
	var probs model.Problems
	for i := range wf.Nodes {
		n := &wf.Nodes[i]
		if n.Join == nil {
			continue
		}
		j, branches := joinOf(root, n.ID)
		switch {
		case j == nil:
			probs.Add(n.ID, "join: fewer than two edges enter the node, so it joins nothing: remove join")
		case n.Join.N > branches:
			probs.Add(n.ID, "join: n is %d but only %d edges enter the node: use 1 to %d", n.Join.N, branches, branches)
		default:
			j.JoinPolicy = &model.JoinPolicy{
				Policy:          cmp.Or(n.Join.Policy, model.JoinAll),
				N:               n.Join.N,
				BranchTimeout:   millis(n.Join.BranchTimeoutMs),
				CancelRemaining: n.Join.CancelRemaining,
			}
		}
	}
	return probs
}

// joinOf finds the join model.Builder.InsertJoins put in front of node id,
// and how many flows enter it.
func joinOf(s *model.Scope, id string) (*model.Node, int) {
	var join *model.Node
	for _, f := range s.Flows {
		if f.TargetID != id {
			continue
		}
		for _, n := range s.Nodes {
			if n.ID == f.SourceID && n.Kind == model.KindInclusiveGateway && n.Attrs[model.GeneratedAttr] == "true" &&
				strings.HasPrefix(n.ID, id+"__join") {
				join = n
			}
		}
	}
	if join == nil {
		return nil, 0
	}
	in := 0
	for _, f := range s.Flows {
		if f.TargetID == join.ID {
			in++
		}
	}
	return join, in
}

// limits are the workflow's limits; a failure nothing handles fails the
// instance unless failureMode says incident.
func limits(wf *Workflow) model.Limits {
	return model.Limits{
		Timeout:       millis(wf.TimeoutMs),
		MaxConcurrent: wf.MaxConcurrentInstances,
		OverLimit:     wf.OverLimit,
		RetryBudget:   wf.RetryBudget,
		OnFailure:     cmp.Or(wf.FailureMode, model.FailureFail),
	}
}

func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

func task(n *Node) *model.Node {
	t := &model.Node{
		ID:            n.ID,
		Name:          n.DisplayName,
		Documentation: n.Description,
		Kind:          model.KindServiceTask,
		Job: model.Job{
			Type:       n.ActionType,
			Parameters: n.Parameters,
			Timeout:    millis(n.Policies.TimeoutMs),
		},
		Attrs: map[string]string{"actionType": n.ActionType},
	}
	if n.OnFailure != "" {
		t.Attrs["onFailure"] = n.OnFailure
	}
	if r := n.Policies.Retry; r != nil {
		t.Retry = retryPolicy(r)
	}
	if c := n.Policies.CircuitBreaker; c != nil {
		t.Circuit = &model.CircuitPolicy{
			Key:              c.Key,
			FailureThreshold: c.FailureThreshold,
			FailureRate:      c.FailureRateThreshold,
			MinCalls:         c.MinCalls,
			Window:           millis(c.WindowMs),
			OpenTimeout:      millis(c.TimeoutMs),
			HalfOpenCalls:    c.HalfOpenMaxCalls,
		}
	}
	if c := n.Policies.Cache; c != nil {
		t.Cache = &model.CachePolicy{Key: c.Key, TTL: millis(c.TTLMs), Condition: c.Condition, Scope: c.Scope}
	}
	return t
}

func retryPolicy(r *Retry) model.RetryPolicy {
	p := model.RetryPolicy{
		Backoff:       model.Backoffs[strategies[cmp.Or(r.Backoff, r.Type)]],
		MaxDelay:      millis(r.MaxDelayMs),
		Factor:        r.BackoffFactor,
		RetryOn:       r.RetryOnErrors,
		DoNotRetryOn:  r.DoNotRetryOn,
		RetryOnStatus: r.RetryOnStatusCodes,
	}
	if r.MaxAttempts != nil {
		p.Retries = model.RetriesFromAttempts(*r.MaxAttempts)
	}
	if d := cmp.Or(r.BaseDelayMs, r.InitialDelayMs); d != nil {
		p.Delay = millis(*d)
		if *d == 0 { // no delay: the engine's default delay applies to 0
			p.Backoff = model.BackoffImmediate
		}
	}
	if r.Jitter != nil && !*r.Jitter {
		p.Jitter = model.NoJitter
	}
	return p
}

func finish(wf *Workflow, p *model.Process) (*model.Definition, error) {
	if probs := p.Link(); len(probs) > 0 {
		return nil, probs
	}
	def := &model.Definition{
		Key:       wf.ID,
		Name:      wf.DisplayName,
		Format:    model.FormatDAG,
		Processes: []*model.Process{p},
		Variables: wf.Variables,
		ReadModel: model.ReadModelDataWorkflows,
	}
	if probs := model.Validate(def, model.Checks{}); len(probs) > 0 {
		return nil, probs
	}
	return def, nil
}

// check reports what the schema cannot: unique ids, references that
// resolve, and no cycle.
func check(wf *Workflow) model.Problems {
	var probs model.Problems
	byID := make(map[string]*Node, len(wf.Nodes))
	for i := range wf.Nodes {
		n := &wf.Nodes[i]
		if byID[n.ID] != nil {
			probs.Add(n.ID, "node id is used more than once: give every node its own id")
			continue
		}
		byID[n.ID] = n
	}
	if byID[wf.StartNode] == nil {
		probs.Add(wf.ID, "startNode %q is not a node: name one of the nodes", wf.StartNode)
	}
	for i := range wf.Nodes {
		n := &wf.Nodes[i]
		for j, e := range n.Edges {
			if byID[e.TargetNode] == nil {
				probs.Add(n.ID, "edges[%d]: targetNode %q is not a node: name one of the nodes", j, e.TargetNode)
			}
		}
		if n.failureRoute() && byID[n.OnFailure] == nil {
			probs.Add(n.ID, "onFailure %q is not a node: name one of the nodes, or use fail or continue", n.OnFailure)
		}
		if f := n.Policies.Fallback; f != "" && byID[f] == nil {
			probs.Add(n.ID, "policies.fallback %q is not a node: name one of the nodes", f)
		}
		probs = append(probs, checkNode(n)...)
		for _, msg := range checkTemplates(n) {
			probs.Add(n.ID, "%s", msg)
		}
	}
	if len(probs) > 0 {
		return probs
	}
	const (
		active = iota + 1
		done
	)
	state := map[string]int{}
	var visit func(n *Node) bool
	visit = func(n *Node) bool {
		state[n.ID] = active
		for _, next := range n.targets() {
			switch state[next.id] {
			case active:
				probs.Add(n.ID, "the %s to %q closes a cycle: a DAG cannot loop, remove it", next.what, next.id)
				return true
			case 0:
				if visit(byID[next.id]) {
					return true
				}
			}
		}
		state[n.ID] = done
		return false
	}
	for i := range wf.Nodes {
		if state[wf.Nodes[i].ID] == 0 && visit(&wf.Nodes[i]) {
			break
		}
	}
	return probs
}

// target is a node another node may lead to, and by what.
type target struct{ id, what string }

// targets are the nodes n leads to: its edges, its onFailure node and its
// fallback.
func (n *Node) targets() []target {
	out := make([]target, 0, len(n.Edges)+2)
	for _, e := range n.Edges {
		out = append(out, target{e.TargetNode, "edge"})
	}
	if n.failureRoute() {
		out = append(out, target{n.OnFailure, "onFailure route"})
	}
	if n.Policies.Fallback != "" {
		out = append(out, target{n.Policies.Fallback, "fallback"})
	}
	return out
}

// checkNode reports the settings of a node that contradict each other.
func checkNode(n *Node) model.Problems {
	var probs model.Problems
	if r := n.Policies.Retry; r != nil {
		if r.BaseDelayMs != nil && r.InitialDelayMs != nil {
			probs.Add(n.ID, "policies.retry: baseDelayMs and initialDelayMs are the same setting: keep one")
		}
		if r.Backoff != "" && r.Type != "" && strategies[r.Backoff] != strategies[r.Type] {
			probs.Add(n.ID, "policies.retry: backoff %q and type %q disagree: keep one", r.Backoff, r.Type)
		}
	}
	if j := n.Join; j != nil {
		switch {
		case j.Policy == model.JoinNOfM && j.N < 1:
			probs.Add(n.ID, "join: policy n_of_m needs n, how many branches to wait for: add \"n\" (1 or more)")
		case j.Policy != model.JoinNOfM && j.N != 0:
			probs.Add(n.ID, "join: n is read only with policy n_of_m: remove it or set \"policy\": \"n_of_m\"")
		}
	}
	return probs
}

// syntaxMessage says where JSON that does not parse goes wrong.
func syntaxMessage(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := model.Position(data, se.Offset)
		return fmt.Sprintf("not valid JSON at line %d, column %d: %v", line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("/%s: %v", te.Field, err)
	}
	return "not valid JSON: " + err.Error()
}
