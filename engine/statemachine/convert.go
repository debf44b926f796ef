package statemachine

import (
	"regexp"

	"github.com/workflowpp/wfpp/engine/model"
)

// Attrs the conversion sets, which History reads back.
const (
	// StateAttr, on a node, marks the node a token enters when the machine
	// enters the state it names.
	StateAttr = "state"
	// TransitionAttr, on a flow, marks the first flow of a transition: the
	// token takes it when the machine leaves its state that way. Its value
	// describes the transition ("condition: total > 100", "message: paid",
	// "signal: cancel", "timer: P3D" or "always").
	TransitionAttr = "transition"
)

var stateName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// Convert turns a Workflow into a linked, validated Definition, or returns
// the model.Problems found, each naming a state (or the workflow).
func Convert(wf *Workflow) (*model.Definition, error) {
	if probs := check(wf); len(probs) > 0 {
		return nil, probs
	}
	b := model.NewBuilder(wf.Key(), wf.Name)
	p := b.Process()
	root := &p.Scope
	for i := range wf.States {
		s := &wf.States[i]
		b.Add(root, &model.Node{ID: s.Name, Name: s.Name, Documentation: s.Description, Kind: model.KindTask, Attrs: map[string]string{StateAttr: s.Name}})
	}
	start := b.Generate(root, wf.InitialState+"__start", model.KindStartEvent)
	b.Connect(root, start.ID, wf.InitialState, "")
	for i := range wf.States {
		convertState(b, root, &wf.States[i])
	}
	if probs := p.Link(); len(probs) > 0 {
		return nil, probs
	}
	def := &model.Definition{
		Key:       wf.Key(),
		Name:      wf.Name,
		Format:    model.FormatStateMachine,
		Processes: []*model.Process{p},
		Variables: wf.Variables,
	}
	if probs := model.Validate(def, model.Checks{}); len(probs) > 0 {
		return nil, probs
	}
	return def, nil
}

// convertState adds the sequence a state becomes: the state's own node,
// its entry actions, its actions, then the way out: an end event for a
// terminal state; else an exclusive gateway "<state>__choice" over the
// conditional transitions in order, whose default (when none holds) is an
// event-based gateway "<state>__events" over the event transitions (or the
// one catch event "<state>__message|signal|timer" when there is one); a
// state with only event transitions waits at once, one with a single
// unconditional transition just goes on.
func convertState(b *model.Builder, root *model.Scope, s *State) {
	last := chain(b, root, s.Name, s.Name+"__entry", s.OnEntry)
	last = chain(b, root, last, s.Name+"__action", s.Actions)
	if s.Terminal {
		end := b.Generate(root, s.Name+"__end", model.KindEndEvent)
		b.Connect(root, last, end.ID, "")
		return
	}
	var conds, events []*Transition
	for i := range s.Transitions {
		if t := &s.Transitions[i]; t.Event != nil {
			events = append(events, t)
		} else {
			conds = append(conds, t)
		}
	}
	if len(conds) == 1 && conds[0].Condition == "" && len(events) == 0 {
		leave(b, root, last, s, conds[0])
		return
	}
	var choice *model.Node
	if len(conds) > 0 {
		choice = b.Generate(root, s.Name+"__choice", model.KindExclusiveGateway)
		choice.Name = s.Name + ": which transition?"
		b.Connect(root, last, choice.ID, "")
		for _, t := range conds {
			f := leave(b, root, choice.ID, s, t)
			if t.Condition == "" {
				choice.DefaultID = f.ID
			}
		}
		if len(events) == 0 {
			return // none holds: the gateway's incident names the state
		}
	}
	from := last
	if choice != nil {
		from = choice.ID
	}
	if len(events) == 1 { // an event-based gateway needs two ways out
		c := catch(b, root, s.Name, events[0].Event)
		connectWait(b, root, from, choice, c.ID)
		leave(b, root, c.ID, s, events[0])
		return
	}
	wait := b.Generate(root, s.Name+"__events", model.KindEventBasedGateway)
	wait.Name = s.Name + ": waiting"
	connectWait(b, root, from, choice, wait.ID)
	for _, t := range events {
		c := catch(b, root, s.Name, t.Event)
		b.Connect(root, wait.ID, c.ID, "")
		leave(b, root, c.ID, s, t)
	}
}

