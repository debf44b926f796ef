package model

import (
	"encoding/json"
	"errors"
	"fmt"
)

// YAMLValueToJSON re-encodes a decoded YAML document (what yaml.v3 gives)
// as JSON, so that the JSON and YAML spellings of a format read alike: a
// document nesting deeper than maxDepth, or holding a number JSON cannot
// write, is refused. what names the document ("graph", "workflow") and
// empty says what to write when the document is empty.
func YAMLValueToJSON(v any, maxDepth int, what, empty string) ([]byte, error) {
	if v == nil {
		return nil, errors.New("the document is empty: " + empty)
	}
	v, err := jsonValue(v, 0, maxDepth, what)
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
func jsonValue(v any, level, maxDepth int, what string) (any, error) {
	if level > maxDepth {
		return nil, fmt.Errorf("the %s nests objects and lists more than %d deep: flatten it", what, maxDepth)
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			e, err := jsonValue(e, level+1, maxDepth, what)
			if err != nil {
				return nil, err
			}
			v[k] = e
		}
		return v, nil
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			e, err := jsonValue(e, level+1, maxDepth, what)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = e
		}
		return m, nil
	case []any:
		for i, e := range v {
			e, err := jsonValue(e, level+1, maxDepth, what)
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
