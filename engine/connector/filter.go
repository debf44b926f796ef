package connector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine"
)

// rule is one condition of a monday.get-items filter.
type rule struct {
	column, operator string
	values           []string // one, or the list of in
}

// operators are the comparisons a rule may use.
var operators = map[string]func(text string, values []string) bool{
	"eq":  func(t string, v []string) bool { return t == v[0] },
	"neq": func(t string, v []string) bool { return t != v[0] },
	"contains": func(t string, v []string) bool {
		return strings.Contains(strings.ToLower(t), strings.ToLower(v[0]))
	},
	"in": func(t string, v []string) bool { return slices.Contains(v, t) },
}

// parseRules reads a filter parameter, {rules: [{column, operator, value}]}.
func parseRules(filter any) ([]rule, error) {
	if filter == nil {
		return nil, nil
	}
	f, ok := filter.(map[string]any)
	if !ok {
		return nil, badFilter("it is %T, not an object {rules: [...]}", filter)
	}
	raw, ok := f["rules"].([]any)
	if !ok {
		return nil, badFilter("rules is missing or not a list")
	}
	rules := make([]rule, 0, len(raw))
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, badFilter("rule %d is not an object {column, operator, value}", i+1)
		}
		col := textOf(m["column"])
		if col == "" {
			return nil, badFilter("rule %d names no column", i+1)
		}
		op := textOf(m["operator"])
		if op == "" {
			op = "eq"
		}
		if operators[op] == nil {
			return nil, badFilter("rule %d: operator %q: use eq, neq, contains or in", i+1, op)
		}
		values := []string{textOf(m["value"])}
		if list, ok := m["value"].([]any); ok {
			values = values[:0]
			for _, v := range list {
				values = append(values, textOf(v))
			}
		}
		if op != "in" && len(values) != 1 {
			return nil, badFilter("rule %d: operator %s compares with one value, not a list", i+1, op)
		}
		rules = append(rules, rule{column: col, operator: op, values: values})
	}
	return rules, nil
}

func badFilter(format string, args ...any) error {
	return engine.Permanent(fmt.Errorf("parameter filter: "+format, args...))
}

// matches reports whether item, as the result shows it, holds every rule.
func matches(item map[string]any, rules []rule) bool {
	for _, r := range rules {
		if !operators[r.operator](textOf(item[r.column]), r.values) {
			return false
		}
	}
	return true
}
