package statemachine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/workflowpp/wfpp/engine/model"
)

// Limits on what Parse reads.
const (
	MaxSize  = 4 << 20 // bytes
	MaxDepth = 64      // nested objects and lists
)

// Is reports whether src is a state-machine document: JSON or YAML whose
// top-level type is state_machine. Deployment uses it to pick this format.
func Is(src []byte) bool {
	data, err := toJSON(src)
	if err != nil {
		return false
	}
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(data, &head) == nil && head.Type == TypeStateMachine
}

// Parse reads a state-machine document, JSON when it starts with "{" and
// YAML otherwise, and converts it into a linked, validated Definition.
// Every error it returns is a model.Problems naming the state (or the
// workflow) it is about.
func Parse(src []byte) (*model.Definition, error) {
	if len(src) > MaxSize {
		return nil, model.Problems{{Message: fmt.Sprintf("the state machine is %d bytes, more than the %d allowed: split it up", len(src), MaxSize)}}
	}
	data, err := toJSON(src)
	if err != nil {
		return nil, model.Problems{{Message: err.Error()}}
	}
	if d := model.JSONDepth(data); d > MaxDepth {
		return nil, model.Problems{{Message: fmt.Sprintf("the state machine nests objects and lists %d deep, more than the %d allowed: flatten it", d, MaxDepth)}}
	}
	var wf Workflow
	if err := strict(data, &wf); err != nil {
		return nil, model.Problems{{Message: decodeMessage(err)}}
	}
	return Convert(&wf)
}

// toJSON returns JSON as it is and re-encodes YAML as JSON, keeping the
// order of mappings (the order of a map of states is the order of the
// diagram).
func toJSON(src []byte) ([]byte, error) {
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimLeft(src, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return src, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("the document is empty: write a state machine with workflow_id, type: state_machine, initial_state and states")
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, doc.Content[0], 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, n *yaml.Node, level int) error {
	if level > MaxDepth {
		return fmt.Errorf("the state machine nests objects and lists more than %d deep: flatten it", MaxDepth)
	}
	if buf.Len() > MaxSize { // aliases can repeat a part of the document without end
		return fmt.Errorf("the state machine is more than %d bytes as JSON: use fewer YAML aliases", MaxSize)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return writeJSON(buf, n.Alias, level+1)
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				buf.WriteByte(',')
			}
			key, _ := json.Marshal(n.Content[i].Value)
			buf.Write(key)
			buf.WriteByte(':')
			if err := writeJSON(buf, n.Content[i+1], level+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, e := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, e, level+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		out, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("line %d: the YAML holds a value JSON cannot: write it as text", n.Line)
		}
		buf.Write(out)
	}
	return nil
}

// decodeMessage says what is wrong with a document that does not decode.
func decodeMessage(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not valid JSON: %v", se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s must be %s, not %s", te.Field, te.Type, te.Value)
	}
	msg := err.Error()
	if i := strings.Index(msg, "json: unknown field "); i >= 0 {
		return msg[:i] + "unknown field " + msg[i+len("json: unknown field "):] + ": remove it or fix its spelling"
	}
	return strings.ReplaceAll(msg, "json: ", "")
}
