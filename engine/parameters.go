package engine

import (
	"context"
	"fmt"
	"strconv"

	"github.com/workflowpp/wfpp/engine/dag"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// jobParameters renders the parameters of j's node for this attempt (they
// are rendered again for every attempt): ${...} templates, and in a JSON
// DAG {{ }} templates over the read model. A template that fails fails the
// job for good, naming the parameter and the node.
func (e *Engine) jobParameters(ctx context.Context, j *jobRun) (map[string]any, error) {
	params := j.node.Job.Parameters
	if len(params) == 0 || j.node.Job.Type == model.ValidateJobType {
		return nil, nil // a validation step reads its parameters as written (validation.go)
	}
	f := filler{e: e, ctx: ctx, node: j.node.ID, vars: j.vars}
	if j.readModel {
		f.scope = readModelScope(j.vars)
	}
	out, err := f.object("", params)
	if err != nil {
		return nil, Permanent(err)
	}
	return out, nil
}

// filler renders the parameters of a node; scope, when set, is the read
// model {{ }} templates see.
type filler struct {
	e     *Engine
	ctx   context.Context
	node  string
	vars  map[string]any
	scope map[string]any
}

func (f *filler) object(path string, params map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(params))
	for k, v := range params {
		p := k
		if path != "" {
			p = path + "." + k
		}
		filled, err := f.value(p, v)
		if err != nil {
			return nil, err
		}
		out[k] = filled
	}
	return out, nil
}

func (f *filler) value(path string, v any) (any, error) {
	switch v := v.(type) {
	case string:
		var (
			out any
			err error
		)
		if f.scope != nil && dag.IsTemplate(v) {
			out, err = f.render(v)
		} else {
			out, err = f.e.eval.Template(f.ctx, v, f.vars)
		}
		if err != nil {
			return nil, fmt.Errorf("parameter %q of %q: %w", path, f.node, err)
		}
		return out, nil
	case map[string]any:
		return f.object(path, v)
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			filled, err := f.value(path+"["+strconv.Itoa(i)+"]", item)
			if err != nil {
				return nil, err
			}
			out[i] = filled
		}
		return out, nil
	}
	return v, nil
}

// render renders a {{ }} template over the read model.
func (f *filler) render(text string) (any, error) {
	t, err := dag.ParseTemplate(text)
	if err != nil {
		return nil, err
	}
	return t.Render(func(p *script.Program) (any, error) { return f.e.eval.Eval(f.ctx, p, f.scope) })
}
