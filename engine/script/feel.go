package script

import (
	"slices"
	"strings"
)

// FEEL (Zeebe "=expr") to JavaScript, for the common subset: variable paths
// (a.b.c, null-safe; a[1] is 1-based as in FEEL), = != < <= > >=, and, or,
// not(...), + - * / **, if-then-else, string/number/boolean/null literals,
// lists [1, 2] and contexts {a: 1}.
//
// Equality is strict (===) except against the literal null, which also
// matches a missing variable (x = null is true when x is not set).

// FEEL names may contain spaces ("Service Level"): consecutive names that
// are not keywords are one name. JavaScript names cannot, so such a name is
// written with spaceMark for each space, and read back as the variable it
// names (variableName).
const spaceMark = "__sp__"

// feelKeywords end a name with spaces: "a and b" is two names.
var feelKeywords = map[string]bool{"and": true, "or": true, "not": true, "true": true, "false": true, "null": true, "if": true, "then": true, "else": true, "some": true, "every": true, "satisfies": true}

// mergeSpacedNames joins consecutive names (not keywords) into one.
func mergeSpacedNames(toks []lexToken) []lexToken {
	out := toks[:0:0]
	for _, t := range toks {
		if n := len(out); n > 0 && t.kind == tokIdent && out[n-1].kind == tokIdent &&
			(plainName(t.text) && plainName(lastWord(out[n-1].text)) || feelBuiltins[out[n-1].text+" "+t.text]) {
			out[n-1].text += " " + t.text
			continue
		}
		out = append(out, t)
	}
	return out
}

func plainName(s string) bool { return !feelKeywords[s] && feelUnsupported[s] == "" }

func lastWord(s string) string { return s[strings.LastIndexByte(s, ' ')+1:] }

// variableName is the variable a parameter name stands for.
func variableName(param string) string {
	if !strings.Contains(param, spaceMark) {
		return param
	}
	return strings.ReplaceAll(param, spaceMark, " ")
}

// feelFunc is the sandbox object holding the FEEL built-ins (lockdownJS).
const feelFunc = "__feel"

// feelBuiltins are the FEEL built-in functions the translation calls, by
// their FEEL names; lockdownJS implements them as FEEL defines them
// (1-based positions, null for missing arguments).
var feelBuiltins = map[string]bool{
	"string length": true, "upper case": true, "lower case": true, "substring": true, "contains": true,
	"starts with": true, "ends with": true, "string join": true, "string": true, "number": true, "trim": true,
	"split": true, "count": true, "sum": true, "min": true, "max": true, "mean": true, "list contains": true,
	"append": true, "concatenate": true, "flatten": true, "distinct values": true, "index of": true,
	"reverse": true, "sublist": true, "is empty": true, "abs": true, "floor": true, "ceiling": true,
	"modulo": true, "sqrt": true, "odd": true, "even": true, "decimal": true, "is defined": true,
	"now": true, "today": true,
}

