package gateways

import (
	"errors"
	"fmt"

	"github.com/workflowpp/wfpp/engine/model"
)

// ErrNoFlow means no outgoing flow of a split could be taken.
var ErrNoFlow = errors.New("no condition holds and there is no default flow")

// Condition evaluates the condition of one flow. Flows without a condition
// are never passed to it.
type Condition func(f *model.Flow) (bool, error)

// Result is the outcome of one evaluated condition, as the history shows it.
type Result struct {
	FlowID string `json:"flowId"`
	Value  bool   `json:"value"`
}

// Decision is what a split saw and chose.
type Decision struct {
	Results []Result
	Chosen  []*model.Flow
	Default bool // the default flow was taken because no condition held
}

// ConditionError names the flow whose condition failed.
type ConditionError struct {
	FlowID string
	Err    error
}

func (e *ConditionError) Error() string {
	return fmt.Sprintf("condition of flow %q: %v", e.FlowID, e.Err)
}

func (e *ConditionError) Unwrap() error { return e.Err }

// Exclusive chooses one flow out of an exclusive gateway.
func Exclusive(n *model.Node, eval Condition) (Decision, error) {
	var d Decision
	for _, f := range n.Outgoing {
		if f == n.Default {
			continue
		}
		if f.Condition == "" {
			d.Chosen = one(n, f)
			return d, nil
		}
		ok, err := eval(f)
		if err != nil {
			return d, &ConditionError{FlowID: f.ID, Err: err}
		}
		d.Results = append(d.Results, Result{FlowID: f.ID, Value: ok})
		if ok {
			d.Chosen = one(n, f)
			return d, nil
		}
	}
	return d.orDefault(n)
}

// one returns a one-flow slice of n's outgoing flows without allocating.
func one(n *model.Node, f *model.Flow) []*model.Flow {
	for i, o := range n.Outgoing {
		if o == f {
			return n.Outgoing[i : i+1 : i+1]
		}
	}
	return []*model.Flow{f}
}

// Inclusive chooses every flow whose condition holds, or the default flow.
// Activities and events leaving through several flows use it too.
func Inclusive(n *model.Node, eval Condition) (Decision, error) {
	var d Decision
	for _, f := range n.Outgoing {
		if f == n.Default || f.Fallback {
			continue
		}
		if f.Condition == "" {
			d.Chosen = append(d.Chosen, f)
			continue
		}
		ok, err := eval(f)
		if err != nil {
			return d, &ConditionError{FlowID: f.ID, Err: err}
		}
		d.Results = append(d.Results, Result{FlowID: f.ID, Value: ok})
		if ok {
			d.Chosen = append(d.Chosen, f)
		}
	}
	if len(d.Chosen) > 0 {
		return d, nil
	}
	return d.orDefault(n)
}

func (d Decision) orDefault(n *model.Node) (Decision, error) {
	if n.Default == nil {
		return d, ErrNoFlow
	}
	d.Chosen = append(d.Chosen, one(n, n.Default)...)
	d.Default = true
	return d, nil
}

// Leave chooses the flows a token takes out of a node that is not a gateway:
// every unconditional flow and every flow whose condition holds; the default
// flow when none does. No outgoing flow at all is an implicit end: no flows,
// no error. Fallback flows are never taken here: only an open circuit
// breaker takes them (engine/circuit.go); an activity with nothing else
// ends implicitly.
func Leave(n *model.Node, eval Condition) (Decision, error) {
	normal := len(n.Outgoing)
	for _, f := range n.Outgoing {
		if f.Fallback {
			normal--
		}
	}
	if normal == 0 {
		return Decision{}, nil
	}
	if len(n.Outgoing) == 1 && n.Outgoing[0].Condition == "" {
		return Decision{Chosen: n.Outgoing[:1:1]}, nil
	}
	return Inclusive(n, eval)
}

// Fork is a parallel gateway's split: every outgoing flow.
func Fork(n *model.Node) []*model.Flow { return n.Outgoing }

// Split decides the flows out of any node by its kind.
func Split(n *model.Node, eval Condition) (Decision, error) {
	switch n.Kind {
	case model.KindExclusiveGateway:
		return Exclusive(n, eval)
	case model.KindInclusiveGateway, model.KindComplexGateway:
		return Inclusive(n, eval)
	case model.KindParallelGateway:
		return Decision{Chosen: Fork(n)}, nil
	}
	return Leave(n, eval)
}
