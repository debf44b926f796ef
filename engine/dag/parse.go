package dag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
		next := b.Split(root, n.ID, success)
		switch {
		case len(failure) > 0:
			bound := b.AttachErrorBoundary(root, tasks[n.ID], n.ID+"__onFailure")
			b.Split(root, bound.ID, failure)
		case n.OnFailure == OnFailureContinue:
			bound := b.AttachErrorBoundary(root, tasks[n.ID], n.ID+"__onFailure")
			b.Connect(root, bound.ID, next, "")
		}
	}
	b.InsertJoins(root)
	return finish(wf, p)
}

func task(n *Node) *model.Node {
	t := &model.Node{
		ID:            n.ID,
		Name:          n.DisplayName,
		Documentation: n.Description,
		Kind:          model.KindServiceTask,
		Job: model.Job{
			Type:       n.ActionType,
			Parameters: n.Parameters,
			Timeout:    time.Duration(n.Policies.TimeoutMs) * time.Millisecond,
		},
		Attrs: map[string]string{"actionType": n.ActionType},
	}
	if n.OnFailure != "" {
		t.Attrs["onFailure"] = n.OnFailure
	}
	if r := n.Policies.Retry; r != nil {
		t.Retry = model.RetryPolicy{
			Retries:  model.RetriesFromAttempts(r.MaxAttempts),
			Backoff:  model.Backoffs[r.Backoff],
			Delay:    time.Duration(r.InitialDelayMs) * time.Millisecond,
			MaxDelay: time.Duration(r.MaxDelayMs) * time.Millisecond,
		}
	}
	return t
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
		for _, e := range n.Edges {
			switch state[e.TargetNode] {
			case active:
				probs.Add(n.ID, "the edge to %q closes a cycle: a DAG cannot loop, remove the edge", e.TargetNode)
				return true
			case 0:
				if visit(byID[e.TargetNode]) {
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
