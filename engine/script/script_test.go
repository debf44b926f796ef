package script

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunScript(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	ctx := context.Background()
	tests := []struct {
		src  string
		want any
	}{
		{
			"const total = order.total * 2;\n({total, tier: order.customer.tier})",
			map[string]any{"total": int64(199), "tier": "gold"},
		},
		{"if (amount > 100) {\n  return {big: true};\n}\nreturn {big: false};", map[string]any{"big": true}},
		{"let n = 0;\nfor (const i of items) n++;\nn", int64(3)},
		{"var amount = 1; amount", int64(1)}, // own declarations shadow variables
		{"let order = 'mine'; order", "mine"},
		{"function f(x) { return x * 2 }\nf(amount)", int64(300)},
		{"Object.keys(variables).length", int64(len(testVars))},
		{"const x = 1;", nil},
		{"", nil},
		{"class A { constructor() { this.name = 'a' } }\nnew A().name", "a"},
		{"const o = {}; o.toString = () => 'x'; String(o)", "x"}, // override of a frozen intrinsic
		{"class E extends Error { constructor(m) { super(m); this.name = 'E' } }\nlet r;\ntry { throw new E('m') } catch (e) { r = e.name + ':' + e.message }\nr", "E:m"},
		{"console.log('hello', amount); 1", int64(1)},
		{"JSON.parse('{\"a\":[1,2]}')", map[string]any{"a": []any{int64(1), int64(2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			t.Parallel()
			p, err := CompileScript(tt.src)
			require.NoError(t, err)
			got, err := e.RunScript(ctx, p, testVars)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestScriptErrors(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	_, err := CompileScript("let a = 1;\nlet b = ;\n")
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, 2, ce.Line)
	require.Equal(t, 9, ce.Column)

	_, err = CompileScript("x = 1; })(); (function(){")
	require.ErrorAs(t, err, &ce)

	_, err = CompileScript("with (a) {}") // strict mode
	require.ErrorAs(t, err, &ce)

	p, err := CompileScript("const a = 1;\n\nnull.x")
	require.NoError(t, err)
	_, err = e.RunScript(context.Background(), p, nil)
	require.ErrorIs(t, err, ErrRuntime)
	require.ErrorContains(t, err, "line 3, column")

	p, err = CompileScript("globalThis.leak = 1") // the global object is frozen
	require.NoError(t, err)
	_, err = e.RunScript(context.Background(), p, nil)
	require.ErrorIs(t, err, ErrRuntime)
}

func TestTemplate(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{})
	ctx := context.Background()
	tests := []struct {
		text string
		want any
	}{
		{"https://x/${order.id}/items", "https://x/o-1/items"},
		{"${order}", testVars["order"].(map[string]any)},
		{"${amount}", int64(150)},
		{" ${amount}", " 150"},
		{"${amount}-${price}-${approved}-${none}-${missing}", "150-9.5-true--"},
		{"${items}", []any{"a", "b", "c"}},
		{"list: ${items}", `list: ["a","b","c"]`},
		{"no placeholders, $ and { }", "no placeholders, $ and { }"},
		{"${'}'}!", "}!"},
		{"${amount gt 100 and approved}", true},
		{"${ {a: 1}.a }", int64(1)},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			got, err := e.Template(ctx, tt.text, testVars)
			require.NoError(t, err)
			if m, ok := tt.want.(map[string]any); ok {
				// Order values come back as JSON: numbers normalised.
				require.Equal(t, m["id"], got.(map[string]any)["id"])
				return
			}
			require.Equal(t, tt.want, got)
		})
	}
	_, err := e.Template(ctx, "a ${b", nil)
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	_, err = e.Template(ctx, "id: ${a +}", nil)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "id: ${a +}", ce.Text)
}
