package script

import (
	"context"
	"testing"
)

func BenchmarkEvalBool(b *testing.B) {
	e, err := NewEvaluator(Config{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := CompileExpression("amount > 100")
	if err != nil {
		b.Fatal(err)
	}
	vars := map[string]any{"amount": 150.0, "customer": "acme", "approved": true}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ok, err := e.EvalBool(ctx, p, vars)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkNewRunner(b *testing.B) {
	cfg := Config{}.WithDefaults()
	for b.Loop() {
		if _, err := newRunner(&cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalBoolRuntime measures a condition that needs the goja runtime.
func BenchmarkEvalBoolRuntime(b *testing.B) {
	e, err := NewEvaluator(Config{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := CompileExpression("amount > 100")
	if err != nil {
		b.Fatal(err)
	}
	p = slow(p)
	vars := map[string]any{"amount": 150.0, "customer": "acme", "approved": true}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ok, err := e.EvalBool(ctx, p, vars)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkRunScript(b *testing.B) {
	e, err := NewEvaluator(Config{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := CompileScript("const t = order.total * 1.2;\n({total: t, big: t > 100})")
	if err != nil {
		b.Fatal(err)
	}
	vars := map[string]any{"order": map[string]any{"id": "o-1", "total": 99.5}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.RunScript(ctx, p, vars); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileExpressionCached(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileExpression("=amount > 100 and approved"); err != nil {
			b.Fatal(err)
		}
	}
}
