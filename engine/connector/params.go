package connector

import (
	"fmt"
	"strconv"

	"github.com/workflowpp/wfpp/engine"
)

// params are a job's parameters: the task's rendered parameters (JSON
// DAG, graphs), or else its variables (BPMN input mappings), as for the
// engine's http handler.
func params(job *engine.Job) map[string]any {
	if len(job.Parameters) > 0 {
		return job.Parameters
	}
	return job.Variables
}

// text reads parameter key, or the first of its aliases that is set, as
// text: numbers and booleans are written as JSON writes them.
func text(p map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := textOf(p[k]); s != "" {
			return s
		}
	}
	return ""
}

func textOf(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}

// required reads a parameter that must be set, or fails the task for good.
func required(p map[string]any, keys ...string) (string, error) {
	if s := text(p, keys...); s != "" {
		return s, nil
	}
	name := keys[0]
	if len(keys) > 1 {
		name += " (or " + keys[1] + ")"
	}
	return "", engine.Permanent(fmt.Errorf("parameter %s is required", name))
}
