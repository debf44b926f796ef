package model

import "fmt"

// triggers checks a process's chain triggers: when each fires, what it
// starts, and that its condition and input mappings compile.
func (v *validator) triggers() {
	for i, tr := range v.p.Triggers {
		where := v.p.ID
		switch tr.On {
		case ChainCompleted, ChainFailed, ChainCancelled:
		default:
			v.add(where, "trigger %d of process %q fires on %q: use completed, failed or cancelled", i+1, v.p.ID, tr.On)
		}
		if tr.Target == "" {
			v.add(where, "trigger %d of process %q has no target: name the definition it starts", i+1, v.p.ID)
		}
		switch tr.Binding {
		case "", BindingLatest:
		case BindingVersion:
			if tr.Version < 1 {
				v.add(where, "trigger %d of process %q binds a version but gives none: set a version of 1 or more, or use latest", i+1, v.p.ID)
			}
		default:
			v.add(where, "trigger %d of process %q binds %q: use latest or a version number", i+1, v.p.ID, tr.Binding)
		}
		v.compiles(where, fmt.Sprintf("the condition of trigger %d", i+1), tr.Condition)
		for _, m := range tr.Input {
			if m.Target == "" {
				v.add(where, "an input mapping of trigger %d of process %q has no target variable", i+1, v.p.ID)
			}
			v.compiles(where, fmt.Sprintf("input mapping %q of trigger %d", m.Target, i+1), m.Source)
		}
	}
}

// compiles checks an expression the engine evaluates as one (conditions
// and mapping sources).
func (v *validator) compiles(id, what, text string) {
	if text == "" || v.c.Expression == nil {
		return
	}
	if err := v.c.Expression(text); err != nil {
		v.add(id, "%s: %v", what, err)
	}
}
