package bpmn

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// extensions reads the vendor extensions of element e into node n: Camunda 7
// first, then Zeebe, then ours, each one overriding what the one before set,
// so that wf: wins over zeebe: and zeebe: over camunda:.
func (c *converter) extensions(n *model.Node, e *element) {
	x := &extension{c: c, n: n, e: e}
	x.camunda()
	x.zeebe()
	x.wf()
	if n.Job.Type == "" {
		// Work only another engine can do, and no job type to do it instead.
		c.probs = append(c.probs, x.needJobType...)
	}
}

// extension is the reading of one node's extensions.
type extension struct {
	c *converter
	n *model.Node
	e *element
	// needJobType holds problems that stand only when no dialect gives the
	// node a job type, e.g. a Java delegate next to a wf:type.
	needJobType model.Problems
	// validation holds a validation step's settings (validation.go).
	validation map[string]any
}

func (x *extension) problem(format string, args ...any) { x.c.probs.Add(x.n.ID, format, args...) }

// set overwrites *dst with v when v is not empty.
func set(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// setList overwrites *dst with the list v when v is not empty.
func setList(dst *[]string, v string) {
	if l := splitList(v); len(l) > 0 {
		*dst = l
	}
}

// splitList splits a comma-separated list, trimming each item. A value that
// is one expression (=expr or ${expr}) stays one item: it yields the list
// when evaluated, and may contain commas itself.
func splitList(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if strings.HasPrefix(v, "=") || strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") && strings.Count(v, "${") == 1 {
		return []string{v}
	}
	var l []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			l = append(l, s)
		}
	}
	return l
}

// mergeHeaders adds h to the node's job headers, replacing keys already there.
// DecisionJobType is the job type of a business rule task that calls a DMN
// decision: Workflow++ evaluates no DMN itself, so a handler registered for
// it or an external worker does, told the decision by the job's headers
// decisionId and resultVariable, and returns {resultVariable: result}.
const DecisionJobType = "decision"

// decision makes the node's work the DMN decision id, a job of
// DecisionJobType unless another dialect names a type.
func (x *extension) decision(id, resultVariable string) {
	if x.n.Job.Type == "" {
		x.n.Job.Type = DecisionJobType
	}
	x.mergeHeaders(map[string]string{"decisionId": id, "resultVariable": resultVariable})
}

func (x *extension) mergeHeaders(h map[string]string) {
	if len(h) == 0 {
		return
	}
	if x.n.Job.Headers == nil {
		x.n.Job.Headers = map[string]string{}
	}
	for k, v := range h {
		x.n.Job.Headers[k] = v
	}
}

// resultVariable stores where the result of a script (or of a rule) goes.
func (x *extension) resultVariable(v string) {
	if v == "" {
		return
	}
	if x.n.Kind == model.KindScriptTask {
		x.n.Script.ResultVariable = v
		return
	}
	// The model has a result variable for scripts only; keep it visible.
	if x.n.Attrs == nil {
		x.n.Attrs = map[string]string{}
	}
	x.n.Attrs["resultVariable"] = v
}

// attempts reads a total attempt count (Zeebe's and Camunda's "retries").
func (x *extension) attempts(attr, v string) {
	if v == "" {
		return
	}
	a, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || a < 0 {
		x.problem("%s %q is not a whole number of attempts: write e.g. 3", attr, v)
		return
	}
	x.n.Retry.Retries = model.RetriesFromAttempts(a)
}

// literal returns the mapping source for a value that may be an expression:
// expressions as they are, anything else quoted as a JavaScript string, so
// that Mapping.Source is always an expression.
func literal(v string, isExpr bool) string {
	if isExpr {
		return v
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