func feelBuiltinList() string {
	names := make([]string, 0, len(feelBuiltins))
	for n := range feelBuiltins {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// feelUnsupported are FEEL keywords whose constructs are not translated.
var feelUnsupported = map[string]string{
	"for": "for loops", "return": "for loops", "satisfies": "'satisfies' without 'some' or 'every'",
	"in": "for loops and 'in' tests", "between": "between ... and", "instance": "instance of",
	"of": "instance of", "function": "function definitions", "external": "external functions",
}

// feelFilterOps mark a [...] that is a filter, not an index.
var feelFilterOps = map[string]bool{"=": true, "==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

func translateFEEL(text string, start int) (translation, error) {
	body := text[start:]
	toks, err := lex(body, start, text, feelPuncts, `"'`) // FEEL strings are "..."; '...' (never FEEL otherwise) is read as one too
	if err != nil {
		return translation{}, err
	}
	if len(toks) == 0 {
		return translation{}, newCompileError(text, start, "empty FEEL expression after '='")
	}
	toks = mergeSpacedNames(toks)
	type frame struct {
		kind  byte // ( [ { i(index) a(call arguments) c(if-cond) t(if-then) e(if-else) q(some/every list) s(satisfies)
		pos   int
		quant string // q, s: "some" or "every"
		bound string // q, s: the name each element is bound to
	}
	var (
		e       emitter
		stack   []frame
		operand bool // the previous token ends an operand
	)
	top := func() byte {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1].kind
	}
	// closeElse ends the open else branches and satisfies conditions: they
	// run to the end of what holds them.
	closeElse := func(pos int) {
		for k := top(); k == 'e' || k == 's'; k = top() {
			stack = stack[:len(stack)-1]
			e.emit(pos, map[byte]string{'e': ")", 's': "))"}[k])
		}
	}
	fail := func(t lexToken, format string, args ...any) (translation, error) {
		return translation{}, newCompileError(text, t.pos, format, args...)
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case tokNumber:
			num := strings.TrimLeft(t.text, "0") // FEEL 01 is 1 (JavaScript would read an octal)
			if num == "" || num[0] == '.' {
				num = "0" + num
			}
			e.emit(t.pos, num)
			operand = true
		case tokString:
			e.emitString(t.pos, t.text)
			operand = true
		case tokIdent:
			switch name := t.text; {
			case name == "and" || name == "or":
				if top() == 'i' {
					return fail(t, "FEEL filter expressions (list[condition]) are not supported")
				}
				e.emit(t.pos, map[string]string{"and": "&&", "or": "||"}[name])
				operand = false
			case name == "not":
				if !isPunct(toks, i+1, "(") {
					return fail(t, "FEEL 'not' is a function: write not(...)")
				}
				e.emit(t.pos, "!")
				operand = false
			case name == "true" || name == "false" || name == "null":
				e.emit(t.pos, name)
				operand = true
			case name == "if":
				e.emit(t.pos, "(")
				stack = append(stack, frame{kind: 'c', pos: t.pos})
				operand = false
			case name == "some" || name == "every":
				// some x in list satisfies cond → (list).some((x) => (cond))
				if operand || i+2 >= len(toks) || toks[i+1].kind != tokIdent || !isIdent(toks, i+2, "in") ||
					!plainName(toks[i+1].text) || strings.Contains(toks[i+1].text, " ") {
					return fail(t, "FEEL '%s' is written: %s name in list satisfies condition", name, name)
				}
				e.emit(t.pos, "(")
				stack = append(stack, frame{kind: 'q', pos: t.pos, quant: name, bound: toks[i+1].text})
				i += 2
				operand = false
			case name == "satisfies":
				closeElse(t.pos)
				if top() != 'q' {
					return fail(t, "FEEL 'satisfies' without 'some' or 'every ... in'")
				}
				q := &stack[len(stack)-1]
				q.kind = 's'
				e.emit(t.pos, ")."+q.quant+"(("+q.bound+") => (")
				operand = false
			case name == "then":
				closeElse(t.pos)
				if top() != 'c' {
					return fail(t, "FEEL 'then' without 'if'")
				}
				stack[len(stack)-1].kind = 't'
				e.emit(t.pos, ") ? (")
				operand = false
			case name == "else":
				closeElse(t.pos)
				if top() != 't' {
					return fail(t, "FEEL 'else' without 'if ... then'")
				}
				stack[len(stack)-1].kind = 'e'
				e.emit(t.pos, ") : (")
				operand = false
			case feelUnsupported[name] != "":
				return fail(t, "FEEL construct %q (%s) is not supported", name, feelUnsupported[name])
			case name == "item" && top() == 'i': // item names the element in a filter; elsewhere it is a variable (a multi-instance's inputElement)
				return fail(t, "FEEL filter expressions (list[condition]) are not supported")
			case jsReserved[name]:
				return fail(t, "%q cannot be used as a name in a FEEL expression", name)
			case isPunct(toks, i+1, "(") && feelBuiltins[name]:
				e.emit(t.pos, feelFunc+"[")
				e.emitString(t.pos, name)
				e.emit(t.pos, "]")
				i++ // the call's "(": its arguments are a frame of their own
				e.emit(toks[i].pos, "(")
				stack = append(stack, frame{kind: 'a', pos: toks[i].pos})
				operand = false
			case isPunct(toks, i+1, "("):
				return fail(t, "FEEL function %s() is not supported: the built-ins are %s", name, feelBuiltinList())
			default:
				if operand {
					return fail(t, "unexpected name %q", name)
				}
				e.emit(t.pos, strings.ReplaceAll(name, " ", spaceMark))
				operand = true
			}
		case tokPunct:
			switch p := t.text; p {
			case "=", "==", "!=":
				if top() == 'i' {
					return fail(t, "FEEL filter expressions (list[condition]) are not supported")
				}
				op := map[string]string{"=": "===", "==": "===", "!=": "!=="}[p]
				if isIdent(toks, i-1, "null") || isIdent(toks, i+1, "null") {
					op = op[:len(op)-1] // null also matches undefined (missing variables)
				}
				e.emit(t.pos, op)
				operand = false
			case "<", "<=", ">", ">=", "+", "-", "*", "/", "**", "%", "&&", "||":
				if top() == 'i' && (feelFilterOps[p] || p == "&&" || p == "||") {
					return fail(t, "FEEL filter expressions (list[condition]) are not supported")
				}
				e.emit(t.pos, p)
				operand = false
			case "(":
				if operand {
					return fail(t, "function calls are not supported in FEEL expressions")
				}
				e.emit(t.pos, "(")
				stack = append(stack, frame{kind: '(', pos: t.pos})
			case "[":
				if operand {
					e.emit(t.pos, "?.[(") // FEEL lists are 1-based
					stack = append(stack, frame{kind: 'i', pos: t.pos})
				} else {
					e.emit(t.pos, "[")
					stack = append(stack, frame{kind: '[', pos: t.pos})
				}
				operand = false
			case "{":
				if operand {
					return fail(t, "unexpected '{'")
				}
				e.emit(t.pos, "{")
				stack = append(stack, frame{kind: '{', pos: t.pos})
			case ")", "]", "}":
				closeElse(t.pos)
				want := map[string]byte{")": '(', "]": '[', "}": '{'}[p]
				k := top()
				if k != want && !(p == "]" && k == 'i') && !(p == ")" && k == 'a') {
					return fail(t, "unbalanced %q", p)
				}
				stack = stack[:len(stack)-1]
				if k == 'i' {
					e.emit(t.pos, ")-1]")
				} else {
					e.emit(t.pos, p)
				}
				operand = true
			case ",":
				closeElse(t.pos)
				if k := top(); k != '[' && k != '{' && k != 'a' {
					return fail(t, "unexpected ',' outside a list or context")
				}
				e.emit(t.pos, ",")
				operand = false
			case ":":
				if top() != '{' {
					return fail(t, "unexpected ':' outside a context {key: value}")
				}
				e.emit(t.pos, ":")
				operand = false
			case ".":
				if !operand || i+1 >= len(toks) || toks[i+1].kind != tokIdent {
					return fail(t, "'.' must join a path: a.b")
				}
				name := toks[i+1]
				if isPunct(toks, i+2, "(") {
					return fail(name, "FEEL function %s() is not supported", name.text)
				}
				if strings.Contains(name.text, " ") {
					e.emit(t.pos, "?.[")
					e.emitString(name.pos, name.text)
					e.emit(name.pos, "]")
				} else {
					e.emit(t.pos, "?.")
					e.emit(name.pos, name.text)
				}
				i++
			case "..":
				return fail(t, "FEEL ranges (a..b) are not supported")
			case "@":
				return fail(t, "FEEL temporal literals (@\"...\") are not supported")
			case "!":
				return fail(t, "use not(...) for negation in FEEL")
			default:
				return fail(t, "unexpected %q in a FEEL expression", p)
			}
		}
	}
	closeElse(len(text))
	if len(stack) > 0 {
		f := stack[len(stack)-1]
		switch f.kind {
		case 'c':
			return translation{}, newCompileError(text, f.pos, "FEEL 'if' without 'then'")
		case 't':
			return translation{}, newCompileError(text, f.pos, "FEEL 'if ... then' without 'else'")
		case 'q':
			return translation{}, newCompileError(text, f.pos, "FEEL '%s ... in' without 'satisfies'", f.quant)
		default:
			return translation{}, newCompileError(text, f.pos, "unclosed bracket")
		}
	}
	return e.result(), nil
}
