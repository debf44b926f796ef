package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// A multi-instance activity runs once per item. The token that arrives waits
// on the activity (TokenMulti) and keeps the books in its local variables,
// named as Camunda names them so conditions can use them: nrOfInstances,
// nrOfCompletedInstances, nrOfActiveInstances. Each instance is a token of its
// own on the same node (token.outer points back), with loopCounter (from 1; from 0 in Camunda 7 files)
// and the item variable as local variables. When all have completed, or the
// completion condition holds after one does, the rest are cancelled, the
// outputs are stored in order as the output collection, and the waiting
// token leaves the activity.

const (
	miInstances = "nrOfInstances"
	miCompleted = "nrOfCompletedInstances"
	miActive    = "nrOfActiveInstances"
	miItems     = "__items"   // the items still to run (sequential)
	miOutputs   = "__outputs" // outputs by loopCounter-1
	miSpawned   = "__spawned" // instances started so far
	miErrors    = "__errors"  // ErrorPolicyCollect: the failures gathered
)

func (x *instance) enterMultiInstance(t *token) {
	n := t.node
	items, err := x.miItems(t, n.Loop)
	if err != nil {
		x.incidentAt(t, "expression", fmt.Sprintf("multi-instance %q: %v", n.ID, err), phaseEnter)
		return
	}
	t.status = TokenMulti
	t.local = map[string]any{
		miInstances: len(items), miCompleted: 0, miActive: 0,
		miItems: items, miOutputs: make([]any, len(items)),
	}
	x.emit(EventMultiInstanceStarted, n, t, map[string]any{"instances": len(items), "sequential": n.Loop.Sequential})
	x.armBoundaries(t)
	if len(items) == 0 {
		x.miFinish(t)
		return
	}
	for range min(len(items), miWidth(n.Loop)) {
		x.miSpawn(t, count(t.local[miSpawned]))
	}
}

// miWidth is how many instances of mi run at once: one when sequential,
// at most MaxParallel, else all.
func miWidth(mi *model.MultiInstance) int {
	switch {
	case mi.Sequential:
		return 1
	case mi.MaxParallel > 0:
		return mi.MaxParallel
	}
	return math.MaxInt
}

// miItems evaluates the input collection, or makes loopCardinality nulls.
func (x *instance) miItems(t *token, mi *model.MultiInstance) ([]any, error) {
	vars := x.evalVars(t)
	if mi.Collection != "" {
		v, err := x.eval(vars, mi.Collection)
		if err != nil {
			return nil, fmt.Errorf("input collection: %w", err)
		}
		list, ok := v.([]any)
		switch {
		case v == nil:
			return nil, fmt.Errorf("input collection %q gave null, not a list: set the variable (an empty list runs no instance)", mi.Collection)
		case !ok:
			return nil, fmt.Errorf("input collection %q gave %T, not a list", mi.Collection, v)
		}
		return list, nil
	}
	if mi.Cardinality == "" {
		return make([]any, 1), nil // a marker that is only drawn: one instance, as a standard loop without a condition runs once
	}
	v, err := x.eval(vars, mi.Cardinality)
	if err != nil {
		return nil, fmt.Errorf("loop cardinality: %w", err)
	}
	n, ok := toInt(v)
	if !ok || n < 0 || n > 100_000 {
		return nil, fmt.Errorf("loop cardinality %q gave %v: give a whole number from 0 to 100000", mi.Cardinality, v)
	}
	return make([]any, n), nil
}

// miSpawn starts the instance for item i.
func (x *instance) miSpawn(outer *token, i int) {
	mi := outer.node.Loop
	items := outer.local[miItems].([]any)
	in := x.newToken(outer.scope)
	in.outer = outer.id
	in.local = map[string]any{"loopCounter": i + mi.CounterFrom}
	if mi.Element != "" {
		in.local[mi.Element] = items[i]
	}
	outer.local[miActive] = count(outer.local[miActive]) + 1
	outer.local[miSpawned] = i + 1
	x.work = append(x.work, step{tok: in, node: outer.node, via: outer.via})
}

// innerDone records one instance's completion and ends the activity when it
// is the last, or when the completion condition holds.
func (x *instance) innerDone(in *token, result map[string]any) {
	outer := x.token(in.outer)
	n := in.node
	if outer == nil || outer.status != TokenMulti {
		x.removeToken(in)
		return
	}
	mi := n.Loop
	i := count(in.local["loopCounter"]) - n.Loop.CounterFrom
	scope := x.jobVars(in)
	for k, v := range result {
		scope[k] = v
	}
	if mi.OutputElement != "" {
		out, err := x.eval(scope, mi.OutputElement)
		if err != nil {
			x.incidentAt(in, "expression", fmt.Sprintf("output element of %q: %v", n.ID, err), phaseJob)
			return
		}
		outer.local[miOutputs].([]any)[i] = out
	} else if mi.OutputCollection != "" {
		outer.local[miOutputs].([]any)[i] = result
	}
	if mi.OutputCollection == "" {
		if err := x.outputs(in, n, result); err != nil {
			x.incidentAt(in, "expression", err.Error(), phaseJob)
			return
		}
	}
	x.disarmToken(in)
	x.emit(EventElementCompleted, n, in, map[string]any{"loopCounter": i + mi.CounterFrom})
	x.innerEnded(outer, in)
}

