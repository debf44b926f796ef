package script

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// template is a parsed parameter template: literal text around ${...}
// placeholders.
type template struct {
	lits  []string   // len(progs)+1 literal parts
	progs []*Program // one per placeholder
}

var templateCache = newTemplateCache(4096)

// Template evaluates the ${...} placeholders in a parameter value such as
// "https://x/${order.id}/items" and substitutes their values: strings as
// they are, null as "", numbers and booleans as in JavaScript, objects and
// arrays as JSON. A text that is exactly one "${expr}" returns the raw value
// (an object stays an object). A text without placeholders is returned as is.
// Placeholders use the JUEL reading (JavaScript plus and/or/not/eq...). Each
// placeholder gets the condition time budget.
//
// Template is for parameter values; CompileExpression is for conditions,
// where "${a} and ${b}" is rejected rather than concatenated.
func (e *Evaluator) Template(ctx context.Context, text string, vars map[string]any) (any, error) {
	if !strings.Contains(text, "${") {
		return text, nil
	}
	t, err := parseTemplate(text)
	if err != nil {
		return nil, err
	}
	if len(t.progs) == 1 && t.lits[0] == "" && t.lits[1] == "" {
		return e.Eval(ctx, t.progs[0], vars)
	}
	var b strings.Builder
	for i, p := range t.progs {
		b.WriteString(t.lits[i])
		v, err := e.Eval(ctx, p, vars)
		if err != nil {
			return nil, err
		}
		if err := writeValue(&b, v); err != nil {
			return nil, err
		}
		if b.Len() > e.cfg.MaxOutputBytes {
			return nil, ErrLimit
		}
	}
	b.WriteString(t.lits[len(t.lits)-1])
	return b.String(), nil
}

func writeValue(b *strings.Builder, v any) error {
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

func parseTemplate(text string) (*template, error) {
	if t := templateCache.get(text); t != nil {
		return t, nil
	}
	t := &template{}
	rest, off := text, 0
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			break
		}
		end := placeholderEnd(rest[i:])
		if end < 0 {
			return nil, newCompileError(text, off+i, "unclosed ${ in template")
		}
		p, err := CompileExpression(rest[i : i+end])
		if err != nil {
			var ce *CompileError
			if errors.As(err, &ce) {
				// Re-point the error at the template text.
				line, col := ce.Line, ce.Column
				ce = newCompileError(text, off+i, "%s", ce.Message)
				if line == 1 {
					ce.Column += col - 1
				}
				return nil, ce
			}
			return nil, err
		}
		t.lits = append(t.lits, rest[:i])
		t.progs = append(t.progs, p)
		rest, off = rest[i+end:], off+i+end
	}
	t.lits = append(t.lits, rest)
	templateCache.put(text, t)
	return t, nil
}

// placeholderEnd returns the length of the ${...} at the start of s, skipping
// braces inside string literals, or -1 when it is not closed.
func placeholderEnd(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"', '\'':
			_, n, errMsg := lexString(s[i:])
			if errMsg != "" {
				return -1
			}
			i += n - 1
		}
	}
	return -1
}

// templateCache bounds parsed templates like programCache bounds programs.
type templateCacheT struct{ c *programCache }

func newTemplateCache(size int) templateCacheT { return templateCacheT{newProgramCache(size)} }

func (c templateCacheT) get(text string) *template {
	if v, ok := c.c.m.Load(text); ok {
		return v.(*template)
	}
	return nil
}

func (c templateCacheT) put(text string, t *template) { c.c.putAny(text, t) }

// IsTemplate reports whether text mixes literal text with ${...}
// placeholders ("kermit_${n}", "team-${region}"), rather than being one
// expression ("${n}", "=n") or plain text.
func IsTemplate(text string) bool {
	if strings.HasPrefix(text, "=") || !strings.Contains(text, "${") {
		return false
	}
	t, err := parseTemplate(text)
	if err != nil {
		return true // a broken template: CompileTemplate says what is wrong
	}
	return len(t.progs) > 1 || t.lits[0] != "" || t.lits[len(t.lits)-1] != ""
}

// CompileTemplate compiles the placeholders of a template, reporting the
// first that does not compile.
func CompileTemplate(text string) error {
	_, err := parseTemplate(text)
	return err
}
