package script

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/unistring"
)

// Size limits of source texts.
const (
	MaxExpressionLen = 16 << 10
	MaxScriptLen     = 1 << 20
)

// Program is a compiled expression or script. It is immutable and safe for
// concurrent use by any number of evaluations.
type Program struct {
	text    string
	dialect Dialect
	script  bool
	prog    *goja.Program
	// params are the free names the code may read: each becomes a parameter
	// of the compiled function, filled from the variables (or undefined).
	// "variables" is the whole variable map.
	params []string
	js     string   // the JavaScript that was compiled (translated for FEEL/JUEL)
	fast   fastNode // non-nil: evaluable without a runtime (see fast.go)
}

// Text returns the source text the program was compiled from.
func (p *Program) Text() string { return p.text }

// Dialect returns the dialect the text was written in (JavaScript for scripts).
func (p *Program) Dialect() Dialect { return p.dialect }

// JavaScript returns the JavaScript the text was translated to.
func (p *Program) JavaScript() string { return p.js }

// The compiled code is one strict function taking the referenced names.
const (
	exprPrefix   = "(function(){return("
	exprSuffix   = "\n)})"
	scriptPrefix = "(function(){"
	scriptSuffix = "\n})"
)

var (
	exprCache   = newProgramCache(4096)
	scriptCache = newProgramCache(1024)
)

// CompileExpression compiles a condition or mapping expression: plain
// JavaScript, FEEL ("=amount > 100") or JUEL ("${amount > 100}"). The text
// must be a single expression. Results are cached per text.
func CompileExpression(text string) (*Program, error) {
	if p := exprCache.get(text); p != nil {
		return p, nil
	}
	p, err := compileExpression(text)
	if err != nil {
		return nil, err
	}
	exprCache.put(text, p)
	return p, nil
}

// CompileScript compiles a script task body (JavaScript). The script runs as
// the body of a strict-mode function: top-level return works, and the value of
// a final expression statement is the result. Results are cached per text.
func CompileScript(src string) (*Program, error) {
	if p := scriptCache.get(src); p != nil {
		return p, nil
	}
	p, err := compileScript(src)
	if err != nil {
		return nil, err
	}
	scriptCache.put(src, p)
	return p, nil
}

// CheckScript reports what CompileScript would say of src, without keeping
// the compiled program: for editors checking as someone types.
func CheckScript(src string) error {
	if scriptCache.get(src) != nil {
		return nil
	}
	_, err := compileScript(src)
	return err
}

func compileExpression(text string) (*Program, error) {
	if len(text) > MaxExpressionLen {
		return nil, newCompileError(text, -1, "expression is longer than %d bytes", MaxExpressionLen)
	}
	if strings.TrimSpace(text) == "" {
		return nil, newCompileError(text, -1, "empty expression")
	}
	d, tr, err := translate(text)
	if err != nil {
		return nil, err
	}
	src := exprPrefix + tr.js + exprSuffix
	toSrc := func(off int) int { return tr.srcOffset(off - len(exprPrefix)) }
	prg, fn, err := parseFunction(text, src, toSrc)
	if err != nil {
		return nil, err
	}
	ret, ok := onlyReturn(fn)
	if !ok {
		return nil, newCompileError(text, -1, "not a single expression (statements, ';' and declarations are not allowed in expressions; use a script)")
	}
	names := map[string]bool{}
	collectNames(ret, names)
	fast := buildFast(ret, func(n string) bool { return !sandboxGlobals()[n] && !strictReserved[n] })
	p, err := finish(text, d, false, tr.js, prg, fn, names, nil, toSrc)
	if err != nil {
		return nil, err
	}
	p.fast = fast
	return p, nil
}

func compileScript(src string) (*Program, error) {
	if len(src) > MaxScriptLen {
		return nil, newCompileError(src, -1, "script is longer than %d bytes", MaxScriptLen)
	}
	wrapped := scriptPrefix + src + scriptSuffix
	toSrc := func(off int) int { return off - len(scriptPrefix) }
	prg, fn, err := parseFunction(src, wrapped, toSrc)
	if err != nil {
		return nil, err
	}
	if fn.Body == nil || fn.Body.LeftBrace != file.Idx(len(scriptPrefix)) || fn.Body.RightBrace != file.Idx(len(wrapped)-1) {
		return nil, newCompileError(src, -1, "script does not form a function body")
	}
	names := map[string]bool{}
	collectNames(fn.Body, names)
	// Completion value: a final expression statement becomes "return expr".
	if list := fn.Body.List; len(list) > 0 {
		if es, ok := list[len(list)-1].(*ast.ExpressionStatement); ok {
			list[len(list)-1] = &ast.ReturnStatement{Return: es.Expression.Idx0(), Argument: es.Expression}
		}
	}
	return finish(src, JavaScript, true, src, prg, fn, names, declaredNames(fn), toSrc)
}

