package model

import (
	"fmt"
	"maps"
	"slices"
)

// TriggerDoc is a chain trigger as the JSON formats (the JSON DAG's and
// the graph's top-level "triggers") write it: input maps a variable of the
// started instance to an expression over the ended instance's variables,
// version is "latest" (the default) or a version number.
type TriggerDoc struct {
	On           string            `json:"on"`
	Condition    string            `json:"condition,omitempty"`
	Target       string            `json:"target"`
	Version      any               `json:"version,omitempty"`
	Input        map[string]string `json:"input,omitempty"`
	AllVariables bool              `json:"allVariables,omitempty"`
}

// ChainTriggers converts the triggers of process id; whether On and
// Target make sense Validate checks, as for every format.
func ChainTriggers(id string, docs []TriggerDoc) ([]ChainTrigger, Problems) {
	var out []ChainTrigger
	var probs Problems
	for i, d := range docs {
		tr := ChainTrigger{On: d.On, Condition: d.Condition, Target: d.Target, AllVariables: d.AllVariables}
		switch v := d.Version.(type) {
		case nil:
		case string:
			if v != BindingLatest && v != "" {
				probs.Add(id, "trigger %d has version %q: write \"latest\" or a version number such as 3", i+1, v)
			}
		case float64:
			if v < 1 || v != float64(int(v)) {
				probs.Add(id, "trigger %d has version %v: write a whole version number of 1 or more", i+1, v)
				continue
			}
			tr.Binding, tr.Version = BindingVersion, int(v)
		default:
			probs.Add(id, "trigger %d has version %v: write \"latest\" or a version number such as 3", i+1, fmt.Sprint(v))
		}
		for _, target := range slices.Sorted(maps.Keys(d.Input)) {
			tr.Input = append(tr.Input, Mapping{Source: d.Input[target], Target: target})
		}
		out = append(out, tr)
	}
	return out, probs
}
