package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// A validation step (job type model.ValidateJobType) checks data against a
// JSON Schema and rules. Every format gives it these parameters:
//
//	schema  a JSON Schema (an object, a boolean, or its JSON text); draft
//	        2020-12 unless its $schema names draft-07 (or another draft)
//	mode    strict (the default): a violation throws the BPMN error
//	        VALIDATION_FAILED listing them all; warn: the step completes and
//	        a validation.warned event records them
//	target  an expression giving the data to check; empty: all the variables
//	rules   a list of {expression, message}: expressions over the variables
//	        that must hold
//
// The parameters are read as written, not rendered as templates: a schema
// and its rules are fixed by the definition, so they are compiled once per
// deployed node (and checked at deploy, naming the element). Either way the
// violations, each {path (a JSON pointer into the data), message, and rule
// for a rule}, go to the variable ValidationErrorsVariable: empty when the
// data is valid.
const ValidationErrorsVariable = "validationErrors"

// Validation modes.
const (
	ValidationStrict = "strict"
	ValidationWarn   = "warn"
)

// validation is a validation step's parameters, compiled.
type validation struct {
	schema *jsonschema.Schema // nil: only rules
	warn   bool
	target *script.Program // nil: all the variables
	rules  []validationRule
}

type validationRule struct {
	expression, message string
	prog                *script.Program
}

const validationSchemaURL = "https://workflowpp.dev/schema/validation-step.json"

// compileValidation compiles a validation step's parameters; the errors say
// what is wrong with each.
func compileValidation(params map[string]any) (*validation, []error) {
	var (
		v    validation
		errs []error
	)
	for k := range params {
		switch k {
		case "schema", "mode", "target", "rules":
		default:
			errs = append(errs, fmt.Errorf("parameter %q is not a setting of a validation step: use schema, mode, target and rules", k))
		}
	}
	if params["schema"] == nil && params["rules"] == nil {
		errs = append(errs, errors.New("the validation step checks nothing: give it a schema or rules"))
	}
	if s, ok := params["schema"]; ok && s != nil {
		sch, err := compileSchema(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("schema: %w", err))
		}
		v.schema = sch
	}
	switch mode, _ := params["mode"].(string); mode {
	case "", ValidationStrict:
	case ValidationWarn:
		v.warn = true
	default:
		errs = append(errs, fmt.Errorf("mode %v is not a validation mode: use strict or warn", params["mode"]))
	}
	switch target := params["target"].(type) {
	case nil:
	case string:
		if strings.TrimSpace(target) != "" {
			prog, err := compileExpr(target)
			if err != nil {
				errs = append(errs, fmt.Errorf("target %q: %w", target, err))
			}
			v.target = prog
		}
	default:
		errs = append(errs, fmt.Errorf("target is a %T: give an expression (a variable name, say) as text", target))
	}
	rules, err := readRules(params["rules"])
	if err != nil {
		errs = append(errs, err)
	}
	for i, r := range rules {
		prog, err := compileExpr(r.expression)
		if err != nil {
			errs = append(errs, fmt.Errorf("rules[%d] %q: %w", i, r.expression, err))
		}
		rules[i].prog = prog
	}
	v.rules = rules
	return &v, errs
}

// readRules reads the rules parameter: a list of {expression, message}.
func readRules(v any) ([]validationRule, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("rules is a %T: give a list of {\"expression\": ..., \"message\": ...}", v)
	}
	rules := make([]validationRule, 0, len(list))
	for i, item := range list {
		m, _ := item.(map[string]any)
		expr, _ := m["expression"].(string)
		msg, _ := m["message"].(string)
		if strings.TrimSpace(expr) == "" {
			return nil, fmt.Errorf("rules[%d] has no expression: give each rule {\"expression\": ..., \"message\": ...}", i)
		}
		rules = append(rules, validationRule{expression: expr, message: msg})
	}
	return rules, nil
}

