package steps

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// TimeoutCode is the BPMN error a sub_workflow or wait_for_event step
// throws when its timeout_seconds pass (on_timeout fail).
const TimeoutCode = "STEP_TIMEOUT"

// Convert turns a Workflow and its steps into a linked, validated
// Definition, or returns the model.Problems found, each naming a step (or
// the workflow_id).
func Convert(w *Workflow, list []*Step) (*model.Definition, error) {
	c := &converter{byID: map[string]*Step{}, seen: map[string]*visit{}}
	id := w.WorkflowID
	switch {
	case w.WorkflowID != "" && w.ID != "" && w.WorkflowID != w.ID:
		c.probs.Add(w.WorkflowID, "workflow_id %q and id %q differ: keep one", w.WorkflowID, w.ID)
	case id == "":
		id = w.ID
	}
	if id == "" {
		c.probs.Add("", "the workflow has no workflow_id: give it one")
		return nil, c.probs
	}
	c.id = id
	c.b = model.NewBuilder(id, w.Name)
	p := c.b.Process()
	// The design stops a workflow when a step fails and nothing handles it.
	p.Limits.OnFailure = model.FailureFail
	for _, st := range list {
		if c.byID[st.ID] != nil {
			c.probs.Add(st.ID, "id is used by more than one step: step ids must be unique")
			continue
		}
		c.byID[st.ID] = st
		c.b.Reserve(st.ID)
	}
	for _, st := range list {
		if c.byID[st.ID] == st {
			c.check(st)
		}
	}
	start := w.StartStep
	if start == "" && len(list) > 0 {
		start = list[0].ID
	}
	if c.byID[start] == nil {
		c.probs.Add(id, "start_step %q is not a step: name one", w.StartStep)
	}
	if len(c.probs) > 0 {
		return nil, c.probs
	}

	top := &region{scope: &p.Scope, name: "the workflow"}
	first := c.b.Generate(top.scope, id+"__start", model.KindStartEvent)
	c.b.Connect(top.scope, first.ID, start, "")
	c.follow(start, target{reg: top}, top)
	for _, st := range list {
		if c.seen[st.ID] == nil && !c.refused(st.ID) {
			c.probs.Add(st.ID, "no step leads to it, so it never runs: name it in a next_step, then, else, parallel_steps, body or branch, or remove it")
		}
	}
	if len(c.probs) > 0 {
		return nil, c.probs
	}
	c.wire()
	for _, s := range c.scopes(p) {
		c.b.InsertJoins(s)
	}
	if probs := p.Link(); len(probs) > 0 {
		return nil, probs
	}
	def := &model.Definition{
		Key:       id,
		Name:      w.Name,
		Format:    model.FormatSteps,
		Processes: []*model.Process{p},
		Variables: w.Variables,
		// The design's references read the start variables and the steps'
		// outputs (see expression.go), and its conditions that fail are false.
		ReadModel: model.ReadModelDataWorkflows,
	}
	if probs := model.Validate(def, model.Checks{}); len(probs) > 0 {
		return nil, probs
	}
	return def, nil
}

type converter struct {
	id      string // the workflow id
	b       *model.Builder
	probs   model.Problems
	byID    map[string]*Step
	seen    map[string]*visit
	pending []pending
	regions []*region
}

// region is where a run of steps lives: the workflow, a loop's body, or
// one branch of a parallel or fork_join step. A step belongs to one region.
type region struct {
	scope *model.Scope
	name  string // for messages
	item  string // inside a loop's body: the loop's item variable
	// Branches: where the branch ends lead, and the id of the one flow
	// that enters the join from it (the join's results are by flow id).
	join   *model.Node
	flowID string
	ends   []pending
}

// target is where a path goes: the entry node of a step, or (node "")
// the end of a region.
type target struct {
	node string
	reg  *region
}

// visit is the region a step was converted in, and where its chain of
// next_steps goes when it ends.
type visit struct {
	reg    *region
	end    target
	active bool
}

// pending is a flow whose target may be the end of a region, added by wire
// once every step is converted.
type pending struct {
	from      *model.Node
	to        target
	condition string
	isDefault bool
	reg       *region
}

