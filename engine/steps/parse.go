package steps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/workflowpp/wfpp/engine/model"
)

// Limits on what Parse reads.
const (
	MaxSize  = 4 << 20 // bytes
	MaxDepth = 64      // nested objects and lists
)

// Parse reads a steps document, JSON when it starts with "{" and YAML
// otherwise, and converts it into a linked, validated Definition. Every
// error it returns is a model.Problems naming the step (or the workflow_id)
// it is about.
func Parse(data []byte) (*model.Definition, error) {
	data, err := normalize(data)
	if err != nil {
		return nil, model.Problems{{Message: err.Error()}}
	}
	var head struct {
		WorkflowID any `json:"workflow_id"`
		ID         any `json:"id"`
		Type       any `json:"type"`
	}
	_ = json.Unmarshal(data, &head) // read before the fields a state machine has and a steps workflow has not
	if typ, _ := head.Type.(string); strings.EqualFold(typ, StateMachineType) {
		return nil, model.Problems{{ElementID: fmt.Sprint(cmpOr(head.WorkflowID, head.ID)), Message: "a type: state_machine workflow is not a steps workflow: it is read as a state machine (engine/statemachine), not by the steps format"}}
	}
	var w Workflow
	if err := decode(data, &w); err != nil {
		return nil, model.Problems{{Message: err.Error()}}
	}
	if w.Type != "" {
		return nil, model.Problems{{ElementID: cmpOr(w.WorkflowID, w.ID), Message: fmt.Sprintf("type %q is not a workflow type: remove it (a steps workflow), or write state_machine", w.Type)}}
	}
	list, probs := stepList(w.Steps)
	if len(probs) > 0 {
		return nil, probs
	}
	if w.StartStep == "" && bytes.HasPrefix(bytes.TrimSpace(w.Steps), []byte("{")) {
		return nil, model.Problems{{ElementID: cmpOr(w.WorkflowID, w.ID), Message: "steps is a map, which has no order, and start_step is not set: name the step that runs first"}}
	}
	return Convert(&w, list)
}

// Detect reports whether a JSON or YAML document is a steps workflow (it
// has steps at the top level) or a state machine (type state_machine), so
// that a deployment can pick the format.
func Detect(data []byte) bool {
	data, err := normalize(data)
	if err != nil {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	var typ string
	_ = json.Unmarshal(top["type"], &typ)
	_, hasSteps := top["steps"]
	return hasSteps || strings.EqualFold(typ, StateMachineType)
}

// normalize checks the size and returns the document as JSON.
func normalize(data []byte) ([]byte, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("the workflow is %d bytes, more than the %d allowed: split it into sub-workflows", len(data), MaxSize)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		var err error
		if data, err = yamlToJSON(data); err != nil {
			return nil, err
		}
	}
	if d := model.JSONDepth(data); d > MaxDepth {
		return nil, fmt.Errorf("the workflow nests objects and lists %d deep, more than the %d allowed: flatten it", d, MaxDepth)
	}
	return data, nil
}

// decode reads JSON into v, refusing unknown fields (they are usually typos).
func decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		return errors.New("not valid JSON: more than one value: give one workflow per document")
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		line, col := model.Position(data, se.Offset)
		return fmt.Errorf("not valid JSON at line %d, column %d: %w", line, col, se)
	case errors.As(err, &te):
		return fmt.Errorf("%s is %s, which does not fit: write a %s", cmpOr(te.Field, "the document"), te.Value, typeName(te.Type.Kind().String()))
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s: remove it or fix its spelling", field)
	}
	return fmt.Errorf("not valid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
}

func typeName(kind string) string {
	switch kind {
	case "slice":
		return "list"
	case "map", "struct", "ptr":
		return "object"
	case "int", "int64", "float64":
		return "number"
	}
	return kind
}

// stepList reads steps, a list of steps or a map of steps by id, each
// problem naming its step.
func stepList(raw json.RawMessage) ([]*Step, model.Problems) {
	var probs model.Problems
	if len(raw) == 0 || string(raw) == "null" {
		probs.Add("", "the workflow has no steps: add at least one")
		return nil, probs
	}
	type entry struct {
		key string // the map key; "" in a list
		raw json.RawMessage
	}
	var entries []entry
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for _, r := range list {
			entries = append(entries, entry{raw: r})
		}
	} else {
		byID := map[string]json.RawMessage{}
		if err := json.Unmarshal(raw, &byID); err != nil {
			probs.Add("", "steps is neither a list of steps nor a map of steps by id: write one of them")
			return nil, probs
		}
		for id, r := range byID {
			entries = append(entries, entry{key: id, raw: r})
		}
		// a map has no order: steps are sorted by id (for the order of
		// problems), and start_step says where to begin
		sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	}
	var out []*Step
	for i, e := range entries {
		var head struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(e.raw, &head)
		name := cmpOr(e.key, fmt.Sprintf("steps[%d]", i))
		if s, ok := head.ID.(string); ok && s != "" && e.key == "" {
			name = s
		}
		var st Step
		if err := decode(e.raw, &st); err != nil {
			probs.Add(name, "%v", err)
			continue
		}
		if e.key != "" {
			if st.ID != "" && st.ID != e.key {
				probs.Add(e.key, "id %q differs from its key in steps: keep one", st.ID)
			}
			st.ID = e.key
		}
		if st.ID == "" {
			probs.Add("", "steps[%d] has no id: give it one", i)
			continue
		}
		out = append(out, &st)
	}
	if len(out) == 0 && len(probs) == 0 {
		probs.Add("", "the workflow has no steps: add at least one")
	}
	return out, probs
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// yamlToJSON re-encodes a YAML document as JSON, so that both read alike.
func yamlToJSON(data []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return model.YAMLValueToJSON(v, MaxDepth, "workflow", "write a workflow with workflow_id and steps")
}
