package model

// cache checks a task's cache policy: it needs a job to cache, a key, a
// positive TTL, a known scope and a condition that compiles.
func (v *validator) cache(n *Node) {
	c := n.Cache
	if n.Kind != KindServiceTask && n.Kind != KindScriptTask {
		v.add(n.ID, "a result cache (cache key, TTL) belongs on a service or script task, whose job it reuses; this is a %s: remove it", n.Kind)
	}
	if c.Key == "" {
		v.add(n.ID, "result cache: the key is empty: give a key template over the variables, e.g. ${customerId}")
	}
	if c.TTL <= 0 {
		v.add(n.ID, "result cache: a TTL is required and must be positive, e.g. PT10M (BPMN) or ttlMs 600000")
	}
	switch c.Scope {
	case "", CacheGlobal, CacheDefinition, CacheInstance:
	default:
		v.add(n.ID, "result cache: scope %q is not one: use global, definition (the default) or instance", c.Scope)
	}
	if c.Condition != "" && v.c.Expression != nil {
		if err := v.c.Expression(c.Condition); err != nil {
			v.add(n.ID, "result cache condition %q: %v", c.Condition, err)
		}
	}
}
