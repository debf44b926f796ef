package script

import (
	"sort"
	"strings"
)

// Dialect is the expression language a text is written in. Everything is
// translated to JavaScript before it is compiled.
type Dialect uint8

const (
	// JavaScript is any text that is neither FEEL nor JUEL: plain JS.
	JavaScript Dialect = iota
	// FEEL is Zeebe style: the text starts with "=" ("=amount > 100").
	FEEL
	// JUEL is Camunda 7 style: the text is exactly one "${...}" (or "#{...}").
	JUEL
)

func (d Dialect) String() string {
	switch d {
	case FEEL:
		return "FEEL"
	case JUEL:
		return "JUEL"
	default:
		return "JavaScript"
	}
}

// DetectDialect tells which dialect an expression text is written in.
func DetectDialect(text string) Dialect {
	t := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(t, "="):
		return FEEL
	case strings.HasPrefix(t, "${"), strings.HasPrefix(t, "#{"):
		return JUEL
	default:
		return JavaScript
	}
}

// posMark maps an offset of translated JavaScript back to the source text.
type posMark struct{ js, src int }

// translation is JavaScript produced from an expression text.
type translation struct {
	js    string
	marks []posMark // sorted by js; nil means identity plus offset base
	base  int       // source offset of js[0] when marks is nil
}

// srcOffset maps a byte offset in t.js to a byte offset in the source text.
func (t *translation) srcOffset(js int) int {
	if t.marks == nil {
		return t.base + js
	}
	i := sort.Search(len(t.marks), func(i int) bool { return t.marks[i].js > js }) - 1
	if i < 0 {
		return t.marks[0].src
	}
	return t.marks[i].src
}

// emitter writes translated tokens, space separated, remembering positions.
type emitter struct {
	b     strings.Builder
	marks []posMark
}

func (e *emitter) emit(src int, s string) {
	if e.b.Len() > 0 {
		e.b.WriteByte(' ')
	}
	e.marks = append(e.marks, posMark{e.b.Len(), src})
	e.b.WriteString(s)
}

func (e *emitter) emitString(src int, s string) {
	if e.b.Len() > 0 {
		e.b.WriteByte(' ')
	}
	e.marks = append(e.marks, posMark{e.b.Len(), src})
	jsQuote(&e.b, s)
}

func (e *emitter) result() translation {
	return translation{js: e.b.String(), marks: e.marks}
}

// translate turns an expression text into a JavaScript expression.
func translate(text string) (Dialect, translation, error) {
	t := strings.TrimSpace(text)
	start := strings.Index(text, t)
	d := DetectDialect(t)
	switch d {
	case FEEL:
		tr, err := translateFEEL(text, start+1)
		return d, tr, err
	case JUEL:
		tr, err := translateJUEL(text, start+2)
		return d, tr, err
	default:
		return d, translation{js: text}, nil
	}
}

// matching returns the index of the token closing the bracket at toks[i],
// or -1.
func matching(toks []lexToken, i int) int {
	depth := 0
	for j := i; j < len(toks); j++ {
		if toks[j].kind != tokPunct {
			continue
		}
		switch toks[j].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

func isPunct(toks []lexToken, i int, p string) bool {
	return i >= 0 && i < len(toks) && toks[i].kind == tokPunct && toks[i].text == p
}

func isIdent(toks []lexToken, i int, name string) bool {
	return i >= 0 && i < len(toks) && toks[i].kind == tokIdent && toks[i].text == name
}

// jsReserved are names a translated expression must not produce as
// identifiers: they would change the meaning of the generated JavaScript.
var jsReserved = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "export": true, "extends": true,
	"finally": true, "import": true, "let": true, "new": true, "super": true, "switch": true,
	"this": true, "throw": true, "try": true, "typeof": true, "var": true, "void": true,
	"while": true, "with": true, "yield": true, "await": true, "enum": true, "arguments": true,
	"eval": true, "instanceof": true, "async": true,
}
