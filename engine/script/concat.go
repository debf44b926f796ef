package script

import (
	"reflect"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"
)

// Capped concatenation. goja has no memory limit, and a string built by
// concatenation is allocated whole before anything can look at it: doubling
// one (s += s) took the heap from 64 MiB to gigabytes in a few operations,
// faster than the watchdog's heap figures could stop it. So every + and +=
// of two non-literal operands, and every untagged template literal with
// substitutions, is compiled as a call to a sandbox helper (see lockdownJS)
// that checks the length of the string it would build against MaxStringLen
// before building it; numbers add as before, at about a third of the speed.
// String.prototype.concat, repeat, padStart, padEnd and Array.prototype.join
// are capped in lockdownJS itself. What a script builds otherwise (arrays,
// objects) the memory budget bounds.

// Names of the helpers lockdownJS defines on the sandbox's global object.
const (
	addFunc      = "__wfpp_add"
	templateFunc = "__wfpp_template"
)

var (
	expressionType = reflect.TypeFor[ast.Expression]()
	binaryType     = reflect.TypeFor[*ast.BinaryExpression]()
	assignType     = reflect.TypeFor[*ast.AssignExpression]()
	templateType   = reflect.TypeFor[*ast.TemplateLiteral]()
)

// capConcat rewrites the concatenations under node in place.
func capConcat(node any) {
	rewrite(reflect.ValueOf(node))
}

func rewrite(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() || v.Type() == fileType {
			return
		}
		rewrite(v.Elem())
		if v.Kind() == reflect.Interface && v.Type() == expressionType && v.CanSet() {
			if e := capped(v.Elem()); e != nil {
				v.Set(reflect.ValueOf(e))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			rewrite(v.Field(i))
		}
	case reflect.Slice:
		for i := range v.Len() {
			rewrite(v.Index(i))
		}
	}
}

// capped returns what replaces the expression e, whose own operands are
// already rewritten, or nil to keep it.
func capped(e reflect.Value) ast.Expression {
	switch e.Type() {
	case binaryType:
		b := e.Interface().(*ast.BinaryExpression)
		if b.Operator == token.PLUS && !literal(b.Left) && !literal(b.Right) {
			return call(addFunc, b.Left.Idx0(), b.Left, b.Right)
		}
	case assignType:
		a := e.Interface().(*ast.AssignExpression)
		// x += y becomes x = add(x, y) when reading x again has no side
		// effect: a name, or a property of a name or of this.
		if a.Operator == token.PLUS && !literal(a.Right) && readsTwiceSafely(a.Left) {
			a.Operator = token.ASSIGN
			a.Right = call(addFunc, a.Left.Idx0(), a.Left, a.Right)
		}
	case templateType:
		t := e.Interface().(*ast.TemplateLiteral)
		if t.Tag != nil {
			return nil
		}
		parts := &ast.ArrayLiteral{LeftBracket: t.OpenQuote, RightBracket: t.CloseQuote}
		for _, el := range t.Elements {
			parts.Value = append(parts.Value, &ast.StringLiteral{Idx: el.Idx, Literal: el.Literal, Value: el.Parsed})
		}
		return call(templateFunc, t.OpenQuote, append([]ast.Expression{parts}, t.Expressions...)...)
	}
	return nil
}

// literal reports whether e is a literal: a concatenation with one grows
// a string by at most the literal's length per operation, never doubles
// it, so the memory budget bounds it and it keeps JavaScript's speed.
func literal(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.NumberLiteral, *ast.StringLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return true
	case *ast.TemplateLiteral:
		return x.Tag == nil && len(x.Expressions) == 0
	}
	return false
}

func readsTwiceSafely(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.Identifier:
		return true
	case *ast.DotExpression:
		switch x.Left.(type) {
		case *ast.Identifier, *ast.ThisExpression:
			return true
		}
	}
	return false
}

func call(fn string, at file.Idx, args ...ast.Expression) *ast.CallExpression {
	return &ast.CallExpression{
		Callee:          &ast.Identifier{Name: unistring.NewFromString(fn), Idx: at},
		LeftParenthesis: at, ArgumentList: args, RightParenthesis: at,
	}
}
