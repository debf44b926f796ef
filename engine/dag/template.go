package dag

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/script"
)

// Template is a parameter value with {{ expression }} placeholders, the
// DataWorkflows spec's Scriban templates: "Found {{ context.data['fetch'].items.length }} items".
// Each expression is JavaScript, run by the engine's evaluator over the
// read model (trigger, context, vars; see the package comment), so paths,
// indexing, .length and ?? work as in JavaScript.
//
// Rendering is strict: an expression whose value is undefined, or that
// reads a member of undefined (a TypeError), is an error naming the
// placeholder. null renders as "" inside text. A value that is exactly one
// placeholder keeps the expression's type (a number, a list, an object);
// otherwise values are written into the text: strings as they are, numbers
// and booleans as in JavaScript, objects and lists as JSON.
type Template struct {
	lits  []string          // len(holes)+1 literal parts
	holes []string          // the placeholders as written, "{{ trigger.x }}"
	progs []*script.Program // each placeholder's expression, compiled to tell undefined apart
}

// IsTemplate reports whether a parameter value is a {{ }} template. In a
// DAG, a string with "{{" is one; any other string may hold ${...}
// templates (the engine's, for every format). The two do not mix.
func IsTemplate(s string) bool { return strings.Contains(s, "{{") }

// definedWrap makes a program that gives [] for undefined and [value]
// otherwise: the evaluator's results turn undefined and null both into nil.
const (
	definedOpen  = "((__wfppValue) => __wfppValue === undefined ? [] : [__wfppValue])(\n"
	definedClose = "\n)"
)

// ParseTemplate parses and compiles text's placeholders.
func ParseTemplate(text string) (*Template, error) {
	t := &Template{}
	rest := text
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		n := placeholderLen(rest[i:])
		if n < 0 {
			return nil, fmt.Errorf("%q: a {{ is not closed by }}", text)
		}
		hole := rest[i : i+n]
		expr := strings.TrimSpace(hole[2 : len(hole)-2])
		if expr == "" {
			return nil, fmt.Errorf("%s: write an expression between the braces", hole)
		}
		if _, err := script.CompileExpression(expr); err != nil {
			return nil, fmt.Errorf("%s: %w", hole, err)
		}
		prog, err := script.CompileExpression(definedOpen + expr + definedClose)
		if err != nil {
			return nil, fmt.Errorf("%s: write one JavaScript expression: %w", hole, err)
		}
		t.lits = append(t.lits, rest[:i])
		t.holes = append(t.holes, hole)
		t.progs = append(t.progs, prog)
		rest = rest[i+n:]
	}
	t.lits = append(t.lits, rest)
	return t, nil
}

// placeholderLen is the length of the {{ ... }} at the start of s, skipping
// "}}" inside string literals, or -1 when it is not closed.
func placeholderLen(s string) int {
	for i := 2; i < len(s); i++ {
		switch c := s[i]; c {
		case '}':
			if i+1 < len(s) && s[i+1] == '}' {
				return i + 2
			}
		case '"', '\'', '`':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return -1
			}
			i = j
		}
	}
	return -1
}

// ErrUndefined is what a placeholder whose value is undefined fails with.
var ErrUndefined = errors.New("is undefined")

// Render evaluates the placeholders with eval (the engine's evaluator over
// the read model) and returns the value: the expression's own for a text
// that is one placeholder, else the text with the values written in.
func (t *Template) Render(eval func(*script.Program) (any, error)) (any, error) {
	values := make([]any, len(t.progs))
	for i, p := range t.progs {
		res, err := eval(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.holes[i], err)
		}
		box, ok := res.([]any)
		if !ok || len(box) > 1 {
			return nil, fmt.Errorf("%s: the evaluator gave %T back", t.holes[i], res)
		}
		if len(box) == 0 {
			return nil, fmt.Errorf("%s %w: check the path (strict templates: write a ?? b for a default)", t.holes[i], ErrUndefined)
		}
		values[i] = box[0]
	}
	if len(values) == 1 && t.lits[0] == "" && t.lits[1] == "" {
		return values[0], nil
	}
	var b strings.Builder
	for i, v := range values {
		b.WriteString(t.lits[i])
		if err := write(&b, v); err != nil {
			return nil, fmt.Errorf("%s: %w", t.holes[i], err)
		}
	}
	b.WriteString(t.lits[len(t.lits)-1])
	return b.String(), nil
}

func write(b *strings.Builder, v any) error {
	switch v := v.(type) {
	case nil:
	case string:
		b.WriteString(v)
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	default:
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(j)
	}
	return nil
}

// checkTemplates reports the {{ }} templates of a node's parameters that do
// not parse, by their path ("filter.rules[0].value").
func checkTemplates(n *Node) []string {
	var probs []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case string:
			if IsTemplate(v) {
				if _, err := ParseTemplate(v); err != nil {
					probs = append(probs, fmt.Sprintf("parameter %q: %v", path, err))
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(path+"."+k, v[k])
			}
		case []any:
			for i, item := range v {
				walk(path+"["+strconv.Itoa(i)+"]", item)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(n.Parameters)) {
		walk(k, n.Parameters[k])
	}
	return probs
}
