package script

// JUEL (Camunda 7 "${expr}") to JavaScript. The inside is read as
// JavaScript plus the EL operators: and or not eq ne lt gt le ge div mod
// empty; single- or double-quoted strings; paths are null-safe (a.b is a?.b).
// Regular expression and template literals are not supported inside ${...}.

var juelWords = map[string]string{
	"and": "&&", "or": "||", "not": "!", "eq": "==", "ne": "!=",
	"lt": "<", "gt": ">", "le": "<=", "ge": ">=", "div": "/", "mod": "%",
}

// emptyFunc is the sandbox global implementing JUEL's empty operator.
const emptyFunc = "__wfEmpty"

func translateJUEL(text string, start int) (translation, error) {
	toks, err := lex(text[start:], start, text, juelPuncts, `'"`)
	if err != nil {
		return translation{}, err
	}
	// toks[0..end) is the inside; toks[end] must be the final "}".
	end, depth := -1, 0
	for i, t := range toks {
		if t.kind != tokPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]":
			depth--
		case "}":
			if depth == 0 {
				end = i
			}
			depth--
		}
		if end >= 0 {
			break
		}
	}
	switch {
	case end < 0:
		return translation{}, newCompileError(text, start-2, "unclosed ${...}")
	case end != len(toks)-1:
		return translation{}, newCompileError(text, toks[end+1].pos,
			"text after the closing '}' of ${...}: a text with several ${...} is a template (use Template), not a condition")
	case end == 0:
		return translation{}, newCompileError(text, start, "empty ${} expression")
	}
	toks = toks[:end]
	var (
		e       emitter
		closeAt = map[int]int{} // token index -> number of ")" to emit after it
	)
	operand := false
	for i, t := range toks {
		member := isPunct(toks, i-1, ".") || isPunct(toks, i-1, "?.")
		switch t.kind {
		case tokNumber:
			e.emit(t.pos, t.text)
			operand = true
		case tokString:
			e.emitString(t.pos, t.text)
			operand = true
		case tokIdent:
			switch {
			case member:
				e.emit(t.pos, t.text)
				operand = true
			case t.text == "empty":
				j := operandEnd(toks, i+1)
				if j < 0 {
					return translation{}, newCompileError(text, t.pos, "'empty' needs an operand")
				}
				e.emit(t.pos, emptyFunc+"(")
				closeAt[j]++
				operand = false
			case juelWords[t.text] != "":
				e.emit(t.pos, juelWords[t.text])
				operand = false
			default:
				e.emit(t.pos, t.text)
				operand = true
			}
		case tokPunct:
			switch t.text {
			case ".":
				e.emit(t.pos, "?.")
			case "[":
				if operand {
					e.emit(t.pos, "?.[")
				} else {
					e.emit(t.pos, "[")
				}
				operand = false
			case ")", "]", "}":
				e.emit(t.pos, t.text)
				operand = true
			default:
				e.emit(t.pos, t.text)
				operand = false
			}
		}
		for range closeAt[i] {
			e.emit(t.pos, ")")
			operand = true
		}
	}
	return e.result(), nil
}

// operandEnd returns the index of the last token of the unary expression
// starting at toks[i] (a path such as a.b[0].c(), a literal or a group), or -1.
func operandEnd(toks []lexToken, i int) int {
	if i >= len(toks) {
		return -1
	}
	t := toks[i]
	var j int
	switch {
	case t.kind == tokIdent && (t.text == "not" || t.text == "empty"),
		t.kind == tokPunct && (t.text == "!" || t.text == "-" || t.text == "+"):
		return operandEnd(toks, i+1)
	case t.kind == tokPunct && (t.text == "(" || t.text == "[" || t.text == "{"):
		if j = matching(toks, i); j < 0 {
			return -1
		}
	case t.kind == tokPunct:
		return -1
	default:
		j = i
	}
	for {
		switch {
		case (isPunct(toks, j+1, ".") || isPunct(toks, j+1, "?.")) && j+2 < len(toks) && toks[j+2].kind == tokIdent:
			j += 2
		case isPunct(toks, j+1, "[") || isPunct(toks, j+1, "("):
			k := matching(toks, j+1)
			if k < 0 {
				return -1
			}
			j = k
		default:
			return j
		}
	}
}
