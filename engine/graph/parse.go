package graph

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
	MaxDepth = 64      // nested objects and arrays (sub-flows included)
)

// Parse reads a graph document, JSON when it starts with "{" and YAML
// otherwise, and converts it into a linked, validated Definition. Every
// error it returns is a model.Problems naming the node (or graphId) it is
// about.
func Parse(data []byte) (*model.Definition, error) {
	if len(data) > MaxSize {
		return nil, model.Problems{{Message: fmt.Sprintf("the graph is %d bytes, more than the %d allowed: split it into smaller graphs", len(data), MaxSize)}}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !isJSON(data) {
		var err error
		if data, err = yamlToJSON(data); err != nil {
			return nil, model.Problems{{Message: err.Error()}}
		}
	}
	if d := model.JSONDepth(data); d > MaxDepth {
		return nil, model.Problems{{Message: fmt.Sprintf("the graph nests objects and lists %d deep, more than the %d allowed: flatten it", d, MaxDepth)}}
	}
	var g Graph
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, model.Problems{{Message: jsonMessage(data, err)}}
	}
	if dec.More() {
		return nil, model.Problems{{Message: "not valid JSON: more than one value: give one graph per document"}}
	}
	return Convert(&g)
}

func isJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// yamlToJSON re-encodes a YAML document as JSON, so that both read alike.
func yamlToJSON(data []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if v == nil {
		return nil, errors.New("the document is empty: write a graph with graphId, nodes and edges")
	}
	v, err := jsonValue(v, 0)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the YAML holds a value JSON cannot: %w", err)
	}
	return out, nil
}

// jsonValue turns what yaml.v3 decodes into values encoding/json writes.
func jsonValue(v any, level int) (any, error) {
	if level > MaxDepth {
		return nil, fmt.Errorf("the graph nests objects and lists more than %d deep: flatten it", MaxDepth)
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			e, err := jsonValue(e, level+1)
			if err != nil {
				return nil, err
			}
			v[k] = e
		}
		return v, nil
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			e, err := jsonValue(e, level+1)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = e
		}
		return m, nil
	case []any:
		for i, e := range v {
			e, err := jsonValue(e, level+1)
			if err != nil {
				return nil, err
			}
			v[i] = e
		}
		return v, nil
	case float64:
		if v != v || v > 1e308 || v < -1e308 {
			return nil, fmt.Errorf("the number %v has no JSON form: write it as text", v)
		}
	}
	return v, nil
}

// jsonMessage says what is wrong with JSON that does not decode into a Graph.
func jsonMessage(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := model.Position(data, se.Offset)
		return fmt.Sprintf("not valid JSON at line %d, column %d: %v", line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return typeMessage("", te)
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Sprintf("unknown field %s: remove it or fix its spelling", field)
	}
	return "not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}
