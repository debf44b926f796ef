package engine

import (
	"fmt"
	"maps"
)

// Standard loops (standardLoopCharacteristics): the token runs the
// activity again while the loop condition holds. t.loops counts the runs
// started; it is 0 when the token is not in a loop, so a token entering
// the activity afresh asks first, and one leaving it asks again.

// beginRun starts a run of a looping activity, or, when the loop does not
// run at all (testBefore and a false condition), leaves it; it reports
// whether the run starts.
func (x *instance) beginRun(t *token) bool {
	if t.loops == 0 {
		again, err := x.loopHolds(t, 0)
		switch {
		case err != nil:
			x.incident(t, "condition", err.Error())
			return false
		case !again:
			x.leave(t) // not a single run; t.loops stays 0, so leave does not ask again
			return false
		}
	}
	t.loops++
	t.local = map[string]any{"loopCounter": t.loops}
	return true
}

// runAgain ends a run of a looping activity and, when the loop goes on,
// starts the next; it reports whether the token stays (a next run, or an
// incident), else leave goes on as for any activity.
func (x *instance) runAgain(t *token) bool {
	again, err := x.loopHolds(t, t.loops)
	if err != nil {
		x.incidentAt(t, "condition", err.Error(), phaseLeave)
		return true
	}
	if !again {
		t.loops = 0
		return false
	}
	x.emit(EventElementCompleted, t.node, t, map[string]any{"loopCounter": t.loops})
	x.work = append(x.work, step{tok: t, node: t.node, via: t.via})
	return true
}

// loopHolds says whether the loop of t's activity runs once more after
// done runs.
func (x *instance) loopHolds(t *token, done int) (bool, error) {
	r := t.node.Repeat
	switch {
	case r.Maximum > 0 && done >= r.Maximum:
		return false, nil
	case done == 0 && !r.TestBefore:
		return true, nil // do-while: the first run always happens
	case r.Condition == "":
		return r.Maximum > 0, nil // only a maximum: run that many times
	}
	vars := maps.Clone(x.evalVars(t))
	if vars == nil {
		vars = map[string]any{}
	}
	vars["loopCounter"] = done
	prog, err := compileExpr(r.Condition)
	if err != nil {
		return false, err
	}
	ok, err := x.e.eval.EvalBool(x.ctx, prog, vars)
	if err != nil {
		return false, fmt.Errorf("loop condition of %q: %w", t.node.ID, err)
	}
	return ok, nil
}
