package script

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// runner is one pooled goja runtime, locked down once at creation, with the
// timer that enforces the time budget of whatever it runs.
type runner struct {
	vm    *goja.Runtime
	fns   map[*goja.Program]goja.Callable // compiled wrapper functions, per program
	args  []goja.Value
	watch *watchdog
}

// maxCachedFns bounds the per-runtime function cache.
const maxCachedFns = 512

func newRunner(cfg *Config) (*runner, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(cfg.MaxCallStackSize)
	if err := lockdown(vm, cfg.MaxStringLen, cfg.Logger); err != nil {
		return nil, fmt.Errorf("script: preparing sandbox: %w", err)
	}
	return &runner{vm: vm, fns: make(map[*goja.Program]goja.Callable), watch: newWatchdog(vm, cfg.MaxMemory)}, nil
}

// function returns the callable for p in this runtime.
func (r *runner) function(p *Program) (goja.Callable, error) {
	if fn := r.fns[p.prog]; fn != nil {
		return fn, nil
	}
	v, err := r.vm.RunProgram(p.prog)
	if err != nil {
		return nil, err
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		return nil, errors.New("script: compiled program is not a function")
	}
	if len(r.fns) >= maxCachedFns {
		clear(r.fns)
	}
	r.fns[p.prog] = fn
	return fn, nil
}

// run evaluates p with vars under the time budget and converts the result
// with conv while the budget still applies. broken reports that the runtime
// must not be reused.
func (r *runner) run(ctx context.Context, cfg *Config, p *Program, vars map[string]any,
	budget time.Duration, conv func(goja.Value) (any, error),
) (res any, broken bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	fn, err := r.function(p)
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		// An interrupt meant for the previous evaluation landed after it
		// ended (a watchdog tick races its end): nothing of ours is running.
		r.vm.ClearInterrupt()
		fn, err = r.function(p)
	}
	if err != nil {
		return nil, true, err
	}
	in := importer{vm: r.vm, left: cfg.MaxInputBytes, maxStr: cfg.MaxStringLen, maxDep: cfg.MaxDepth}
	args := r.args[:0]
	defer func() {
		clear(args)
		r.args = args[:0]
	}()
	for _, name := range p.params {
		var v goja.Value
		if name == "variables" {
			v, err = in.toJS(vars, 0)
		} else if x, ok := vars[variableName(name)]; ok {
			v, err = in.toJS(x, 1)
		} else {
			v = goja.Undefined()
		}
		if err != nil {
			return nil, false, fmt.Errorf("variable %q: %w", name, err)
		}
		args = append(args, v)
	}

	gen, stop := r.watch.start(ctx, budget)
	defer r.watch.end(stop)
	defer func() {
		if x := recover(); x != nil {
			res, broken, err = nil, true, r.fail(p, x)
		}
	}()

	v, err := fn(goja.Undefined(), args...)
	if err != nil && isStale(err, gen) {
		r.vm.ClearInterrupt() // meant for the previous evaluation: run again
		v, err = fn(goja.Undefined(), args...)
	}
	if err != nil {
		// Interrupted or overflowed runtimes are reusable once the interrupt
		// is cleared (end does it); only a Go panic discards one.
		return nil, false, r.fail(p, err)
	}
	res, err = conv(v)
	if err != nil {
		return nil, false, fmt.Errorf("evaluating %s: %w", quoteShort(p.text), err)
	}
	return res, false, nil
}

func isStale(err error, gen uint64) bool {
	var ie *goja.InterruptedError
	if !errors.As(err, &ie) {
		return false
	}
	in, ok := ie.Value().(*interrupt)
	return ok && in.gen != gen
}

// fail turns whatever stopped an evaluation (an error or a recovered panic)
// into an error saying what happened.
func (r *runner) fail(p *Program, x any) error {
	what := quoteShort(p.text)
	var (
		ie *goja.InterruptedError
		so *goja.StackOverflowError
		ex *goja.Exception
	)
	err, _ := x.(error)
	switch {
	case err == nil:
		return fmt.Errorf("evaluating %s: %w: internal panic: %v", what, ErrRuntime, x)
	case errors.As(err, &ie):
		if in, ok := ie.Value().(*interrupt); ok {
			return fmt.Errorf("evaluating %s: %w", what, in.err)
		}
		return fmt.Errorf("evaluating %s: %w: interrupted: %v", what, ErrTimeout, ie.Value())
	case errors.As(err, &so):
		return fmt.Errorf("evaluating %s: %w (MaxCallStackSize; runaway recursion?)", what, ErrStackOverflow)
	case errors.As(err, &ex):
		msg := exceptionMessage(ex)
		if pos := p.position(ex); pos != "" {
			msg += " (" + pos + ")"
		}
		if strings.HasPrefix(msg, "RangeError: "+tooLongMessage) {
			return fmt.Errorf("evaluating %s: %w: %s", what, ErrLimit, msg)
		}
		return fmt.Errorf("evaluating %s: %w: %s", what, ErrRuntime, msg)
	default:
		return fmt.Errorf("evaluating %s: %w: %w", what, ErrRuntime, err)
	}
}

