package script

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

var testVars = map[string]any{
	"amount":   150,
	"price":    9.5,
	"name":     "acme",
	"approved": true,
	"rejected": false,
	"none":     nil,
	"order":    map[string]any{"id": "o-1", "total": 99.5, "customer": map[string]any{"tier": "gold"}},
	"items":    []any{"a", "b", "c"},
	"empty":    "",
	"list":     []any{},
}

func TestExpressions(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	tests := []struct {
		text string
		want any
	}{
		// JavaScript
		{"amount > 100", true},
		{"amount + 1", int64(151)},
		{"price * 2", int64(19)},
		{"price / 4", 2.375},
		{"order.customer.tier === 'gold'", true},
		{"items[1]", "b"},
		{"items.length", int64(3)},
		{"approved && !rejected", true},
		{"missing === undefined", true},
		{"missing > 3", false},
		{"name.toUpperCase()", "ACME"},
		{"Math.max(amount, 200)", int64(200)},
		{"variables.amount", int64(150)},
		{"({a: amount, b: [1, 'x', null]})", map[string]any{"a": int64(150), "b": []any{int64(1), "x", nil}}},
		{"null", nil},
		{"missing", nil},
		// FEEL
		{"=amount > 100", true},
		{"= amount >= 150 and amount <= 150", true},
		{"=amount = 150", true},
		{"=amount != 150", false},
		{"=name = \"acme\"", true},
		{`="a and b"`, "a and b"},
		{`="x = \"y\" or not(z)"`, `x = "y" or not(z)`},
		{"=not(approved) or rejected", false},
		{"=not(amount > 100 and approved)", false},
		{"=order.customer.tier = \"gold\"", true},
		{"=order.missing.deeper = null", true},
		{"=missing = null", true},
		{"=none = null", true},
		{"=missing > 3", false},
		{"=items[1]", "a"},
		{"=items[3] = \"c\"", true},
		{"=(amount + 10) * 2", int64(320)},
		{"=2 ** 3", int64(8)},
		{"=-amount < 0", true},
		{"=null", nil},
		{"=true", true},
		{"=1.5e1", int64(15)},
		{`=if amount > 100 then "big" else "small"`, "big"},
		{`=if amount > 1000 then "huge" else if amount > 100 then "big" else "small"`, "big"},
		{`=[1, 2, amount]`, []any{int64(1), int64(2), int64(150)}},
		{`={total: order.total, "key with space": 1}`, map[string]any{"total": 99.5, "key with space": int64(1)}},
		{"=variables.amount", int64(150)},
		// JUEL
		{"${amount > 100}", true},
		{"${amount gt 100 && approved}", true},
		{"${approved == true}", true},
		{"${name eq 'acme'}", true},
		{"${name ne \"acme\"}", false},
		{"${a eq b}", true}, // both missing: undefined == undefined
		{"${approved and not rejected}", true},
		{"${rejected or amount lt 10}", false},
		{"${amount le 150 and amount ge 150}", true},
		{"${amount div 2}", int64(75)},
		{"${amount mod 7}", int64(3)},
		{"${order.customer.tier == 'gold'}", true},
		{"${order.nothing.here == null}", true},
		{"${not empty items}", true},
		{"${empty list}", true},
		{"${empty missing}", true},
		{"${not empty order.customer}", true},
		{"${'a and b'}", "a and b"},
		{"${items[0]}", "a"},
		{"#{amount}", int64(150)},
		{"${amount > 100 ? 'big' : 'small'}", "big"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			p, err := CompileExpression(tt.text)
			require.NoError(t, err)
			for _, prog := range []*Program{p, slow(p)} {
				got, err := e.Eval(context.Background(), prog, testVars)
				require.NoError(t, err, "js: %s", p.JavaScript())
				require.Equal(t, tt.want, got, "js: %s", p.JavaScript())
			}
		})
	}
}