// connectWait connects where a state starts waiting for its events: the
// default flow of its choice when it has one (no condition held).
func connectWait(b *model.Builder, root *model.Scope, from string, choice *model.Node, to string) {
	f := b.Connect(root, from, to, "")
	if choice != nil {
		choice.DefaultID = f.ID
	}
}

// leave adds the path of transition t from node from: the state's exit
// actions, then its target. Returns its first flow, which carries the
// transition's condition and TransitionAttr.
func leave(b *model.Builder, root *model.Scope, from string, s *State, t *Transition) *model.Flow {
	attrs := map[string]string{TransitionAttr: t.describe()}
	if len(s.OnExit) == 0 {
		return b.AddFlow(root, &model.Flow{SourceID: from, TargetID: t.Target, Condition: t.Condition, Attrs: attrs})
	}
	first := action(b, root, s.Name+"__exit__"+t.Target, s.OnExit[0])
	f := b.AddFlow(root, &model.Flow{SourceID: from, TargetID: first.ID, Condition: t.Condition, Attrs: attrs})
	last := chain(b, root, first.ID, s.Name+"__exit__"+t.Target, s.OnExit[1:])
	b.Connect(root, last, t.Target, "")
	return f
}

// chain adds actions one after the other behind node from, with ids
// derived from base, and returns the id of the last.
func chain(b *model.Builder, root *model.Scope, from, base string, actions []Action) string {
	for _, a := range actions {
		n := action(b, root, base, a)
		b.Connect(root, from, n.ID, "")
		from = n.ID
	}
	return from
}

// action adds the task an action becomes: a service task whose job type is
// the agent's name, or a JavaScript script task.
func action(b *model.Builder, root *model.Scope, base string, a Action) *model.Node {
	n := b.Generate(root, base, model.KindServiceTask)
	if a.Script != "" {
		n.Kind = model.KindScriptTask
		n.Script = model.Script{Format: "javascript", Source: a.Script}
		return n
	}
	n.Name = a.Job
	n.Job = model.Job{Type: a.Job, Parameters: a.InputMapping}
	return n
}

// catch adds the intermediate catch event an event transition waits with.
func catch(b *model.Builder, root *model.Scope, state string, e *Event) *model.Node {
	switch {
	case e.Message != "":
		n := b.Generate(root, state+"__message", model.KindIntermediateCatchEvent)
		n.Name, n.Trigger = e.Message, model.TriggerMessage
		n.Message = &model.Message{Name: e.Message, CorrelationKey: correlationKey(e.CorrelationKey)}
		return n
	case e.Signal != "":
		n := b.Generate(root, state+"__signal", model.KindIntermediateCatchEvent)
		n.Name, n.Trigger, n.SignalName = e.Signal, model.TriggerSignal, e.Signal
		return n
	}
	n := b.Generate(root, state+"__timer", model.KindIntermediateCatchEvent)
	n.Name, n.Trigger = e.Timer, model.TriggerTimer
	n.Timer = &model.Timer{Kind: model.TimerDuration, Expr: e.Timer}
	return n
}

// correlationKey makes a correlation_key, an expression like a condition
// (orderId, customer.id), an expression of the engine's: ${orderId}. One
// written as =expr or holding ${...} already is kept as it is.
func correlationKey(key string) string {
	if key == "" || model.IsExpression(key) {
		return key
	}
	return "${" + key + "}"
}

// check reports every problem the conversion cannot deal with, by state.
func check(wf *Workflow) model.Problems {
	var probs model.Problems
	if wf.Key() == "" {
		probs.Add("", "the state machine has no workflow_id: give it one")
		return probs
	}
	if wf.WorkflowID != "" && wf.ID != "" && wf.WorkflowID != wf.ID {
		probs.Add(wf.Key(), "workflow_id is %q and id is %q: give one of them", wf.WorkflowID, wf.ID)
	}
	if wf.Type != TypeStateMachine {
		probs.Add(wf.Key(), "type is %q: a state machine has type: %s", wf.Type, TypeStateMachine)
	}
	if len(wf.States) == 0 {
		probs.Add(wf.Key(), "the state machine has no states: list them under states")
		return probs
	}
	byName := map[string]*State{}
	for i := range wf.States {
		s := &wf.States[i]
		switch {
		case s.Name == "":
			probs.Add(wf.Key(), "state %d has no name: give it one", i+1)
		case !stateName.MatchString(s.Name):
			probs.Add(s.Name, "the state name is not usable as an id: use letters, digits, _ . and -, starting with a letter or _")
		case byName[s.Name] != nil:
			probs.Add(s.Name, "the state is defined more than once: give every state its own name")
		default:
			byName[s.Name] = s
		}
	}
	switch {
	case wf.InitialState == "":
		probs.Add(wf.Key(), "the state machine has no initial_state: name the state it starts in")
	case byName[wf.InitialState] == nil:
		probs.Add(wf.Key(), "initial_state %q is not a state: name one of the states", wf.InitialState)
	}
	for i := range wf.States {
		if s := &wf.States[i]; byName[s.Name] == s {
			probs = append(probs, checkState(s, byName)...)
		}
	}
	if byName[wf.InitialState] != nil {
		for _, name := range unreachable(wf, byName) {
			probs.Add(name, "no transition leads to the state from initial_state %q: add one, or remove the state", wf.InitialState)
		}
	}
	return probs
}