// compileSchema compiles a JSON Schema given as a decoded value or as JSON
// text. The compiler fetches nothing: $refs resolve inside the schema only.
func compileSchema(s any) (*jsonschema.Schema, error) {
	text, ok := s.(string)
	if !ok {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		text = string(b)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("it is not JSON (%w): write the schema as a JSON object", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(validationSchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(validationSchemaURL)
}

// noLoader refuses every schema a $ref names outside the step's own: a
// deploy must not reach out to the network or the disk.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s: only references inside the schema (#/$defs/...) are read", url)
}

// validationProblems checks the validation steps of a definition at deploy.
func validationProblems(def *model.Definition) model.Problems {
	var probs model.Problems
	for _, p := range def.Processes {
		for _, n := range p.AllNodes {
			if n.Job.Type != model.ValidateJobType {
				continue
			}
			_, errs := compileValidation(n.Job.Parameters)
			for _, err := range errs {
				probs.Add(n.ID, "validation step: %v", err)
			}
		}
	}
	return probs
}

// validationHandler runs validation steps, with their compiled parameters
// kept per deployed node.
type validationHandler struct {
	compiled sync.Map // *model.Node -> *validation
}

func (h *validationHandler) Handle(ctx context.Context, job *Job) (map[string]any, error) {
	if job.run == nil {
		return nil, Permanent(fmt.Errorf("validation step %q: only the engine runs validation steps", job.ElementID))
	}
	v, err := h.validation(job.run.node)
	if err != nil {
		return nil, Permanent(fmt.Errorf("validation step %q: %w", job.ElementID, err))
	}
	scope := job.Variables
	if job.run.readModel {
		scope = readModelScope(job.Variables)
	}
	violations, err := v.check(ctx, job.eng.eval, scope)
	if err != nil {
		return nil, fmt.Errorf("validation step %q: %w", job.ElementID, err)
	}
	list := make([]any, len(violations))
	lines := make([]string, len(violations))
	for i, vi := range violations {
		list[i], lines[i] = vi.value(), vi.String()
	}
	out := map[string]any{ValidationErrorsVariable: list}
	if len(violations) == 0 || v.warn {
		return out, nil
	}
	return nil, &BPMNError{
		Code:      model.ValidationFailedCode,
		Message:   fmt.Sprintf("%d violation(s): %s", len(violations), strings.Join(lines, "; ")),
		Variables: out,
	}
}

func (h *validationHandler) validation(n *model.Node) (*validation, error) {
	if v, ok := h.compiled.Load(n); ok {
		return v.(*validation), nil
	}
	v, errs := compileValidation(n.Job.Parameters)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	h.compiled.Store(n, v)
	return v, nil
}

// violation is one thing wrong with the data: where (a JSON pointer into
// it, "" for the whole), what, and the rule that found it, if a rule did.
type violation struct {
	path, message, rule string
}

// value is the violation as a variable holds it.
func (v violation) value() map[string]any {
	m := map[string]any{"path": v.path, "message": v.message}
	if v.rule != "" {
		m["rule"] = v.rule
	}
	return m
}

func (v violation) String() string {
	if v.rule != "" {
		return "rule " + v.rule + ": " + v.message
	}
	return cmp.Or(v.path, "/") + ": " + v.message
}

var validationPrinter = message.NewPrinter(language.English)

// check returns every violation of the data in scope: the schema's, then
// the rules'. A target or rule that cannot be evaluated (reads a member of
// undefined, say) is a violation too: the data is not what it should be.
func (v *validation) check(ctx context.Context, eval *script.Evaluator, scope map[string]any) ([]violation, error) {
	var violations []violation
	if v.schema != nil {
		var data any = scope
		if v.target != nil {
			var err error
			data, err = eval.Eval(ctx, v.target, scope)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err != nil {
				violations = append(violations, violation{message: fmt.Sprintf("the target could not be evaluated: %v", err)})
			}
		}
		if len(violations) == 0 {
			vs, err := schemaViolations(v.schema, data)
			if err != nil {
				return nil, err
			}
			violations = vs
		}
	}
	for _, r := range v.rules {
		ok, err := eval.EvalBool(ctx, r.prog, scope)
		msg := r.message
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			msg = fmt.Sprintf("%s (the rule could not be evaluated: %v)", cmp.Or(msg, "it does not hold"), err)
		case ok:
			continue
		case msg == "":
			msg = "it does not hold"
		}
		violations = append(violations, violation{message: msg, rule: r.expression})
	}
	return violations, nil
}

// schemaViolations validates data against sch and lists the leaves of the
// failure.
func schemaViolations(sch *jsonschema.Schema, data any) ([]violation, error) {
	// The validator reads JSON values only: variables may hold other Go
	// types (int64 from a script, say), so they go through JSON first.
	b, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("the data is not JSON: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	var ve *jsonschema.ValidationError
	if err := sch.Validate(doc); !errors.As(err, &ve) {
		return nil, err // nil when valid
	}
	var out []violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		for _, c := range e.Causes {
			walk(c)
		}
		if len(e.Causes) == 0 {
			out = append(out, violation{path: jsonPointer(e.InstanceLocation), message: e.ErrorKind.LocalizedString(validationPrinter)})
		}
	}
	walk(ve)
	return out, nil
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// jsonPointer renders an instance location as a JSON pointer (RFC 6901).
func jsonPointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(tok))
	}
	return b.String()
}

// validationWarned records the violations a validation step in warn mode
// went on with, as a validation.warned event in the instance's history.
func (x *instance) validationWarned(t *token, result map[string]any) {
	if list, _ := result[ValidationErrorsVariable].([]any); len(list) > 0 {
		x.emit(EventValidationWarned, t.node, t, map[string]any{"warnings": list})
	}
}
