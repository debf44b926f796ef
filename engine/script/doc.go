// Package script is Workflow++'s one expression and script language:
// JavaScript run by goja in a sandbox. Conditions, input/output mappings,
// ${...} parameter templates, script tasks and rule tasks all use it.
//
// # Dialects
//
// CompileExpression accepts three spellings of an expression, all translated
// to JavaScript by a small tokenizer (never inside string literals):
//
//   - FEEL (Zeebe), when the text starts with "=": =amount > 100,
//     =a = 1 and not(b), =x.y + 2, ="literal", =null, =if a then b else c,
//     =list[1] (1-based), [1, 2], {key: value}, names with spaces
//     (=Service Level = "Premium", =Order Status.Approved By). "=" is
//     equality (strict, except that "= null" also matches a missing
//     variable); '...' strings are read as "..." ones. Rejected with a
//     CompileError naming the construct: for, some/every ... satisfies, in,
//     between, instance of, filters list[cond], ranges a..b, temporal
//     literals @"...", and functions other than the built-ins of
//     feelBuiltins (string length, upper case, substring, contains,
//     string join, count, sum, min, max, list contains, index of, sublist,
//     abs, floor, modulo, is defined and the rest of that list).
//   - JUEL (Camunda 7), when the text is exactly one ${...} (or #{...}):
//     JavaScript plus and or not eq ne lt gt le ge div mod empty; single or
//     double quoted strings. "==" is loose as in EL coercion. Method calls on
//     Camunda beans (execution.getVariable) are not available. A text with
//     several ${...} is a template: use Evaluator.Template.
//   - plain JavaScript otherwise: one expression, no statements.
//
// Paths in FEEL and JUEL are null-safe (a.b reads as a?.b): a missing
// variable or property is undefined, which compares false and equals null.
// In plain JavaScript, reading a property of undefined is a TypeError.
//
// # Variables
//
// The code sees each variable as a name, and all of them as "variables".
// Names of JavaScript globals (Math, JSON, Date...) always mean the builtin;
// such variables are still reachable as variables.Math. Values are copied
// into fresh JavaScript objects for every evaluation (only the variables the
// code references), so nothing the code does reaches the caller's maps.
//
// # Scripts
//
// CompileScript compiles a script task body. It runs as the body of a
// strict-mode function: top-level return works, and otherwise the value of
// the final statement, when it is an expression statement, is the result
// ("({total})" on the last line). Assigning to variables changes only the
// copies; return the outputs (an object is merged into the process
// variables by the engine, or stored in the task's result variable).
// console.log goes to the Evaluator's logger at debug level.
//
// # Results
//
// Results are plain JSON values: map[string]any, []any, string, bool, nil,
// int64 for integral numbers within ±2^53 and float64 otherwise. Dates
// become RFC 3339 strings. Functions, symbols, Map/Set and other non-JSON
// objects, cyclic structures, NaN and infinities are errors (ErrResult);
// undefined is nil at top level, omitted in objects and null in arrays
// (as JSON.stringify does).
//
// # Sandbox
//
// Each runtime is locked down once: no require, no timers, no network, no
// host objects; every intrinsic and the global object are frozen, so no
// evaluation can leave anything for the next (assigning toString,
// constructor, name or message on your own objects still works). Limits:
// a time budget (Config.ConditionTimeout, Config.ScriptTimeout) enforced
// with Runtime.Interrupt by a watchdog timer and by ctx cancellation; a
// call stack cap; caps on input size, output size, nesting depth and string
// length (inputs, results, and repeat/padStart/padEnd/join); and a memory
// budget (Config.MaxMemory, default 64 MiB): the watchdog measures the
// process heap while an evaluation runs and stops one under which the live
// heap grew past the budget with ErrMemory, whatever grew it (plain
// concatenation, arrays, objects, JSON); see memory.go for what that
// measure can and cannot tell. A runaway loop stops between the budget and
// the budget plus 10 ms; runaway recursion and panics inside goja come back
// as errors.
//
// # Performance
//
// Programs are compiled once per text (bounded caches) into a function whose
// parameters are the names the code references. Runtimes are pooled.
// Conditions of the common shape — variable paths compared with literals,
// combined with && || ! — are evaluated directly in Go with JavaScript
// semantics, falling back to goja whenever a value is outside what that
// path models exactly.
package script
