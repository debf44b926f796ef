package script

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
)

// Evaluator runs compiled programs in pooled, locked-down goja runtimes.
// Create one per engine; it is safe for concurrent use and starts no
// goroutines.
type Evaluator struct {
	cfg   Config
	slots []atomic.Pointer[runner] // idle runtimes; nil slots are free
}

// NewEvaluator returns an Evaluator configured by cfg (zero fields default).
func NewEvaluator(cfg Config) (*Evaluator, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	e := &Evaluator{cfg: cfg, slots: make([]atomic.Pointer[runner], cfg.PoolSize)}
	// One runtime up front: a broken sandbox fails here, not on first use.
	r, err := newRunner(&e.cfg)
	if err != nil {
		return nil, err
	}
	e.put(r)
	return e, nil
}

// get takes an idle runtime, or creates one. The pool is a small array of
// atomic slots: cheaper than a channel on the hot path, and unlike sync.Pool
// it does not drop locked-down runtimes at every GC.
func (e *Evaluator) get() (*runner, error) {
	for i := range e.slots {
		if e.slots[i].Load() != nil {
			if r := e.slots[i].Swap(nil); r != nil {
				return r, nil
			}
		}
	}
	return newRunner(&e.cfg)
}

func (e *Evaluator) put(r *runner) {
	for i := range e.slots {
		if e.slots[i].Load() == nil && e.slots[i].CompareAndSwap(nil, r) {
			return
		}
	}
	// Pool full: let it go.
}

func (e *Evaluator) run(ctx context.Context, p *Program, vars map[string]any, budget time.Duration,
	conv func(goja.Value) (any, error),
) (any, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: nil program", ErrRuntime)
	}
	r, err := e.get()
	if err != nil {
		return nil, err
	}
	res, broken, err := r.run(ctx, &e.cfg, p, vars, budget, conv)
	if !broken {
		e.put(r)
	}
	return res, err
}

func (e *Evaluator) exporter() *exporter {
	return &exporter{left: e.cfg.MaxOutputBytes, maxStr: e.cfg.MaxStringLen, maxDep: e.cfg.MaxDepth}
}

// exportTop converts a result; undefined at top level is nil.
func (e *Evaluator) exportTop(v goja.Value) (any, error) {
	res, _, err := e.exporter().export(v, "result")
	return res, err
}

// Eval evaluates an expression with vars visible as names (and all of them
// as "variables"). The variables are copied: mutations stay inside. A missing
// variable reads as undefined (null-like: it compares false, equals null in
// FEEL). The result is a plain JSON value, nil for null/undefined.
func (e *Evaluator) Eval(ctx context.Context, p *Program, vars map[string]any) (any, error) {
	if p != nil && p.fast != nil && ctx.Err() == nil {
		if v, ok := p.fast.eval(vars, e.cfg.MaxStringLen); ok {
			if r, ok := fastResult(v); ok {
				return r, nil
			}
		}
	}
	return e.run(ctx, p, vars, e.cfg.ConditionTimeout, e.exportTop)
}

// EvalBool evaluates a condition (gateway, completion condition). A result
// that is not a boolean is an error naming what came back.
func (e *Evaluator) EvalBool(ctx context.Context, p *Program, vars map[string]any) (bool, error) {
	if p != nil && p.fast != nil && ctx.Err() == nil {
		if v, ok := p.fast.eval(vars, e.cfg.MaxStringLen); ok {
			if b, ok := v.(bool); ok {
				return b, nil
			}
		}
	}
	res, err := e.run(ctx, p, vars, e.cfg.ConditionTimeout, exportBool)
	if err != nil {
		return false, err
	}
	return res.(bool), nil
}

func exportBool(v goja.Value) (any, error) {
	if b, ok := v.Export().(bool); ok {
		if _, isObj := v.(*goja.Object); !isObj {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w: condition returned %s, want a boolean", ErrResult, describe(v))
}

// RunScript runs a script task body compiled with CompileScript, under the
// script time budget. The script sees the variables as names and as
// "variables" (copies: assigning to them changes nothing outside). Its result
// is the value of a top-level return, else of the final expression statement,
// else nil; the engine merges an object result into the process variables or
// stores the result in the task's result variable.
func (e *Evaluator) RunScript(ctx context.Context, p *Program, vars map[string]any) (any, error) {
	return e.run(ctx, p, vars, e.cfg.ScriptTimeout, e.exportTop)
}

// fastResult converts a fast-path value like the exporter converts goja's;
// !ok sends NaN and infinities to goja for its error.
func fastResult(v any) (any, bool) {
	switch v := v.(type) {
	case undefType:
		return nil, true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		if v == math.Trunc(v) && math.Abs(v) <= 1<<53 {
			return int64(v), true
		}
	}
	return v, true
}
