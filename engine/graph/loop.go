package graph

import (
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// while adds, for a While with maxIterations, the generated script tasks
// that count its iterations:
//
//	edges in ──▶ <id>__init ──▶ <id> ──[condition]──▶ <id>__count ──▶ LoopBody
//	edges from the body ──────▶ <id>
//
// init sets the variable __<id>_iterations to 0; count adds one and fails
// the loop, naming it, when the body would run more than maxIterations
// times.
func (c *converter) while(sc *scope, st *step) {
	cfg, id, s := st.cfg.(*WhileConfig), st.g.NodeID, sc.s
	if cfg.MaxIterations == 0 {
		return
	}
	counter := "__" + jsName.ReplaceAllString(id, "_") + "_iterations"
	init := c.script(s, st, "__init", "start", fmt.Sprintf(`({%s: 0})`, quote(counter)))
	count := c.script(s, st, "__count", "count", fmt.Sprintf(`(function (n) {
  if (n > %d) throw new Error(%s);
  return {%s: n};
})(%s + 1)`, cfg.MaxIterations, quote(fmt.Sprintf("While %q: its body would run more than maxIterations (%d) times: raise maxIterations or make the condition end the loop", id, cfg.MaxIterations)), quote(counter), counter))
	c.b.Connect(s, init.ID, id, "")
	st.entry, st.again, st.from = init.ID, id, count.ID
}

// script adds a generated script task of a loop. It fails at once, without
// retries: it computes from variables, so a second attempt fails alike.
func (c *converter) script(s *model.Scope, st *step, suffix, name, source string) *model.Node {
	n := c.b.Generate(s, st.g.NodeID+suffix, model.KindScriptTask)
	n.Name = fmt.Sprintf("%s: %s", st.node.Label(), name)
	n.Script = model.Script{Format: "javascript", Source: source}
	n.Retry.Retries = model.NoRetries
	return n
}

// loopReturns finds the paths that end inside a loop body and go back to
// the loop instead: in the Execution Engine's example a ForEach's body is
// one Task without an edge back, and every item is processed all the same.
// A body that has an edge back to its loop says where iterations end, and
// its paths that end, end (as they always did); one without such an edge
// returns from every path that ends, to the loop around it nearest. The
// result maps each such nodeId to where it returns.
func loopReturns(sc *scope) map[string]string {
	var loops []*step
	for _, st := range sc.steps {
		if st.body != nil {
			loops = append(loops, st)
		}
	}
	// innermost first: a nested loop's body is part of the outer one's
	slices.SortStableFunc(loops, func(a, b *step) int { return len(a.body) - len(b.body) })
	returns := map[string]string{}
	decided := map[string]bool{}
	for _, loop := range loops {
		explicit := slices.ContainsFunc(sc.edges, func(e edge) bool {
			return e.TargetNodeID == loop.g.NodeID && loop.body[e.SourceNodeID]
		})
		for id := range loop.body {
			if decided[id] {
				continue
			}
			decided[id] = true
			if !explicit {
				returns[id] = loop.g.NodeID
				if loop.again != "" {
					returns[id] = loop.again
				}
			}
		}
	}
	return returns
}

// split connects node from, a step's exit or its OnFail boundary, to its
// branches (model.Builder.Split). Inside a loop body whose paths return to
// the loop, a path that would end returns instead: with no branches, and
// by the default flow of a split whose branches all have conditions.
func (c *converter) split(sc *scope, stepID, from string, branches []model.Branch) string {
	back := sc.returns[stepID]
	if back == "" {
		return c.b.Split(sc.s, from, branches)
	}
	if len(branches) == 0 {
		c.b.Connect(sc.s, from, back, "")
		return back
	}
	exit := c.b.Split(sc.s, from, branches)
	if slices.ContainsFunc(branches, func(b model.Branch) bool { return b.Condition == "" }) {
		return exit // one branch is always taken: the split has no default
	}
	split := sc.s.Nodes[slices.IndexFunc(sc.s.Nodes, func(n *model.Node) bool { return n.ID == exit })]
	def := sc.s.Flows[slices.IndexFunc(sc.s.Flows, func(f *model.Flow) bool { return f.ID == split.DefaultID })]
	end := def.TargetID
	def.TargetID = back
	sc.s.Nodes = slices.DeleteFunc(sc.s.Nodes, func(n *model.Node) bool { return n.ID == end })
	return exit
}
