package script

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A small tokenizer shared by the FEEL and JUEL translators. It knows string
// literals, so translation never rewrites text inside them.

type tokKind uint8

const (
	tokIdent tokKind = iota + 1
	tokNumber
	tokString
	tokPunct
)

type lexToken struct {
	kind tokKind
	text string // source text (for strings: the decoded value)
	pos  int    // byte offset in the source
}

// Punctuators, longest first within each dialect.
var (
	feelPuncts = []string{
		"**", "==", "!=", "<=", ">=", "&&", "||", "..",
		"=", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ".", ":", "?", "!", "@",
	}
	juelPuncts = []string{
		">>>=", "===", "!==", ">>>", "...", "**=", "<<=", ">>=",
		"**", "==", "!=", "<=", ">=", "&&", "||", "?.", "??", "=>", "<<", ">>", "++", "--",
		"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
		"=", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ".", ":", "?", "!",
		"&", "|", "^", "~", ";",
	}
)

// lex splits src into tokens. quotes lists the accepted string delimiters.
// base is added to reported offsets; errText is the text errors point into.
func lex(src string, base int, errText string, puncts []string, quotes string) ([]lexToken, error) {
	var toks []lexToken
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			i += end
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, newCompileError(errText, base+i, "unterminated comment")
			}
			i += end + 4
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j := i
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' && j+1 < len(src) && src[j+1] >= '0' && src[j+1] <= '9') {
				j++
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					for k < len(src) && src[k] >= '0' && src[k] <= '9' {
						k++
					}
					j = k
				}
			}
			if _, err := strconv.ParseFloat(src[i:j], 64); err != nil {
				return nil, newCompileError(errText, base+i, "invalid number %q", src[i:j])
			}
			toks = append(toks, lexToken{tokNumber, src[i:j], base + i})
			i = j
		case strings.IndexByte(quotes, c) >= 0:
			s, n, err := lexString(src[i:])
			if err != "" {
				return nil, newCompileError(errText, base+i, "%s", err)
			}
			toks = append(toks, lexToken{tokString, s, base + i})
			i += n
		case isIdentStart(src[i:]):
			j := i
			for j < len(src) {
				r, size := utf8.DecodeRuneInString(src[j:])
				if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += size
			}
			toks = append(toks, lexToken{tokIdent, src[i:j], base + i})
			i = j
		default:
			p := matchPunct(src[i:], puncts)
			if p == "" {
				r, _ := utf8.DecodeRuneInString(src[i:])
				if r == '\'' || r == '"' || r == '`' {
					return nil, newCompileError(errText, base+i, "strings use %s quotes here, not %q", describeQuotes(quotes), r)
				}
				return nil, newCompileError(errText, base+i, "unexpected character %q", r)
			}
			toks = append(toks, lexToken{tokPunct, p, base + i})
			i += len(p)
		}
	}
	return toks, nil
}

func describeQuotes(quotes string) string {
	if quotes == `"` {
		return "double"
	}
	return "single or double"
}

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

func matchPunct(s string, puncts []string) string {
	for _, p := range puncts {
		if strings.HasPrefix(s, p) {
			// "?." followed by a digit is "?" then a number (a ?.5 : b).
			if p == "?." && len(s) > 2 && s[2] >= '0' && s[2] <= '9' {
				continue
			}
			return p
		}
	}
	return ""
}

// lexString decodes the string literal at the start of s. It returns the
// value and the length consumed, or an error message and the error offset.
func lexString(s string) (val string, n int, errMsg string) {
	q := s[0]
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, ""
		case c == '\n':
			return "", i, "unterminated string literal"
		case c == '\\':
			if i+1 >= len(s) {
				return "", i, "unterminated string literal"
			}
			e := s[i+1]
			i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				if i+4 > len(s) {
					return "", i, "invalid \\u escape"
				}
				v, err := strconv.ParseUint(s[i:i+4], 16, 32)
				if err != nil {
					return "", i, "invalid \\u escape"
				}
				b.WriteRune(rune(v))
				i += 4
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", len(s), "unterminated string literal"
}

// jsQuote renders s as a JavaScript string literal.
func jsQuote(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x2028 || r == 0x2029 || r == utf8.RuneError:
			if r == utf8.RuneError {
				r = 0xfffd
			}
			b.WriteString(`\u`)
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
