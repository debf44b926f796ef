package engine

import (
	"context"
	"fmt"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/statemachine"
)

// States is where an instance of a state-machine definition is and has
// been (see statemachine.History).
type States struct {
	Current string               `json:"currentState"`
	History []statemachine.Visit `json:"stateHistory"`
}

// States derives the state history of snap from its event log. ok is
// false for an instance of another format than model.FormatStateMachine,
// which has no states. The log is the durable record already: reading it
// costs one query and keeps nothing apart that could disagree with it.
func (e *Engine) States(ctx context.Context, snap *Snapshot) (s States, ok bool, err error) {
	dep, err := e.defs.byID(ctx, snap.DefinitionID)
	if err != nil {
		return s, false, fmt.Errorf("states of %s: %w", snap.ID, err)
	}
	p := dep.def.Process(snap.ProcessID)
	if dep.def.Format != model.FormatStateMachine || p == nil {
		return s, false, nil
	}
	events, err := e.store.Events(ctx, snap.ID, 0, 0)
	if err != nil {
		return s, false, fmt.Errorf("states of %s: %w", snap.ID, err)
	}
	var steps []statemachine.Step
	for _, ev := range events {
		switch ev.Type {
		case EventElementActivated:
			steps = append(steps, statemachine.Step{Element: ev.ElementID, Time: ev.Time})
		case EventFlowTaken:
			steps = append(steps, statemachine.Step{Flow: ev.FlowID, Time: ev.Time})
		}
	}
	s.History = statemachine.History(p, steps)
	if n := len(s.History); n > 0 {
		s.Current = s.History[n-1].State
	}
	return s, true, nil
}
