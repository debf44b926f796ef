package tasks

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// GenerateForm builds a form-js schema for a task without a form, so a
// decision is always possible from the inbox: one field per variable the
// task maps in or out, and per variable the conditions right after it read
// (through a gateway that directly follows), typed from how the condition
// uses it: compared with true/false or used alone → checkbox, with a number
// → number, otherwise text. vars types the fields the conditions do not.
func GenerateForm(n *model.Node, vars map[string]any) json.RawMessage {
	kinds := map[string]string{}
	var order []string
	add := func(name, typ string) {
		if name == "" {
			return
		}
		if _, ok := kinds[name]; !ok {
			order = append(order, name)
		}
		if typ != "" || kinds[name] == "" {
			kinds[name] = typ
		}
	}
	for _, m := range n.Inputs {
		add(rootName(m.Target), "")
	}
	for _, m := range n.Outputs {
		add(rootName(m.Target), "")
	}
	for _, f := range conditionFlows(n) {
		for name, typ := range conditionVariables(f.Condition) {
			add(name, typ)
		}
	}
	components := make([]map[string]any, 0, len(order))
	for _, name := range order {
		typ := kinds[name]
		if typ == "" {
			typ = fieldTypeOf(vars[name])
		}
		components = append(components, map[string]any{"type": typ, "key": name, "label": name, "id": "Field_" + name})
	}
	schema, _ := json.Marshal(map[string]any{
		"type": "default", "id": "Generated_" + n.ID, "components": components,
		"generated": true,
	})
	return schema
}

// conditionFlows are the flows whose conditions decide right after n:
// its own outgoing flows and, where one leads straight into a gateway, the
// gateway's.
func conditionFlows(n *model.Node) []*model.Flow {
	flows := slices.Clone(n.Outgoing)
	for _, f := range n.Outgoing {
		if f.Target != nil && f.Target.Kind.IsGateway() {
			flows = append(flows, f.Target.Outgoing...)
		}
	}
	return flows
}

var (
	// a name compared with a literal, either way round: approved = true,
	// amount > 100, "yes" == answer
	cmpRight = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*(?:===|!==|==|!=|>=|<=|=|>|<)\s*(true|false|-?\d+(?:\.\d+)?|"[^"]*"|'[^']*')`)
	cmpLeft  = regexp.MustCompile(`(true|false|-?\d+(?:\.\d+)?|"[^"]*"|'[^']*')\s*(?:===|!==|==|!=|>=|<=|=|>|<)\s*([A-Za-z_$][\w$]*)`)
	// a name used alone as a truth value: approved, !approved, not(approved)
	bare = regexp.MustCompile(`^\s*(?:!\s*|not\s*\(\s*)?([A-Za-z_$][\w$]*)\s*\)?\s*$`)
)

var notVariables = map[string]bool{
	"true": true, "false": true, "null": true, "undefined": true, "and": true,
	"or": true, "not": true, "if": true, "then": true, "else": true,
}

// conditionVariables reads the variables a condition compares and the field
// type each comparison implies.
func conditionVariables(cond string) map[string]string {
	expr := strings.TrimSpace(cond)
	expr = strings.TrimPrefix(expr, "=")
	if strings.HasPrefix(expr, "${") && strings.HasSuffix(expr, "}") {
		expr = expr[2 : len(expr)-1]
	}
	out := map[string]string{}
	put := func(name, literal string) {
		if notVariables[name] {
			return
		}
		switch {
		case literal == "true" || literal == "false":
			out[name] = "checkbox"
		case strings.HasPrefix(literal, `"`) || strings.HasPrefix(literal, `'`):
			out[name] = "textfield"
		default:
			out[name] = "number"
		}
	}
	for _, m := range cmpRight.FindAllStringSubmatch(expr, -1) {
		put(m[1], m[2])
	}
	for _, m := range cmpLeft.FindAllStringSubmatch(expr, -1) {
		put(m[2], m[1])
	}
	if m := bare.FindStringSubmatch(expr); m != nil {
		put(m[1], "true")
	}
	return out
}

func rootName(path string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(path), ".")
	return name
}

func fieldTypeOf(v any) string {
	switch v.(type) {
	case bool:
		return "checkbox"
	case float64, int, int64:
		return "number"
	}
	return "textfield"
}
