package statemachine

import (
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// Visit is one stay of an instance in a state.
type Visit struct {
	State   string     `json:"state"`
	Entered time.Time  `json:"entered"`
	Exited  *time.Time `json:"exited,omitempty"` // nil while in it, and in a terminal state
	// Transition is how the state was left: "condition: <text>",
	// "message: <name>", "signal: <name>", "timer: <duration>" or "always".
	Transition string `json:"transition,omitempty"`
	// Target is the state the transition leads to.
	Target string `json:"target,omitempty"`
}

// Step is one thing an instance's history recorded that History reads: a
// token entered node Element, or took flow Flow (the other is empty).
type Step struct {
	Element string
	Flow    string
	Time    time.Time
}

// History derives the state history of an instance of process p from its
// steps, in the order they happened: a state is entered when a token
// enters the state's node (StateAttr) and left when it takes a transition's
// first flow (TransitionAttr). Reading the engine's own history keeps the
// states as durable as the rest of the instance, with nothing stored twice.
// The current state is the last visit's.
func History(p *model.Process, steps []Step) []Visit {
	visits := []Visit{}
	for _, s := range steps {
		if s.Element != "" {
			if n := p.Node(s.Element); n != nil && n.Attrs[StateAttr] != "" {
				visits = append(visits, Visit{State: n.Attrs[StateAttr], Entered: s.Time})
			}
			continue
		}
		f := p.Flow(s.Flow)
		if f == nil || f.Attrs[TransitionAttr] == "" || len(visits) == 0 {
			continue
		}
		v := &visits[len(visits)-1]
		at := s.Time
		v.Exited, v.Transition, v.Target = &at, f.Attrs[TransitionAttr], targetState(f)
	}
	return visits
}

// targetState follows a transition's path through its exit actions to the
// state it enters.
func targetState(f *model.Flow) string {
	for n := f.Target; n != nil; {
		if st := n.Attrs[StateAttr]; st != "" {
			return st
		}
		if len(n.Outgoing) != 1 {
			return ""
		}
		n = n.Outgoing[0].Target
	}
	return ""
}