// follow converts the step id and the chain of next_steps after it, in
// region reg; where the chain ends it goes to end. A chain that reaches
// end by its next_steps merges there.
func (c *converter) follow(id string, end target, reg *region) {
	if id == end.node {
		return
	}
	if v := c.seen[id]; v != nil {
		switch {
		case v.reg != reg:
			c.probs.Add(id, "is used in %s and in %s: a step belongs to one place, give the other a step of its own", v.reg.name, reg.name)
		case v.active:
			c.probs.Add(id, "is on a cycle of next_step, then or else: steps repeat only in a loop step, use one")
		case v.end != end:
			c.probs.Add(id, "is reached from two places that go on differently when its chain of next_steps ends: end the chain with a next_step")
		}
		return
	}
	v := &visit{reg: reg, end: end, active: true}
	c.seen[id] = v
	defer func() { v.active = false }()
	st := c.byID[id]
	cont := end
	if st.NextStep != "" {
		cont = target{node: st.NextStep}
	}
	c.step(st, cont, reg)
	if st.NextStep != "" {
		c.follow(st.NextStep, end, reg)
	}
}

// sequence converts a list of steps that run one after another in a region
// of their own (a loop's body, a fork_join branch).
func (c *converter) sequence(ids []string, reg *region) {
	for i, id := range ids {
		end := target{reg: reg}
		if i+1 < len(ids) {
			end = target{node: ids[i+1]}
		}
		c.follow(id, end, reg)
	}
}

// connect adds a flow from node to where a path goes (see wire).
func (c *converter) connect(from *model.Node, to target, reg *region, condition string, isDefault bool) {
	c.pending = append(c.pending, pending{from: from, to: to, condition: condition, isDefault: isDefault, reg: reg})
}

// wire adds the pending flows: to a step, to a generated end event
// "<step>__end" where a path ends the workflow or a loop's iteration, or
// into a branch's join (through a merge "<join>__<branch>__merge" when the
// branch ends in several places).
func (c *converter) wire() {
	for _, p := range c.pending {
		switch {
		case p.to.node != "":
			c.flow(p, "", p.to.node)
		case p.to.reg.join != nil:
			p.to.reg.ends = append(p.to.reg.ends, p)
		default:
			end := c.b.Generate(p.reg.scope, p.from.ID+"__end", model.KindEndEvent)
			c.flow(p, "", end.ID)
		}
	}
	for _, r := range c.regions {
		switch len(r.ends) {
		case 0: // every path of the branch ends elsewhere (a fail-fast error end)
		case 1:
			c.flow(r.ends[0], r.flowID, r.join.ID)
		default:
			merge := c.b.Generate(r.scope, r.flowID+"__merge", model.KindInclusiveGateway)
			for _, p := range r.ends {
				c.flow(p, "", merge.ID)
			}
			c.b.AddFlow(r.scope, &model.Flow{ID: r.flowID, SourceID: merge.ID, TargetID: r.join.ID})
		}
	}
}

func (c *converter) flow(p pending, id, to string) {
	f := c.b.AddFlow(p.reg.scope, &model.Flow{ID: id, SourceID: p.from.ID, TargetID: to, Condition: p.condition})
	if p.isDefault {
		p.from.DefaultID = f.ID
	}
}

// branch returns a new branch region of a parallel or fork_join step.
func (c *converter) branch(reg *region, join *model.Node, owner, name string) *region {
	r := &region{
		scope:  reg.scope,
		name:   fmt.Sprintf("branch %q of %s", name, owner),
		item:   reg.item,
		join:   join,
		flowID: c.b.UniqueID(owner + "__" + name),
	}
	c.regions = append(c.regions, r)
	return r
}

// scopes returns the process scope and every loop body in it.
func (c *converter) scopes(p *model.Process) []*model.Scope {
	out := []*model.Scope{&p.Scope}
	var walk func(s *model.Scope)
	walk = func(s *model.Scope) {
		for _, n := range s.Nodes {
			if n.Body != nil {
				out = append(out, n.Body)
				walk(n.Body)
			}
		}
	}
	walk(&p.Scope)
	return out
}

// refused reports whether a step was not converted because of its own problems.
func (c *converter) refused(id string) bool {
	return slices.ContainsFunc(c.probs, func(p model.Problem) bool { return p.ElementID == id })
}

