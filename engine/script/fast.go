package script

import (
	"math"
	"unicode/utf8"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// The fast path: conditions of the most common shape — variable paths
// compared with literals, combined with && || ! (what FEEL and JUEL gateway
// conditions are) — are evaluated directly in Go with JavaScript semantics,
// without entering a runtime. Whenever a value is outside what the fast path
// models exactly (objects, mixed-type loose equality, string ordering, big
// integers...), it reports !ok and the evaluation runs in goja as usual, so
// results and errors are always those of JavaScript. TestFastPathMatchesGoja
// and FuzzFastPath check the two agree.

type fastNode interface {
	// eval returns a primitive JS value as Go: float64, string, bool, nil
	// (null) or undef; ok=false means "ask goja".
	eval(vars map[string]any, maxStr int) (v any, ok bool)
}

type undefType struct{}

var undef = undefType{}

type (
	fastLit  struct{ v any }
	fastPath struct {
		names    []string
		optional []bool // optional[i]: names[i] is read with ?. (base may be null)
	}
	fastNot struct{ x fastNode }
	fastCmp struct {
		op   token.Token
		l, r fastNode
	}
	fastLogic struct {
		and  bool
		l, r fastNode
	}
)

// buildFast returns the fast-path tree of an expression, or nil when the
// expression is not of a supported shape. isVar tells whether a name is read
// from the variables (a parameter).
func buildFast(e ast.Expression, isVar func(string) bool) fastNode {
	switch e := e.(type) {
	case *ast.NumberLiteral:
		switch v := e.Value.(type) {
		case int64:
			if v >= -(1<<53) && v <= 1<<53 {
				return fastLit{float64(v)}
			}
		case float64:
			return fastLit{v}
		}
	case *ast.StringLiteral:
		return fastLit{e.Value.String()}
	case *ast.BooleanLiteral:
		return fastLit{e.Value}
	case *ast.NullLiteral:
		return fastLit{nil}
	case *ast.Identifier, *ast.DotExpression, *ast.OptionalChain:
		if p := buildPath(e, isVar); p != nil {
			return p
		}
	case *ast.UnaryExpression:
		x := buildFast(e.Operand, isVar)
		switch {
		case x == nil || e.Postfix:
		case e.Operator == token.NOT:
			return fastNot{x}
		case e.Operator == token.MINUS:
			if l, ok := x.(fastLit); ok {
				if f, ok := l.v.(float64); ok {
					return fastLit{-f}
				}
			}
		}
	case *ast.BinaryExpression:
		l, r := buildFast(e.Left, isVar), buildFast(e.Right, isVar)
		if l == nil || r == nil {
			return nil
		}
		switch e.Operator {
		case token.LESS, token.LESS_OR_EQUAL, token.GREATER, token.GREATER_OR_EQUAL,
			token.STRICT_EQUAL, token.STRICT_NOT_EQUAL, token.EQUAL, token.NOT_EQUAL:
			return fastCmp{e.Operator, l, r}
		case token.LOGICAL_AND, token.LOGICAL_OR:
			return fastLogic{e.Operator == token.LOGICAL_AND, l, r}
		}
	}
	return nil
}

func buildPath(e ast.Expression, isVar func(string) bool) *fastPath {
	switch e := e.(type) {
	case *ast.Identifier:
		name := e.Name.String()
		if name == "undefined" {
			return nil // handled by goja; rare in conditions
		}
		if !isVar(name) || name == "variables" {
			return nil
		}
		return &fastPath{names: []string{name}, optional: []bool{false}}
	case *ast.OptionalChain:
		return buildPath(e.Expression, isVar)
	case *ast.DotExpression:
		left, opt := e.Left, false
		if o, ok := left.(*ast.Optional); ok {
			left, opt = o.Expression, true
		}
		p := buildPath(left, isVar)
		if p == nil {
			return nil
		}
		p.names = append(p.names, e.Identifier.Name.String())
		p.optional = append(p.optional, opt)
		return p
	}
	return nil
}

func (n fastLit) eval(map[string]any, int) (any, bool) { return n.v, true }

func (n *fastPath) eval(vars map[string]any, maxStr int) (any, bool) {
	v, ok := vars[variableName(n.names[0])]
	if !ok {
		v = undef
	}
	for i := 1; i < len(n.names); i++ {
		switch b := v.(type) {
		case map[string]any:
			if v, ok = b[n.names[i]]; !ok {
				v = undef
			}
		case nil, undefType:
			if n.optional[i] {
				return undef, true // a?.b short-circuits the rest of the chain
			}
			return nil, false // TypeError: let goja say it
		default:
			return nil, false
		}
	}
	return primitive(v, maxStr)
}

// primitive maps a Go variable value to the JS primitive goja would see.
func primitive(v any, maxStr int) (any, bool) {
	const maxSafe = 1 << 53
	switch v := v.(type) {
	case nil, undefType, bool:
		return v, true
	case float64:
		return v, true
	case string:
		if len(v) > maxStr || !utf8.ValidString(v) {
			return nil, false
		}
		return v, true
	case int:
		return float64(v), v >= -maxSafe && v <= maxSafe
	case int64:
		return float64(v), v >= -maxSafe && v <= maxSafe
	case int32:
		return float64(v), true
	case float32:
		return float64(v), true
	}
	return nil, false
}

func (n fastNot) eval(vars map[string]any, maxStr int) (any, bool) {
	v, ok := n.x.eval(vars, maxStr)
	if !ok {
		return nil, false
	}
	return !truthy(v), true
}

func truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	default: // nil, undef
		return false
	}
}