func checkState(s *State, byName map[string]*State) model.Problems {
	var probs model.Problems
	for _, list := range []struct {
		field   string
		actions []Action
	}{{"on_entry", s.OnEntry}, {"actions", s.Actions}, {"on_exit", s.OnExit}} {
		for i, a := range list.actions {
			switch {
			case a.Job == "" && a.Script == "":
				probs.Add(s.Name, "%s[%d] has neither a job type (agent_name or type) nor a script: give one", list.field, i)
			case a.Job != "" && a.Script != "":
				probs.Add(s.Name, "%s[%d] has both a job type and a script: split it into two actions", list.field, i)
			case a.Script != "" && a.InputMapping != nil:
				probs.Add(s.Name, "%s[%d] is a script with an input_mapping: a script reads the variables itself, remove input_mapping", list.field, i)
			}
		}
	}
	if s.Terminal {
		if len(s.Transitions) > 0 || len(s.OnExit) > 0 {
			probs.Add(s.Name, "a terminal state ends the instance: remove its transitions and on_exit, or terminal")
		}
		return probs
	}
	if len(s.Transitions) == 0 {
		probs.Add(s.Name, "the state has no transitions and is not terminal: add a transition, or terminal: true")
	}
	always := -1
	for i, t := range s.Transitions {
		switch {
		case t.Target == "":
			probs.Add(s.Name, "transitions[%d] has no target: name the state it leads to", i)
		case byName[t.Target] == nil:
			probs.Add(s.Name, "transitions[%d]: target %q is not a state: name one of the states", i, t.Target)
		}
		if t.Event != nil {
			probs = append(probs, checkEvent(s.Name, i, t)...)
			continue
		}
		if always >= 0 {
			probs.Add(s.Name, "transitions[%d] comes after transitions[%d], which has no condition and is always taken: move that one last", i, always)
		}
		if t.Condition == "" {
			always = i
		}
	}
	if always >= 0 {
		for i, t := range s.Transitions {
			if t.Event != nil {
				probs.Add(s.Name, "transitions[%d] waits for an event, but transitions[%d] has no condition and is always taken first: give that one a condition", i, always)
			}
		}
	}
	return probs
}

func checkEvent(state string, i int, t Transition) model.Problems {
	var probs model.Problems
	e := t.Event
	given := 0
	for _, v := range []string{e.Message, e.Signal, e.Timer} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		probs.Add(state, "transitions[%d].event must give exactly one of message, signal and timer", i)
	}
	if t.Condition != "" {
		probs.Add(state, "transitions[%d] has both a condition and an event: an event transition is taken when the event comes; split it", i)
	}
	if e.CorrelationKey != "" && e.Message == "" {
		probs.Add(state, "transitions[%d].event has a correlation_key but no message: name the message", i)
	}
	if e.Timer != "" {
		if _, err := model.ParseISODuration(e.Timer); err != nil {
			probs.Add(state, "transitions[%d].event.timer: %v", i, err)
		}
	}
	return probs
}

// unreachable lists, in document order, the states no chain of transitions
// leads to from the initial state.
func unreachable(wf *Workflow, byName map[string]*State) []string {
	seen := map[string]bool{wf.InitialState: true}
	todo := []string{wf.InitialState}
	for len(todo) > 0 {
		s := byName[todo[0]]
		todo = todo[1:]
		for _, t := range s.Transitions {
			if byName[t.Target] != nil && !seen[t.Target] {
				seen[t.Target] = true
				todo = append(todo, t.Target)
			}
		}
	}
	var out []string
	for _, s := range wf.States {
		if byName[s.Name] != nil && !seen[s.Name] {
			out = append(out, s.Name)
		}
	}
	return out
}