func TestDetectDialect(t *testing.T) {
	t.Parallel()
	require.Equal(t, FEEL, DetectDialect(" =a"))
	require.Equal(t, JUEL, DetectDialect("${a}"))
	require.Equal(t, JUEL, DetectDialect("#{a}"))
	require.Equal(t, JavaScript, DetectDialect("a == 1"))
	require.Equal(t, "FEEL", FEEL.String())
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text      string
		line, col int
		contains  string
	}{
		{"amount >", 1, 9, "Unexpected"},
		{"a +\n  * b", 2, 3, "Unexpected"},
		{"=amount >", 0, 0, ""},
		{"=for x in items return x", 1, 2, `"for"`},
		{"=some x in items", 1, 2, "without 'satisfies'"},
		{"=items[item > 1]", 1, 8, "filter"},
		{"=date(items) > 1", 1, 2, "date()"},
		{"=1..5", 1, 3, "range"},
		{`="open`, 1, 2, "unterminated"},
		{"=not x", 1, 2, "not(...)"},
		{"=if a then b", 1, 2, "without 'else'"},
		{"=(a", 1, 2, "unclosed"},
		{"=@\"2020-01-01\"", 1, 2, "temporal"},
		{"=a, b", 1, 3, "','"},
		{"=", 0, 0, "empty"},
		{"${a} and ${b}", 1, 6, "Template"},
		{"${a", 0, 0, "unclosed"},
		{"${}", 0, 0, "empty"},
		{"${'x}", 1, 3, "unterminated"},
		{"a; b", 1, 2, "Unexpected token ;"},
		{"let x = 1", 0, 0, ""},
		{"1); while(true){}; (1", 0, 0, ""},
		{"  ", 0, 0, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			_, err := CompileExpression(tt.text)
			var ce *CompileError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, tt.text, ce.Text)
			if tt.line != 0 {
				require.Equal(t, tt.line, ce.Line, ce.Error())
				require.Equal(t, tt.col, ce.Column, ce.Error())
			}
			require.Contains(t, ce.Error(), tt.contains)
		})
	}
}

func TestCompileCachesPerText(t *testing.T) {
	t.Parallel()
	a, err := CompileExpression("cached_x > 1")
	require.NoError(t, err)
	b, err := CompileExpression("cached_x > 1")
	require.NoError(t, err)
	require.Same(t, a, b)

	c := newProgramCache(2)
	for _, s := range []string{"a", "b", "c", "d"} {
		c.put(s, &Program{text: s})
	}
	require.LessOrEqual(t, c.n.Load(), int64(2))
	require.NotNil(t, c.get("d"))
}

func TestEvalBool(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	ctx := context.Background()
	for text, want := range map[string]bool{
		"amount > 100": true, "=amount < 100": false, "${approved}": true, "items.includes('b')": true,
	} {
		p, err := CompileExpression(text)
		require.NoError(t, err)
		got, err := e.EvalBool(ctx, p, testVars)
		require.NoError(t, err)
		require.Equal(t, want, got, text)
	}
	for text, kind := range map[string]string{
		"amount": "number 150", "name": `string "acme"`, "missing": "undefined", "none": "null",
		"order": "object", "=order.total": "number 99.5",
	} {
		p, err := CompileExpression(text)
		require.NoError(t, err)
		_, err = e.EvalBool(ctx, p, testVars)
		require.ErrorIs(t, err, ErrResult, text)
		require.ErrorContains(t, err, "condition returned "+kind, text)
	}
}

func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	p, err := CompileExpression("order.customer.x.y")
	require.NoError(t, err)
	_, err = e.Eval(context.Background(), p, testVars)
	require.ErrorIs(t, err, ErrRuntime)
	require.ErrorContains(t, err, "TypeError")
	require.ErrorContains(t, err, "line 1, column")

	p, err = CompileExpression("(() => { throw new Error('boom') })()")
	require.NoError(t, err)
	_, err = e.Eval(context.Background(), p, nil)
	require.ErrorIs(t, err, ErrRuntime)
	require.ErrorContains(t, err, "Error: boom")
}

func TestResultsMustBeJSON(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	for text, msg := range map[string]string{
		"() => 1":     "function",
		"({f() {}})":  "result.f is a function",
		"Symbol('x')": "Symbol",
		"(() => { const o = {}; o.o = o; return o })()": "cyclic",
		"0/0":                   "NaN",
		"new Map()":             "Map",
		"[1, () => 2]":          "result[1] is a function",
		"({a: {b: new Set()}})": "result.a.b",
	} {
		p, err := CompileExpression(text)
		require.NoError(t, err, text)
		_, err = e.Eval(context.Background(), p, nil)
		require.ErrorIs(t, err, ErrResult, text)
		require.ErrorContains(t, err, msg, text)
	}
	p, err := CompileExpression("({a: undefined, b: 1, d: new Date(0)})")
	require.NoError(t, err)
	got, err := e.Eval(context.Background(), p, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]any{"b": int64(1), "d": "1970-01-01T00:00:00Z"}, got)
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	_, err := NewEvaluator(Config{ConditionTimeout: -1, MaxStringLen: -5})
	require.ErrorContains(t, err, "ConditionTimeout must be positive")
	require.ErrorContains(t, err, "MaxStringLen must be positive")
	cfg := Config{}.WithDefaults()
	require.Equal(t, ConditionTimeoutDefault, cfg.ConditionTimeout)
	require.Equal(t, ScriptTimeoutDefault, cfg.ScriptTimeout)
	require.NoError(t, cfg.validate())
	require.True(t, errors.Is(ErrTimeout, ErrTimeout))
}