// parseFunction parses src, which must be exactly one parenthesised function
// expression, and returns that function.
func parseFunction(text, src string, toSrc func(int) int) (*ast.Program, *ast.FunctionLiteral, error) {
	prg, err := parser.ParseFile(nil, "", src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, nil, syntaxError(text, src, list[0].Position, list[0].Message, toSrc)
		}
		return nil, nil, newCompileError(text, -1, "%v", err)
	}
	if len(prg.Body) != 1 {
		return nil, nil, newCompileError(text, -1, "unbalanced brackets: the text does not form one expression")
	}
	es, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, nil, newCompileError(text, -1, "unbalanced brackets: the text does not form one expression")
	}
	fn, ok := es.Expression.(*ast.FunctionLiteral)
	if !ok || fn.Idx0() != 2 { // "(function" starts at Idx 2 (base 1)
		return nil, nil, newCompileError(text, -1, "unbalanced brackets: the text does not form one expression")
	}
	return prg, fn, nil
}

func syntaxError(text, src string, pos file.Position, msg string, toSrc func(int) int) *CompileError {
	off := 0
	for line := 1; line < pos.Line; line++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	off += pos.Column - 1
	msg = strings.TrimPrefix(msg, "(anonymous): ")
	return newCompileError(text, min(max(toSrc(off), 0), len(text)), "%s", msg)
}

// onlyReturn returns the argument of fn's body when it is a single return.
func onlyReturn(fn *ast.FunctionLiteral) (ast.Expression, bool) {
	if fn.Body == nil || len(fn.Body.List) != 1 {
		return nil, false
	}
	r, ok := fn.Body.List[0].(*ast.ReturnStatement)
	if !ok || r.Argument == nil {
		return nil, false
	}
	return r.Argument, true
}

// finish turns the referenced names into parameters and compiles.
func finish(text string, d Dialect, script bool, js string, prg *ast.Program, fn *ast.FunctionLiteral,
	names, declared map[string]bool, toSrc func(int) int,
) (*Program, error) {
	globals := sandboxGlobals()
	params := make([]string, 0, len(names))
	for n := range names {
		if globals[n] || declared[n] || strictReserved[n] {
			continue
		}
		params = append(params, n)
	}
	slices.Sort(params)
	list := make([]*ast.Binding, len(params))
	for i, n := range params {
		list[i] = &ast.Binding{Target: &ast.Identifier{Name: unistring.NewFromString(n), Idx: fn.ParameterList.Opening}}
	}
	fn.ParameterList.List = list
	capConcat(fn.Body)
	prog, err := goja.CompileAST(prg, true)
	if err != nil {
		var ce *goja.CompilerSyntaxError
		var re *goja.CompilerReferenceError
		switch {
		case errors.As(err, &ce):
			return nil, newCompileError(text, clampOff(toSrc(ce.Offset), text), "%s", ce.Message)
		case errors.As(err, &re):
			return nil, newCompileError(text, clampOff(toSrc(re.Offset), text), "%s", re.Message)
		}
		return nil, newCompileError(text, -1, "%v", err)
	}
	return &Program{text: text, dialect: d, script: script, prog: prog, params: params, js: js}, nil
}

func clampOff(off int, text string) int { return min(max(off, 0), len(text)) }

// strictReserved cannot be parameter names in strict mode.
var strictReserved = map[string]bool{
	"arguments": true, "eval": true, "implements": true, "interface": true, "let": true,
	"package": true, "private": true, "protected": true, "public": true, "static": true,
	"yield": true, "await": true, "undefined": true,
}

// programCache is a bounded cache of compiled programs per text. When full,
// an arbitrary entry is evicted.
type programCache struct {
	m   sync.Map // string -> *Program
	n   atomic.Int64
	max int64
}

func newProgramCache(size int) *programCache { return &programCache{max: int64(size)} }

func (c *programCache) get(text string) *Program {
	if v, ok := c.m.Load(text); ok {
		p, _ := v.(*Program)
		return p
	}
	return nil
}

func (c *programCache) put(text string, p *Program) { c.putAny(text, p) }

func (c *programCache) putAny(text string, v any) {
	if _, loaded := c.m.LoadOrStore(text, v); loaded {
		return
	}
	if c.n.Add(1) <= c.max {
		return
	}
	c.m.Range(func(k, _ any) bool {
		if k.(string) != text {
			if _, ok := c.m.LoadAndDelete(k); ok {
				c.n.Add(-1)
			}
			return false
		}
		return true
	})
}