// exceptionMessage renders a thrown value without running script code.
func exceptionMessage(ex *goja.Exception) (msg string) {
	defer func() {
		if recover() != nil {
			msg = "uncaught exception"
		}
	}()
	v := ex.Value()
	if o, ok := v.(*goja.Object); ok {
		name, m := o.Get("name"), o.Get("message")
		if m != nil && !goja.IsUndefined(m) {
			if name != nil && !goja.IsUndefined(name) {
				return name.String() + ": " + m.String()
			}
			return m.String()
		}
		return "uncaught " + describe(v)
	}
	return "uncaught " + describe(v)
}

// position returns "line L, column C" of the innermost frame of ex in p's
// source text, when it can be mapped (plain JavaScript only).
func (p *Program) position(ex *goja.Exception) string {
	if p.dialect != JavaScript {
		return ""
	}
	for _, f := range ex.Stack() {
		pos := f.Position()
		if pos.Line == 0 || f.SrcName() == lockdownName {
			continue
		}
		line, col := pos.Line, pos.Column
		if line == 1 {
			prefix := len(exprPrefix)
			if p.script {
				prefix = len(scriptPrefix)
			}
			col -= prefix
		}
		if col < 1 {
			return ""
		}
		return fmt.Sprintf("line %d, column %d", line, col)
	}
	return ""
}

// lockdown prepares a fresh runtime: size-capped string builders, the JUEL
// empty helper, a log-captured console, then freezes every reachable
// intrinsic and the global object so nothing can leak between evaluations.
func lockdown(vm *goja.Runtime, maxStringLen int, logger *slog.Logger) error {
	console := vm.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		if err := console.Set(level, func(call goja.FunctionCall) goja.Value {
			if logger.Enabled(context.Background(), slog.LevelDebug) {
				parts := make([]string, 0, len(call.Arguments))
				for _, a := range call.Arguments {
					s := a.String()
					if len(s) > 1024 {
						s = s[:1024] + "..."
					}
					parts = append(parts, s)
				}
				logger.Debug("script console", "level", level, "message", strings.Join(parts, " "))
			}
			return goja.Undefined()
		}); err != nil {
			return err
		}
	}
	v, err := vm.RunScript(lockdownName, lockdownJS)
	if err != nil {
		return err
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		return errors.New("lockdown script is not a function")
	}
	_, err = fn(goja.Undefined(), vm.GlobalObject(), vm.ToValue(maxStringLen), console)
	return err
}

// lockdownName names lockdownJS in stack traces: errors are placed in the
// user's program, not in the helpers it calls.
const lockdownName = "wfpp:lockdown"

// tooLongMessage starts the RangeError of a string longer than MaxStringLen.
const tooLongMessage = "string longer than MaxStringLen"