// TestFEELNamesWithSpaces: FEEL names may contain spaces; consecutive
// names that are not keywords are one, in paths too.
func TestFEELNamesWithSpaces(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	vars := map[string]any{
		"Service Level": "Premium", "a": true, "b": false,
		"Vacation Approval Status": map[string]any{"Approval": "yes", "First Name": "Ada"},
	}
	for expr, want := range map[string]any{
		`=Service Level = "Premium"`:                  true,
		`=Service Level != "Premium"`:                 false,
		`=Vacation Approval Status.Approval`:          "yes",
		`=Vacation Approval Status.First Name`:        "Ada",
		`=a and b`:                                    false,
		`=a or b`:                                     true,
		`=if Service Level = "Premium" then 1 else 2`: int64(1),
		`=Missing Name = null`:                        true,
		`=Service Level == 'Premium'`:                 true,
	} {
		p, err := CompileExpression(expr)
		require.NoError(t, err, expr)
		got, err := e.Eval(context.Background(), p, vars)
		require.NoError(t, err, expr)
		require.Equal(t, want, got, expr)
	}
}

// TestFEELBuiltins: the FEEL built-in functions the translation knows
// answer as FEEL defines them (1-based positions, null for bad input).
func TestFEELBuiltins(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	vars := map[string]any{"risks": []any{"fire", "flood"}, "name": "Ada Lovelace", "nums": []any{3, 1, 2}}
	for expr, want := range map[string]any{
		`=string join(risks, ", ")`:                   "fire, flood",
		`=string length(name)`:                        int64(12),
		`=upper case(name)`:                           "ADA LOVELACE",
		`=substring(name, 5)`:                         "Lovelace",
		`=substring(name, 1, 3)`:                      "Ada",
		`=contains(name, "Love")`:                     true,
		`=starts with(name, "Ada")`:                   true,
		`=count(risks)`:                               int64(2),
		`=sum(nums)`:                                  int64(6),
		`=max(nums)`:                                  int64(3),
		`=list contains(risks, "flood")`:              true,
		`=index of(risks, "flood")`:                   []any{int64(2)},
		`=count(append(risks, "quake")) = 3`:          true,
		`=if is empty(risks) then "none" else "some"`: "some",
		`=modulo(7, 3)`:                               int64(1),
		`=upper case(substring(name, 1, 3))`:          "ADA",
		`=string length(123)`:                         nil,
	} {
		p, err := CompileExpression(expr)
		require.NoError(t, err, expr)
		got, err := e.Eval(context.Background(), p, vars)
		require.NoError(t, err, expr)
		require.Equal(t, want, got, expr)
	}
	_, err := CompileExpression(`=date and time("2026-01-01")`)
	require.ErrorContains(t, err, "is not supported: the built-ins are")
}

// TestFEELItemIsAName: item is the usual name of a multi-instance's
// element; only in a filter does FEEL give it a meaning of its own.
func TestFEELItemIsAName(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	p, err := CompileExpression("=item * 10")
	require.NoError(t, err)
	got, err := e.Eval(context.Background(), p, map[string]any{"item": 4})
	require.NoError(t, err)
	require.EqualValues(t, 40, got)
	_, err = CompileExpression("=orders[item > 10]")
	require.ErrorContains(t, err, "filter expressions")
}

// TestFEELQuantifiedAndMore: some/every ... satisfies, now(), and numbers
// written with leading zeros, as the MIWG C.9.0 model uses them.
func TestFEELQuantifiedAndMore(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	vars := map[string]any{"riskLevels": []any{"green", "red"}, "n": 3}
	for expr, want := range map[string]any{
		`= some risk in riskLevels satisfies risk = "red"`:              true,
		`= every risk in riskLevels satisfies risk = "red"`:             false,
		`= every risk in riskLevels satisfies risk != "blue" and n > 2`: true,
		`= if some r in riskLevels satisfies r = "green" then 1 else 2`: int64(1),
		`= count(riskLevels) = 2 and some r in [1, 2] satisfies r > 1`:  true,
		`=01`:                                int64(1),
		`=0.5 + 00.5`:                        int64(1),
		`=string length(string(now())) > 18`: true,
	} {
		p, err := CompileExpression(expr)
		require.NoError(t, err, expr)
		got, err := e.Eval(context.Background(), p, vars)
		require.NoError(t, err, expr)
		require.Equal(t, want, got, expr)
	}
	_, err := CompileExpression(`= some r in riskLevels`)
	require.ErrorContains(t, err, "without 'satisfies'")
	_, err = CompileExpression(`= x satisfies y`)
	require.ErrorContains(t, err, "satisfies")
}