// innerFailed ends an instance whose work failed for good, when its
// activity's error policy goes on without it, and reports whether it did.
func (x *instance) innerFailed(in *token, msg string) bool {
	outer := x.token(in.outer)
	mi := in.node.Loop
	if outer == nil || outer.status != TokenMulti || mi.ErrorPolicy == "" || mi.ErrorPolicy == model.ErrorPolicyStop {
		return false
	}
	i := count(in.local["loopCounter"])
	if mi.ErrorPolicy == model.ErrorPolicyCollect {
		errs, _ := outer.local[miErrors].([]any)
		item := any(nil)
		if mi.Element != "" {
			item = in.local[mi.Element]
		}
		outer.local[miErrors] = append(slices.Clip(errs), map[string]any{"loopCounter": i, "item": item, "error": msg})
	}
	x.disarmToken(in)
	x.emit(EventElementTerminated, in.node, in, map[string]any{"loopCounter": i, "error": msg, "errorPolicy": mi.ErrorPolicy})
	x.innerEnded(outer, in)
	return true
}

// innerBodyFailed ends the instance of a multi-instance sub-process whose
// body holds t, work that failed for good, when the sub-process's error
// policy goes on without it (see innerFailed), and reports whether it did.
// The nearest multi-instance sub-process around t decides.
func (x *instance) innerBodyFailed(t *token, msg string) bool {
	for id := t.scope; id != 0; {
		sc := x.scope(id)
		if sc == nil {
			return false
		}
		owner := x.token(sc.token)
		if owner == nil {
			return false
		}
		if owner.outer == 0 {
			id = sc.parent
			continue
		}
		mi := owner.node.Loop
		if mi == nil || mi.ErrorPolicy == "" || mi.ErrorPolicy == model.ErrorPolicyStop {
			return false
		}
		x.terminateScope(sc.id)
		return x.innerFailed(owner, msg)
	}
	return false
}

// innerEnded counts instance in of outer's multi-instance activity done
// and ends the activity when it was the last, or when the completion
// condition holds; else starts the next one waiting.
func (x *instance) innerEnded(outer, in *token) {
	n, mi := in.node, in.node.Loop
	x.removeToken(in)
	outer.local[miCompleted] = count(outer.local[miCompleted]) + 1
	outer.local[miActive] = count(outer.local[miActive]) - 1

	done := count(outer.local[miCompleted]) == count(outer.local[miInstances])
	if !done && mi.Completion != "" {
		ok, err := x.condition(outer, mi.Completion)
		if err != nil {
			x.incidentAt(outer, "expression", fmt.Sprintf("completion condition of %q: %v", n.ID, err), phaseEnter)
			return
		}
		done = ok
	}
	spawned := count(outer.local[miCompleted]) + count(outer.local[miActive])
	if v, ok := outer.local[miSpawned]; ok { // stored before it was counted: the others say it
		spawned = count(v)
	}
	switch {
	case done:
		x.miFinish(outer)
	case spawned < count(outer.local[miInstances]): // sequential, or capped by MaxParallel
		x.miSpawn(outer, spawned)
	}
}

// miFinish cancels the instances still running, stores the outputs and
// moves the waiting token on.
func (x *instance) miFinish(outer *token) {
	mi := outer.node.Loop
	x.cancelInner(outer)
	outputs := outer.local[miOutputs].([]any)
	errs, _ := outer.local[miErrors].([]any)
	x.emit(EventMultiInstanceCompleted, outer.node, outer, map[string]any{"completed": outer.local[miCompleted], "failed": len(errs)})
	outer.local = nil
	if mi.OutputCollection != "" {
		x.setVars(map[string]any{mi.OutputCollection: slices.Clone(outputs)})
	}
	if mi.ErrorPolicy == model.ErrorPolicyCollect {
		x.setVars(map[string]any{cmp.Or(mi.ErrorsVariable, "errors"): append([]any{}, errs...)})
	}
	x.finishActivity(outer, nil)
}

// cancelInner removes the instances of outer's multi-instance activity that
// still run.
func (x *instance) cancelInner(outer *token) {
	for _, in := range slices.Clone(x.tokens) {
		if in.outer != outer.id {
			continue
		}
		x.disarmToken(in)
		if in.taskID != "" {
			x.cancelTask(in)
		}
		x.resolveIncidentsOf(in)
		x.unlockExternal(in)
		x.emit(EventElementTerminated, in.node, in, nil)
		x.removeToken(in)
	}
}

// count reads a bookkeeping number, whatever numeric type a store gave back.
func count(v any) int {
	n, _ := toInt(v)
	return n
}

func toInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case int32:
		return int(v), true
	case int64:
		return int(v), true
	case float64:
		if v == math.Trunc(v) {
			return int(v), true
		}
	}
	return 0, false
}