// step adds the nodes of one step to its region and the flows out of it,
// to cont where it goes on.
func (c *converter) step(st *Step, cont target, reg *region) {
	s := reg.scope
	r := refs{steps: c.byID, loopItem: reg.item}
	node := c.b.Add(s, &model.Node{
		ID: st.ID, Name: st.Name, Documentation: st.Description,
		Inputs: r.inputs(st.InputMapping),
		Attrs:  map[string]string{"type": st.Type},
	})
	switch st.Type {
	case TypeAgent:
		node.Kind = model.KindServiceTask
		node.Job = model.Job{Type: st.AgentName, Timeout: seconds(st.TimeoutSeconds)}
		node.Attrs["agentName"] = st.AgentName
		node.Retry = c.retry(st)
		node.Circuit = c.circuit(st)
		node.Cache = c.cache(st, r)
		c.connect(node, cont, reg, "", false)
	case TypeValidate:
		node.Kind = model.KindServiceTask
		node.Job = model.Job{Type: model.ValidateJobType, Parameters: validation(st)}
		c.connect(node, cont, reg, "", false)
	case TypeSubWorkflow:
		node.Kind = model.KindCallActivity
		node.Call = call(st, r)
		c.timeout(st, node, cont, reg)
		c.connect(node, cont, reg, "", false)
	case TypeWaitForEvent:
		c.waitForEvent(st, node, cont, reg, r)
	case TypeConditional:
		node.Kind = model.KindExclusiveGateway
		c.connect(node, target{node: st.Then}, reg, r.condition(st.Condition), false)
		if st.Else != "" {
			c.connect(node, target{node: st.Else}, reg, "", true)
		} else {
			c.connect(node, cont, reg, "", true)
		}
		c.follow(st.Then, cont, reg)
		if st.Else != "" {
			c.follow(st.Else, cont, reg)
		}
	case TypeParallel:
		node.Kind = model.KindParallelGateway
		join := c.b.Generate(s, st.ID+"__join", model.KindInclusiveGateway)
		for _, p := range st.ParallelSteps {
			br := c.branch(reg, join, st.ID, p)
			c.connect(node, target{node: p}, reg, "", false)
			c.follow(p, target{reg: br}, br)
		}
		c.connect(join, cont, reg, "", false)
	case TypeForkJoin:
		node.Kind = model.KindParallelGateway
		join := c.b.Generate(s, st.ID+"__join", model.KindInclusiveGateway)
		join.JoinPolicy = joinPolicy(st)
		names := make([]string, 0, len(st.Branches))
		for name := range st.Branches {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			br := c.branch(reg, join, st.ID, name)
			steps := st.Branches[name].Steps
			c.connect(node, target{node: steps[0]}, reg, "", false)
			c.sequence(steps, br)
		}
		c.connect(join, cont, reg, "", false)
	case TypeLoop:
		node.Kind = model.KindSubProcess
		node.Loop = loop(st, r)
		node.Body = &model.Scope{ID: st.ID}
		body := &region{scope: node.Body, name: fmt.Sprintf("the body of loop %s", st.ID), item: node.Loop.Element}
		ids := loopBody(st)
		first := c.b.Generate(node.Body, st.ID+"__start", model.KindStartEvent)
		c.b.Connect(node.Body, first.ID, ids[0], "")
		c.sequence(ids, body)
		c.connect(node, cont, reg, "", false)
	}
}

// timeout gives a sub_workflow or wait_for_event step a boundary timer
// "<step>__timeout" after timeout_seconds: on_timeout continue goes on to
// cont, fail ends the workflow failed with TimeoutCode.
func (c *converter) timeout(st *Step, host *model.Node, cont target, reg *region) {
	if st.TimeoutSeconds == nil || *st.TimeoutSeconds == 0 {
		return
	}
	b := c.b.Generate(reg.scope, st.ID+"__timeout", model.KindBoundaryEvent)
	b.Trigger = model.TriggerTimer
	b.AttachedToID = host.ID
	b.Interrupting = true
	b.Timer = &model.Timer{Kind: model.TimerDuration, Expr: fmt.Sprintf("PT%dS", *st.TimeoutSeconds)}
	c.onTimeout(st, b, cont, reg)
}

// onTimeout leads a timeout to cont (on_timeout continue) or to an error
// end event "<step>__timedOut" that fails the workflow.
func (c *converter) onTimeout(st *Step, from *model.Node, cont target, reg *region) {
	if strings.EqualFold(st.OnTimeout, "continue") {
		c.connect(from, cont, reg, "", false)
		return
	}
	end := c.b.Generate(reg.scope, st.ID+"__timedOut", model.KindEndEvent)
	end.Trigger = model.TriggerError
	end.ErrorCode = TimeoutCode
	end.ErrorMessage = fmt.Sprintf("step %s timed out after %d seconds", st.ID, *st.TimeoutSeconds)
	c.b.Connect(reg.scope, from.ID, end.ID, "")
}

// inputs converts an input_mapping, sorted by variable name.
func (r refs) inputs(m map[string]any) []model.Mapping {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]model.Mapping, 0, len(m))
	for _, name := range names {
		out = append(out, model.Mapping{Source: r.value(m[name]), Target: name})
	}
	return out
}
