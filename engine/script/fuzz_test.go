package script

import (
	"context"
	"errors"
	"testing"
	"time"
)

var fuzzSeeds = []string{
	"amount > 100", "=amount > 100", "=a = 1 and not(b)", "=x.y + 2", `="literal"`, "=null",
	"${amount > 100}", "${approved == true}", "${a && b}", "${not empty x}", "${a eq b}", "${a and b}",
	`="a and b"`, "=if a then b else c", "=items[1]", "=[1, {a: 2}]", "${'}'}", "=\"\\u0041\"",
	"=a..b", "${a} ${b}", "1); while(1){}; (1", "=(", "${", "=@\"x\"", "=-a", "#{x.y[0]}",
	"=Service Level = 'Premium'", "=Order Status.Approved By", `=string join(list, ", ")`, "=count(a) > sum(b, 1)",
	"s += s + `${t}`", "=index of(l, 2)",
	"=some x in l satisfies x > 1", "=every r in [1, 2] satisfies r = 1 and n", "=01 + 007.5", "=string(now())", "=item * 10",
	"=if some a in b satisfies a then 1 else 2",
}

func FuzzCompileExpression(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := compileExpression(text) // uncached: do not fill the cache
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("%q: error is not a *CompileError: %v", text, err)
			}
			return
		}
		if p.prog == nil {
			t.Fatalf("%q: no program", text)
		}
	})
}

// FuzzFEEL: FEEL translation never panics, and its output either compiles
// or the text gets a CompileError.
func FuzzFEEL(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		text := "=" + body
		tr, err := translateFEEL(text, 1)
		if err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("%q: error is not a *CompileError: %v", text, err)
			}
			return
		}
		if _, err := compileExpression(text); err != nil {
			var ce *CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("%q (js %q): error is not a *CompileError: %v", text, tr.js, err)
			}
		}
	})
}

// FuzzFastPath: the fast path agrees with goja for fuzzed values.
func FuzzFastPath(f *testing.F) {
	f.Add("a > b", 1.5, "x", true)
	f.Add("a === c", 0.0, "", false)
	f.Add("=a != c or b", -1.0, "abc", true)
	e, err := NewEvaluator(Config{ConditionTimeout: time.Minute})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, expr string, a float64, c string, b bool) {
		p, err := compileExpression(expr)
		if err != nil || p.fast == nil {
			return
		}
		vars := map[string]any{"a": a, "b": b, "c": c}
		want, wantErr := e.Eval(context.Background(), slow(p), vars)
		got, gotErr := e.Eval(context.Background(), p, vars)
		if (wantErr == nil) != (gotErr == nil) || (wantErr == nil && want != got) {
			t.Fatalf("%s: goja %v %v, fast %v %v", expr, want, wantErr, got, gotErr)
		}
	})
}
