package engine

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// dataObjectCall is BPMN's XPath function reading a data object by name.
var dataObjectCall = regexp.MustCompile(`bpmn:getDataObject\(\s*(?:'([^']*)'|"([^"]*)")\s*\)`)

// compileXPath compiles the XPath conditions BPMN's own examples use on
// data objects (bpmn:getDataObject('approved'), not(...), = 'yes') as the
// FEEL they read as: a data object is a variable of its name, and FEEL
// shares not(), = and '...' strings with XPath. Other XPath is refused.
func compileXPath(text string) (*script.Program, error) {
	feel := dataObjectCall.ReplaceAllStringFunc(text, func(m string) string {
		g := dataObjectCall.FindStringSubmatch(m)
		return cmp.Or(g[1], g[2])
	})
	if strings.Contains(feel, "bpmn:") {
		return nil, fmt.Errorf("XPath function %q is %s: only bpmn:getDataObject('name') is read; write the condition in JavaScript or FEEL on process variables", feel, notSupported)
	}
	prog, err := script.CompileExpression("=" + feel)
	if err != nil {
		return nil, fmt.Errorf("XPath condition %q read as FEEL %q: %w", text, feel, err)
	}
	return prog, nil
}

// compileExpr compiles an expression. Plain text is JavaScript; when it does
// not compile as JavaScript but does as the FEEL subset (files written for
// lib-bpmn-engine's expr-lang, e.g. `a < 3 and b`), it is read as FEEL.
func compileExpr(text string) (*script.Program, error) {
	if strings.Contains(text, "bpmn:get") {
		return compileXPath(text)
	}
	if script.DetectDialect(text) == script.JavaScript && hasLoneEquals(text) {
		// `approved=true` in a condition means a comparison (FEEL, expr-lang),
		// never a JavaScript assignment.
		if feel, ferr := script.CompileExpression("=" + text); ferr == nil {
			return feel, nil
		}
	}
	prog, err := script.CompileExpression(text)
	if err == nil || script.DetectDialect(text) != script.JavaScript {
		return prog, err
	}
	feel, ferr := script.CompileExpression("=" + text)
	if ferr == nil {
		return feel, nil
	}
	if strings.Contains(ferr.Error(), notSupported) {
		return nil, ferr // it reads as FEEL that uses a feature we lack: say that
	}
	return nil, err
}

// notSupported is how problems about features the engine lacks are worded,
// so tools (and wfpp validate's readers) can tell them from mistakes.
const notSupported = "not supported"

// condition evaluates a flow condition on the token's variables.
func (x *instance) condition(t *token, text string) (bool, error) {
	prog, err := compileExpr(text)
	if err != nil {
		return false, err
	}
	if x.readModel() {
		return x.readModelCondition(t, prog, text)
	}
	return x.e.eval.EvalBool(x.ctx, prog, x.evalVars(t))
}

// eval evaluates an expression (=FEEL, ${JUEL} or JavaScript).
func (x *instance) eval(vars map[string]any, text string) (any, error) {
	prog, err := compileExpr(text)
	if err != nil {
		return nil, err
	}
	return x.e.eval.Eval(x.ctx, prog, vars)
}

// evalString returns a literal as it is and an expression's value as text.
func (x *instance) evalString(vars map[string]any, text string) (string, error) {
	if !model.IsExpression(text) {
		return text, nil
	}
	v, err := x.evalValue(vars, text)
	if err != nil {
		return "", err
	}
	return stringify(v), nil
}

// evalList evaluates a list whose only element may be an expression giving a
// list or a comma-separated string.
func (x *instance) evalList(vars map[string]any, list []string) ([]string, error) {
	if len(list) != 1 || !model.IsExpression(list[0]) {
		return x.evalEach(vars, list)
	}
	v, err := x.evalValue(vars, list[0])
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case nil:
		return []string{}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, item := range v {
			out = append(out, stringify(item))
		}
		return out, nil
	case string:
		return splitList(v), nil
	}
	return []string{stringify(v)}, nil
}

// evalValue evaluates a value: an expression, or a template that mixes text
// with ${...} placeholders ("kermit_${n}").
func (x *instance) evalValue(vars map[string]any, text string) (any, error) {
	if script.IsTemplate(text) {
		return x.e.eval.Template(x.ctx, text, vars)
	}
	return x.eval(vars, text)
}

// evalEach fills the templates among the items of a list ("team-${region}").
func (x *instance) evalEach(vars map[string]any, list []string) ([]string, error) {
	out := make([]string, 0, len(list))
	for _, item := range list {
		s, err := x.evalString(vars, item)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func splitList(s string) []string {
	out := []string{}
	for _, part := range strings.Split(s, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func stringify(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func keys(m map[string]any) []any {
	ks := slices.Sorted(maps.Keys(m))
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = k
	}
	return out
}

// rootOf returns the variable a dotted path writes into.
func rootOf(path string) string {
	if i := strings.IndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return path
}

// setPath sets a dotted path in m, creating objects on the way.
func setPath(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// deepCopy copies JSON-like values so that writing into the copy leaves the
// original (possibly shared with a stored snapshot) alone.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[k] = deepCopy(item)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = deepCopy(item)
		}
		return out
	}
	return v
}

// hasLoneEquals reports whether text has an `=` outside string literals that
// is not part of ==, !=, <=, >= or =>.
func hasLoneEquals(text string) bool {
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '=':
			prev, next := byte(0), byte(0)
			if i > 0 {
				prev = text[i-1]
			}
			if i+1 < len(text) {
				next = text[i+1]
			}
			if !strings.ContainsRune("=!<>", rune(prev)) && next != '=' && next != '>' {
				return true
			}
			if next == '=' {
				i++
			}
		}
	}
	return false
}
