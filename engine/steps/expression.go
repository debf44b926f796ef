package steps

import (
	"encoding/json"
	"strings"
	"unicode"
)

// The design's expressions reference values as ${workflow.input.topic},
// ${step-1.output.results[0].score}, ${loop.item} and ${loop.index}, and
// combine them with Python's and, or and not. The converter rewrites them
// into JavaScript over the read model the definition runs with
// (model.ReadModelDataWorkflows): the start variables are trigger, a
// step's outputs context.data["step-1"], the loop's item its item_variable
// and its index loopCounter. Text without ${ is the engine's own and kept.

// refs rewrites the ${...} references of expr into JavaScript; loopItem is
// the item variable of the loop around the step ("" outside loops).
type refs struct {
	steps    map[string]*Step
	loopItem string
}

// condition rewrites a condition or a loop's items.
func (r refs) condition(expr string) string {
	if !strings.Contains(expr, "${") {
		return expr
	}
	parts, ok := r.split(expr)
	if !ok {
		return expr
	}
	if len(parts) == 1 && parts[0].ref {
		return parts[0].text
	}
	var b strings.Builder
	for _, p := range parts {
		if p.ref {
			b.WriteString("(" + p.text + ")")
		} else {
			b.WriteString(python(p.text))
		}
	}
	return b.String()
}

// value rewrites an input_mapping value as the design resolves it: a
// ${...} reference is its value, text with references in it is that text
// with the values written in, and anything else is a literal.
func (r refs) value(v any) string {
	text, ok := v.(string)
	if !ok || !strings.Contains(text, "${") {
		lit, _ := json.Marshal(v)
		return string(lit)
	}
	parts, ok := r.split(text)
	if !ok {
		lit, _ := json.Marshal(v)
		return string(lit)
	}
	if len(parts) == 1 && parts[0].ref {
		return parts[0].text
	}
	terms := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.ref {
			terms = append(terms, "String("+p.text+")")
		} else {
			lit, _ := json.Marshal(p.text)
			terms = append(terms, string(lit))
		}
	}
	return strings.Join(terms, " + ")
}

type part struct {
	text string
	ref  bool // a rewritten ${...} reference
}

// split cuts text into plain parts and rewritten references; false when a
// ${ is not closed.
func (r refs) split(text string) ([]part, bool) {
	var parts []part
	for text != "" {
		i := strings.Index(text, "${")
		if i < 0 {
			parts = append(parts, part{text: text})
			break
		}
		if i > 0 {
			parts = append(parts, part{text: text[:i]})
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			return nil, false
		}
		parts = append(parts, part{text: r.path(strings.TrimSpace(text[i+2 : i+j])), ref: true})
		text = text[i+j+1:]
	}
	return parts, true
}

// path rewrites one reference.
func (r refs) path(p string) string {
	head, rest := p, ""
	if i := strings.IndexAny(p, ".["); i >= 0 {
		head, rest = p[:i], p[i:]
	}
	switch {
	case head == "workflow" && (rest == ".input" || strings.HasPrefix(rest, ".input.") || strings.HasPrefix(rest, ".input[")):
		return "trigger" + strings.TrimPrefix(rest, ".input")
	case r.steps[head] != nil && (rest == ".output" || strings.HasPrefix(rest, ".output.") || strings.HasPrefix(rest, ".output[")):
		id, _ := json.Marshal(head)
		return "context.data[" + string(id) + "]" + strings.TrimPrefix(rest, ".output")
	case head == "loop" && rest == ".item" && r.loopItem != "":
		return r.loopItem
	case head == "loop" && rest == ".index" && r.loopItem != "":
		return "loopCounter"
	}
	return python(p)
}

// python rewrites Python's and, or, not, True, False and None outside
// string literals into JavaScript.
func python(text string) string {
	words := map[string]string{"and": "&&", "or": "||", "not": "!", "True": "true", "False": "false", "None": "null"}
	var b strings.Builder
	var quote rune
	word := strings.Builder{}
	flush := func() {
		w := word.String()
		if js, ok := words[w]; ok {
			w = js
		}
		b.WriteString(w)
		word.Reset()
	}
	for _, c := range text {
		switch {
		case quote != 0:
			b.WriteRune(c)
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			flush()
			quote = c
			b.WriteRune(c)
		case unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '$':
			word.WriteRune(c)
		default:
			flush()
			b.WriteRune(c)
		}
	}
	flush()
	return b.String()
}