const lockdownJS = `(function (g, maxLen, console) {
"use strict";
const RangeErr = RangeError, Str = String, keys = Object.keys, isArray = Array.isArray;
const def = (o, k, v) => Object.defineProperty(o, k, {value: v, writable: true, configurable: true});
const tooLong = () => { throw new RangeErr("` + tooLongMessage + ` (" + maxLen + " characters)"); };
const sp = String.prototype, ap = Array.prototype;
const origRepeat = sp.repeat, origPadStart = sp.padStart, origPadEnd = sp.padEnd, origJoin = ap.join, origConcat = sp.concat;
def(sp, "repeat", function repeat(n) { if (Str(this).length * n > maxLen) tooLong(); return origRepeat.call(this, n); });
def(sp, "padStart", function padStart(n, s) { if (n > maxLen) tooLong(); return origPadStart.call(this, n, s); });
def(sp, "padEnd", function padEnd(n, s) { if (n > maxLen) tooLong(); return origPadEnd.call(this, n, s); });
def(sp, "concat", function concat(...parts) {
	let total = Str(this).length;
	for (const p of parts) { total += Str(p).length; if (total > maxLen) tooLong(); }
	return origConcat.apply(this, parts);
});
def(ap, "join", function join(sep) {
	const len = this.length >>> 0, sl = sep === undefined ? 1 : Str(sep).length;
	let total = len > 0 ? (len - 1) * sl : 0;
	for (let i = 0; i < len && total <= maxLen; i++) { const e = this[i]; if (e != null) total += Str(e).length; }
	if (total > maxLen) tooLong();
	return origJoin.call(this, sep);
});
// Every + and += and template literal of a program calls these (concat.go).
Object.defineProperty(g, "` + addFunc + `", {value: function add(a, b) {
	if (typeof a === "number" && typeof b === "number") return a + b;
	if (typeof a === "string" && typeof b === "string" && a.length + b.length > maxLen) tooLong();
	const r = a + b;
	if (typeof r === "string" && r.length > maxLen) tooLong();
	return r;
}});
Object.defineProperty(g, "` + templateFunc + `", {value: function template(parts, ...values) {
	let total = 0;
	for (const p of parts) total += p.length;
	const strs = values.map((v) => { if (typeof v === "symbol") throw new TypeError("Cannot convert a Symbol value to a string"); const s = Str(v); total += s.length; if (total > maxLen) tooLong(); return s; });
	let r = parts[0];
	for (let i = 0; i < strs.length; i++) r = r + strs[i] + parts[i + 1];
	return r;
}});
// FEEL built-ins (feel.go), by their FEEL names.
const feelNum = (x) => typeof x === "number" ? x : null;
Object.defineProperty(g, "` + feelFunc + `", {value: Object.freeze({
	"string length": (s) => typeof s === "string" ? s.length : null,
	// Date-times are ISO-8601 text here (UTC), which sort as they compare.
	"now": () => new Date().toISOString(),
	"today": () => new Date().toISOString().slice(0, 10),
	"upper case": (s) => typeof s === "string" ? s.toUpperCase() : null,
	"lower case": (s) => typeof s === "string" ? s.toLowerCase() : null,
	"substring": (s, start, len) => {
		if (typeof s !== "string" || typeof start !== "number") return null;
		const from = start > 0 ? start - 1 : s.length + start;
		return len === undefined ? s.substring(from) : s.substring(from, from + len);
	},
	"contains": (s, m) => typeof s === "string" && typeof m === "string" ? s.includes(m) : null,
	"starts with": (s, m) => typeof s === "string" && typeof m === "string" ? s.startsWith(m) : null,
	"ends with": (s, m) => typeof s === "string" && typeof m === "string" ? s.endsWith(m) : null,
	"string join": (l, d) => { if (!isArray(l)) return null; const j = l.filter((x) => x != null).join(d == null ? "" : Str(d)); if (j.length > maxLen) tooLong(); return j; },
	"string": (x) => x == null ? null : (typeof x === "object" ? JSON.stringify(x) : Str(x)),
	"number": (s) => { const n = Number(s); return s == null || s === "" || Number.isNaN(n) ? null : n; },
	"trim": (s) => typeof s === "string" ? s.trim() : null,
	"split": (s, d) => typeof s === "string" && typeof d === "string" ? s.split(new RegExp(d)) : null,
	"count": (l) => isArray(l) ? l.length : null,
	"sum": (...a) => { const l = a.length === 1 && isArray(a[0]) ? a[0] : a; return l.every((x) => typeof x === "number") ? l.reduce((p, c) => p + c, 0) : null; },
	"min": (...a) => { const l = a.length === 1 && isArray(a[0]) ? a[0] : a; return l.length ? l.reduce((p, c) => (c < p ? c : p)) : null; },
	"max": (...a) => { const l = a.length === 1 && isArray(a[0]) ? a[0] : a; return l.length ? l.reduce((p, c) => (c > p ? c : p)) : null; },
	"mean": (...a) => { const l = a.length === 1 && isArray(a[0]) ? a[0] : a; return l.length && l.every((x) => typeof x === "number") ? l.reduce((p, c) => p + c, 0) / l.length : null; },
	"list contains": (l, e) => isArray(l) ? l.some((x) => x === e) : null,
	"append": (l, ...items) => isArray(l) ? l.concat(items) : null,
	"concatenate": (...ls) => ls.every(isArray) ? [].concat(...ls) : null,
	"flatten": (l) => isArray(l) ? l.flat(Infinity) : null,
	"distinct values": (l) => isArray(l) ? l.filter((x, i) => l.findIndex((y) => JSON.stringify(y) === JSON.stringify(x)) === i) : null,
	"index of": (l, m) => isArray(l) ? l.map((x, i) => (x === m ? i + 1 : 0)).filter((i) => i > 0) : null,
	"reverse": (l) => isArray(l) ? l.slice().reverse() : null,
	"sublist": (l, start, len) => {
		if (!isArray(l) || typeof start !== "number") return null;
		const from = start > 0 ? start - 1 : l.length + start;
		return len === undefined ? l.slice(from) : l.slice(from, from + len);
	},
	"is empty": (l) => isArray(l) ? l.length === 0 : null,
	"abs": (n) => feelNum(n) === null ? null : Math.abs(n),
	"floor": (n) => feelNum(n) === null ? null : Math.floor(n),
	"ceiling": (n) => feelNum(n) === null ? null : Math.ceil(n),
	"modulo": (a, b) => feelNum(a) === null || feelNum(b) === null || b === 0 ? null : a - b * Math.floor(a / b),
	"sqrt": (n) => feelNum(n) === null || n < 0 ? null : Math.sqrt(n),
	"odd": (n) => feelNum(n) === null ? null : Math.abs(n % 2) === 1,
	"even": (n) => feelNum(n) === null ? null : n % 2 === 0,
	"decimal": (n, s) => feelNum(n) === null ? null : Number(n.toFixed(s)),
	"is defined": (x) => x !== undefined,
})});
Object.defineProperty(g, "` + emptyFunc + `", {value: function empty(v) {
	return v == null || v === "" || (isArray(v) ? v.length === 0 : typeof v === "object" && keys(v).length === 0);
}});
Object.defineProperty(g, "console", {value: console});
// Frozen prototypes make "obj.toString = f" fail (the override mistake);
// turn the commonly assigned ones into accessors that define an own property.
const tame = (o, k) => {
	const d = Object.getOwnPropertyDescriptor(o, k);
	if (!d || !("value" in d)) return;
	const value = d.value;
	Object.defineProperty(o, k, {
		get() { return value; },
		set(v) {
			if (this === o) throw new TypeError("Cannot assign to read only property '" + k + "' of a sandbox intrinsic");
			Object.defineProperty(this, k, {value: v, writable: true, enumerable: true, configurable: true});
		},
		enumerable: d.enumerable, configurable: false,
	});
};
for (const k of ["constructor", "toString", "valueOf", "toLocaleString", "hasOwnProperty"]) tame(Object.prototype, k);
for (const E of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError])
	for (const k of ["name", "message", "constructor", "toString"]) tame(E.prototype, k);
const roots = [g,
	Object.getPrototypeOf(function* () {}), Object.getPrototypeOf(async function () {}),
	Object.getPrototypeOf([][Symbol.iterator]()), Object.getPrototypeOf(""[Symbol.iterator]()),
	Object.getPrototypeOf(new Map()[Symbol.iterator]()), Object.getPrototypeOf(new Set()[Symbol.iterator]()),
	Object.getPrototypeOf(/x/[Symbol.matchAll]("")), Object.getPrototypeOf(Int8Array)];
const seen = new Set(), todo = roots;
while (todo.length > 0) {
	const o = todo.pop();
	if (o === null || o === undefined || (typeof o !== "object" && typeof o !== "function") || seen.has(o)) continue;
	seen.add(o);
	Object.freeze(o);
	todo.push(Object.getPrototypeOf(o));
	for (const k of Reflect.ownKeys(o)) {
		const d = Reflect.getOwnPropertyDescriptor(o, k);
		if (d) todo.push(d.value, d.get, d.set);
	}
}
})`

// sandboxGlobals lists the global names of a locked-down runtime; they are
// never turned into parameters, so builtins cannot be shadowed by variables.
var sandboxGlobals = sync.OnceValue(func() map[string]bool {
	cfg := Config{}.WithDefaults()
	r, err := newRunner(&cfg)
	if err != nil {
		panic(err) // the lockdown script is a constant; tests cover it
	}
	names := map[string]bool{}
	for _, k := range r.vm.GlobalObject().GetOwnPropertyNames() {
		names[k] = true
	}
	return names
})
