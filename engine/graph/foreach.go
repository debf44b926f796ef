package graph

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// forEach adds the generated script tasks that run a ForEach on plain BPMN:
//
//	edges in ──▶ <id>__init ──▶ <id> (exclusive gateway) ──[index < list.length]──▶ <id>__next ──▶ LoopBody
//	edges from the body ──▶ <id>__advance ──▶ <id>            └─(default)──▶ LoopExit
//
// init evaluates the collection once and keeps it in the variable
// __<id>_items (failing, naming the loop, when it holds more than
// maxIterations items; errorPolicy collect also empties the errors
// variable); next sets the item variable, advance the index variable.
func (c *converter) forEach(sc *scope, st *step) {
	cfg, id, s := st.cfg.(*ForEachConfig), st.g.NodeID, sc.s
	items := "__" + jsName.ReplaceAllString(id, "_") + "_items"
	item, index := cfg.ItemVariable, cfg.IndexVariable

	var coll string
	switch v := cfg.Collection.(type) {
	case string:
		coll = jsVariables(javaScript(v))
	default:
		b, _ := json.Marshal(v)
		coll = string(b)
	}
	limit := ""
	if m := cfg.MaxIterations; m > 0 {
		limit = fmt.Sprintf("\n  if (items.length > %d) throw new Error(%s + items.length + %s);", m,
			quote(fmt.Sprintf("ForEach %q: the collection has ", id)),
			quote(fmt.Sprintf(" items, more than maxIterations (%d): raise maxIterations or walk a shorter list", m)))
	}
	outputs := fmt.Sprintf("%s: items, %s: 0", quote(items), quote(index))
	if cfg.ErrorPolicy == errorsCollect {
		outputs += fmt.Sprintf(", %s: []", quote(cfg.ErrorsVariable))
	}
	init := c.script(s, st, "__init", "start", fmt.Sprintf(`(function (items) {
  if (items === undefined || items === null) items = [];
  if (!Array.isArray(items)) throw new Error(%s);%s
  return {%s};
})(%s)`, quote(fmt.Sprintf("ForEach %q: the collection is not a list", id)), limit, outputs, coll))
	next := c.script(s, st, "__next", "next item", fmt.Sprintf(`({%s: %s[%s]})`, quote(item), items, index))
	advance := c.script(s, st, "__advance", "advance", fmt.Sprintf(`({%s: %s + 1})`, quote(index), index))

	c.b.Connect(s, init.ID, id, "")
	c.b.Connect(s, advance.ID, id, "")
	c.b.Connect(s, id, next.ID, fmt.Sprintf("%s < %s.length", index, items))
	st.entry, st.again, st.from = init.ID, advance.ID, next.ID
}

var jsName = regexp.MustCompile(`[^A-Za-z0-9_$]`)

// quote writes s as a JavaScript string literal.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// body returns the nodeIds reachable from a loop's LoopBody edge without
// passing the loop node: edges from them back to the loop end an iteration.
func body(sc *scope, loop *step) map[string]bool {
	seen := map[string]bool{}
	var walk func(id string)
	walk = func(id string) {
		if id == loop.g.NodeID || seen[id] {
			return
		}
		seen[id] = true
		for _, edges := range sc.byID[id].out {
			for _, e := range edges {
				walk(e.TargetNodeID)
			}
		}
		if to := sc.byID[id].fallback; to != "" {
			walk(to)
		}
	}
	walk(loop.out[LoopBody][0].TargetNodeID)
	return seen
}
