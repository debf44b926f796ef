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
	return model.YAMLValueToJSON(v, MaxDepth, "graph", "write a graph with graphId, nodes and edges")
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
