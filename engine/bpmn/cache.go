package bpmn

import (
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// A task's result cache (model.CachePolicy): wf:cacheKey, a template over
// the variables (${...}), turns it on; wf:cacheTtl (ISO-8601, required),
// wf:cacheCondition (an expression; none: always) and wf:cacheScope
// (global, definition, instance) tune it and need it.

// cacheKey reads wf:cacheKey.
func (x *extension) cacheKey(v string) {
	if strings.TrimSpace(v) == "" {
		x.problem("wf:cacheKey is empty: give a key template over the variables, e.g. ${customerId}, or remove it")
		return
	}
	x.cachePolicy().Key = v
}

// cachePolicy is the node's policy, made on first use.
func (x *extension) cachePolicy() *model.CachePolicy {
	if x.n.Cache == nil {
		x.n.Cache = &model.CachePolicy{}
	}
	return x.n.Cache
}

// cacheTuned returns the policy an attribute tunes, or nil (reported) when
// the task has no cache key for it to tune.
func (x *extension) cacheTuned(attr string) *model.CachePolicy {
	if strings.TrimSpace(x.e.attr(nsWF, "cacheKey")) == "" {
		x.problem("%s tunes a result cache, and the task has none: set wf:cacheKey (e.g. ${customerId}) or remove %s", attr, attr)
		return nil
	}
	return x.cachePolicy()
}

// cacheScope reads wf:cacheScope.
func (x *extension) cacheScope(v string) {
	c := x.cacheTuned("wf:cacheScope")
	if c == nil {
		return
	}
	switch v = strings.TrimSpace(v); v {
	case model.CacheGlobal, model.CacheDefinition, model.CacheInstance:
		c.Scope = v
	default:
		x.problem("wf:cacheScope %q is not a scope: write global, definition (the default) or instance", v)
	}
}