func (n fastLogic) eval(vars map[string]any, maxStr int) (any, bool) {
	l, ok := n.l.eval(vars, maxStr)
	if !ok {
		return nil, false
	}
	if truthy(l) != n.and {
		return l, true
	}
	return n.r.eval(vars, maxStr)
}

func (n fastCmp) eval(vars map[string]any, maxStr int) (any, bool) {
	l, ok := n.l.eval(vars, maxStr)
	if !ok {
		return nil, false
	}
	r, ok := n.r.eval(vars, maxStr)
	if !ok {
		return nil, false
	}
	switch n.op {
	case token.STRICT_EQUAL:
		return strictEqual(l, r), true
	case token.STRICT_NOT_EQUAL:
		return !strictEqual(l, r), true
	case token.EQUAL, token.NOT_EQUAL:
		eq, ok := looseEqual(l, r)
		return eq == (n.op == token.EQUAL), ok
	}
	// Relational: numbers only (strings compare by UTF-16 units; null and
	// undefined convert; leave those to goja).
	a, ok1 := l.(float64)
	b, ok2 := r.(float64)
	if !ok1 || !ok2 {
		return nil, false
	}
	switch n.op {
	case token.LESS:
		return a < b, true
	case token.LESS_OR_EQUAL:
		return a <= b, true
	case token.GREATER:
		return a > b, true
	default:
		return a >= b, true
	}
}

// strictEqual is === on primitives (NaN !== NaN; 0 === -0).
func strictEqual(l, r any) bool {
	switch a := l.(type) {
	case float64:
		b, ok := r.(float64)
		return ok && a == b
	case string:
		b, ok := r.(string)
		return ok && a == b
	case bool:
		b, ok := r.(bool)
		return ok && a == b
	case nil:
		return r == nil
	default: // undef
		_, ok := r.(undefType)
		return ok
	}
}

// looseEqual is == where it needs no conversion: null and undefined equal
// each other only; same types compare strictly; anything else is goja's.
func looseEqual(l, r any) (eq, ok bool) {
	ln := l == nil || l == any(undef)
	rn := r == nil || r == any(undef)
	switch {
	case ln || rn:
		return ln && rn, true
	case sameKind(l, r):
		return strictEqual(l, r), true
	}
	return false, false
}

func sameKind(l, r any) bool {
	switch l.(type) {
	case float64:
		_, ok := r.(float64)
		return ok
	case string:
		_, ok := r.(string)
		return ok
	case bool:
		_, ok := r.(bool)
		return ok
	}
	return false
}
