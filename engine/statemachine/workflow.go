package statemachine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// TypeStateMachine is the type field that marks a state-machine document.
const TypeStateMachine = "state_machine"

// Workflow is a state-machine document as written.
type Workflow struct {
	WorkflowID   string         `json:"workflow_id"`
	ID           string         `json:"id"` // the same as workflow_id; either will do
	Name         string         `json:"name"`
	Description  string         `json:"description"`
	Version      any            `json:"version"` // informative
	Type         string         `json:"type"`
	InitialState string         `json:"initial_state"`
	Variables    map[string]any `json:"variables"`
	States       States         `json:"states"`
}

// Key is the definition key: workflow_id, else id.
func (w *Workflow) Key() string {
	if w.WorkflowID != "" {
		return w.WorkflowID
	}
	return w.ID
}

// States are the states in the order the document lists them, written
// either as a map from name to state or as a list of states with a name.
type States []State

// State is one state of the machine.
type State struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	OnEntry     []Action     `json:"on_entry"`
	Actions     []Action     `json:"actions"`
	OnExit      []Action     `json:"on_exit"`
	Transitions []Transition `json:"transitions"`
	Terminal    bool         `json:"terminal"`
}

// Action is work a state does: a job of type Job (an agent's name), or a
// JavaScript Script run in the engine. Written as the job type alone, or as
// {agent_name | type, input_mapping} or {script}.
type Action struct {
	Job          string
	Script       string
	InputMapping map[string]any // job parameters; values may hold ${...} templates
}

// Transition leaves a state for Target: when Condition holds, on Event, or
// always when it has neither.
type Transition struct {
	Target    string `json:"target"`
	Condition string `json:"condition"`
	Event     *Event `json:"event"`
}

// Event is what an event transition waits for: exactly one of a message
// (with a correlation key), a signal, or a timer (an ISO-8601 duration).
type Event struct {
	Message        string `json:"message"`
	CorrelationKey string `json:"correlation_key"`
	Signal         string `json:"signal"`
	Timer          string `json:"timer"`
}

// describe is how the state history names the transition.
func (t *Transition) describe() string {
	switch {
	case t.Event != nil && t.Event.Message != "":
		return "message: " + t.Event.Message
	case t.Event != nil && t.Event.Signal != "":
		return "signal: " + t.Event.Signal
	case t.Event != nil && t.Event.Timer != "":
		return "timer: " + t.Event.Timer
	case t.Condition != "":
		return "condition: " + t.Condition
	}
	return "always"
}

// UnmarshalJSON reads a map of states in document order, or a list.
func (s *States) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var list []State
		if err := strict(data, &list); err != nil {
			return err
		}
		*s = list
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("states must be a map from state name to state, or a list of states")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		var st State
		if err := strict(raw, &st); err != nil {
			return fmt.Errorf("state %q: %w", name, err)
		}
		if st.Name != "" && st.Name != name {
			return fmt.Errorf("state %q: its name is %q: leave name out in a map of states, or make them equal", name, st.Name)
		}
		st.Name = name
		*s = append(*s, st)
	}
	return nil
}

// UnmarshalJSON reads the state strictly: unknown fields are errors.
func (st *State) UnmarshalJSON(data []byte) error {
	type plain State
	return strict(data, (*plain)(st))
}

// UnmarshalJSON reads a transition strictly.
func (t *Transition) UnmarshalJSON(data []byte) error {
	type plain Transition
	return strict(data, (*plain)(t))
}

// UnmarshalJSON reads an event strictly.
func (e *Event) UnmarshalJSON(data []byte) error {
	type plain Event
	return strict(data, (*plain)(e))
}

// UnmarshalJSON reads an action: a job type, or an inline object.
func (a *Action) UnmarshalJSON(data []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`"`)) {
		return json.Unmarshal(data, &a.Job)
	}
	var obj struct {
		AgentName    string         `json:"agent_name"`
		Type         string         `json:"type"`
		InputMapping map[string]any `json:"input_mapping"`
		Script       string         `json:"script"`
	}
	if err := strict(data, &obj); err != nil {
		return fmt.Errorf("an action is a job type or {agent_name | type, input_mapping} or {script}: %w", err)
	}
	if obj.AgentName != "" && obj.Type != "" && obj.AgentName != obj.Type {
		return fmt.Errorf("an action has agent_name %q and type %q: give one of them", obj.AgentName, obj.Type)
	}
	a.Job = obj.AgentName
	if a.Job == "" {
		a.Job = obj.Type
	}
	a.Script, a.InputMapping = obj.Script, obj.InputMapping
	return nil
}

// strict decodes data into v, refusing fields v does not have.
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
