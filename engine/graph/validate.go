package graph

import "github.com/workflowpp/wfpp/engine/model"

// validate makes a Validate step a service task of the validation job
// type, its configuration the job's parameters. The engine checks them at
// deploy (a schema that does not compile is refused there, naming the node).
func validate(n *model.Node, cfg *ValidateConfig) {
	params := map[string]any{}
	if cfg.Schema != nil {
		params["schema"] = cfg.Schema
	}
	if cfg.Mode != "" {
		params["mode"] = cfg.Mode
	}
	if cfg.Target != "" {
		params["target"] = cfg.Target
	}
	if len(cfg.Rules) > 0 {
		rules := make([]any, len(cfg.Rules))
		for i, r := range cfg.Rules {
			rules[i] = map[string]any{"expression": r.Expression, "message": r.Message}
		}
		params["rules"] = rules
	}
	n.Kind = model.KindServiceTask
	n.Job = model.Job{Type: model.ValidateJobType, Parameters: params}
}
