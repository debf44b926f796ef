package graph

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// Convert turns a Graph into a linked, validated Definition, or returns the
// model.Problems found, each naming a nodeId (or the graphId).
func Convert(g *Graph) (*model.Definition, error) {
	c := &converter{ids: map[string]string{}}
	if g.GraphID == "" {
		c.probs.Add("", "the graph has no graphId: give it one")
		return nil, c.probs
	}
	c.b = model.NewBuilder(g.GraphID, g.Name)
	p := c.b.Process()
	root := c.collect(&p.Scope, g.GraphID, g.StartNodeID, g.Nodes, g.Edges)
	root.top = true
	p.Limits = c.limits(g)
	triggers, probs := model.ChainTriggers(g.GraphID, g.Triggers)
	p.Triggers = triggers
	c.probs = append(c.probs, probs...)
	if len(c.probs) == 0 {
		c.build(root)
	}
	if len(c.probs) > 0 {
		return nil, c.probs
	}
	if probs := p.Link(); len(probs) > 0 {
		return nil, probs
	}
	def := &model.Definition{
		Key:       g.GraphID,
		Name:      g.Name,
		Format:    model.FormatGraph,
		Processes: []*model.Process{p},
		Variables: g.DefaultVariables,
	}
	if probs := model.Validate(def, model.Checks{}); len(probs) > 0 {
		return nil, probs
	}
	return def, nil
}

type converter struct {
	b     *model.Builder
	probs model.Problems
	ids   map[string]string // nodeId -> the id of the (sub-)graph it is in
}

// scope is one graph or inline sub-graph being converted.
type scope struct {
	s       *model.Scope
	owner   string // graphId, or the Subflow's nodeId
	startID string
	steps   []*step
	byID    map[string]*step
	edges   []edge
	subs    []*scope
	top     bool // the graph itself, not a Subflow's

	returns map[string]string // nodeId -> where a path that ends there goes back to its loop (see loopReturns)
	plain   string            // where a plain start leaves from: the none start event or its fork
	timers  []*step           // scheduled Timers a plain start passes as if they had fired
}

// step is one graph node and the model nodes it became.
type step struct {
	g    *Node
	typ  string
	node *model.Node
	cfg  any
	out  map[string][]edge // by edge type

	entry string          // where edges into the step go
	again string          // ForEach, While with maxIterations: where edges from its body go
	from  string          // ForEach, While with maxIterations: where the LoopBody leaves from
	body  map[string]bool // While, ForEach: the nodeIds of its body

	refused  bool   // C# or PowerShell: reported, not converted
	exit     string // where the step's OnComplete branches leave from (see model.Builder.Split)
	fallback string // Task: the nodeId its fallback flow leads to
	queue    *edge  // the edge that set the Task's maxRetries or visibilityTimeout
}

type edge struct {
	*Edge
	index int
	typ   string
	attrs map[string]string // sourcePort, targetPort
}

func (e edge) String() string {
	return fmt.Sprintf("edges[%d] (%s -> %s)", e.index, e.SourceNodeID, e.TargetNodeID)
}

// collect adds the nodes of a graph (and, recursively, of its sub-graphs)
// and checks its edges; build wires them once every nodeId is known.
func (c *converter) collect(s *model.Scope, owner, startID string, nodes []Node, edges []Edge) *scope {
	sc := &scope{s: s, owner: owner, startID: startID, byID: map[string]*step{}}
	if len(nodes) == 0 {
		c.probs.Add(owner, "the graph has no nodes: add at least one")
	}
	for i := range nodes {
		n := &nodes[i]
		typ, ok := canonical(n.Type, nodeTypes)
		if _, foreign := canonical(n.Type, foreignTypes); foreign {
			typ, ok = TypeTask, true // refused below; a Task meanwhile, so that its edges are checked
		}
		switch {
		case n.NodeID == "":
			c.probs.Add(owner, "nodes[%d] has no nodeId: give it one", i)
			continue
		case c.ids[n.NodeID] != "":
			c.probs.Add(n.NodeID, "nodeId is used more than once: nodeIds must be unique, sub-flows included")
			continue
		case !ok:
			c.probs.Add(n.NodeID, "type %q is not a node type: use one of %s", n.Type, strings.Join(nodeTypes, ", "))
			continue
		case n.Name != "" && n.NodeName != "" && n.Name != n.NodeName:
			c.probs.Add(n.NodeID, "name %q and nodeName %q differ: keep one", n.Name, n.NodeName)
		}
		c.ids[n.NodeID] = owner
		st := &step{g: n, typ: typ, out: map[string][]edge{}, entry: n.NodeID, refused: c.foreign(n)}
		st.node = c.b.Add(s, &model.Node{
			ID:            n.NodeID,
			Name:          cmp.Or(n.Name, n.NodeName),
			Documentation: n.Description,
			Attrs:         map[string]string{"type": typ},
		})
		sc.steps = append(sc.steps, st)
		sc.byID[n.NodeID] = st
	}
	// Sub-graphs after this graph's nodes, so that ids are known in order.
	for _, st := range sc.steps {
		if st.refused {
			continue
		}
		if sub := c.configure(st); sub != nil {
			sc.subs = append(sc.subs, sub)
		}
	}
	for i := range edges {
		c.edge(sc, edge{Edge: &edges[i], index: i})
	}
	for _, st := range sc.steps {
		c.arity(st)
		c.portRouting(st)
		c.fallback(sc, st)
	}
	return sc
}

func (c *converter) edge(sc *scope, e edge) {
	typ, both, ok := c.edgeType(sc, e)
	if !ok {
		return
	}
	e.typ = typ
	e.attrs = c.ports(sc, e)
	src, dst := sc.byID[e.SourceNodeID], sc.byID[e.TargetNodeID]
	for _, end := range []struct {
		what, id string
		st       *step
	}{{"sourceNodeId", e.SourceNodeID, src}, {"targetNodeId", e.TargetNodeID, dst}} {
		switch {
		case end.st != nil:
		case end.id == "":
			c.probs.Add(sc.owner, "%s has no %s: name a node", e, end.what)
		case c.ids[end.id] != "":
			c.probs.Add(sc.owner, "%s: %s %q is inside another (sub-)graph: edges cannot cross into or out of a Subflow", e, end.what, end.id)
		default:
			c.probs.Add(sc.owner, "%s: %s %q is not a node", e, end.what, end.id)
		}
	}
	if src == nil || dst == nil {
		return
	}
	if !slices.Contains(edgesFrom[src.typ], typ) {
		c.probs.Add(src.g.NodeID, "%s: a %s edge cannot leave a %s: use %s", e, typ, src.typ, strings.Join(edgesFrom[src.typ], " or "))
		return
	}
	if both && !slices.Contains(edgesFrom[src.typ], OnFail) {
		c.probs.Add(src.g.NodeID, "%s: messageType All is taken on failure too, and a %s does not fail: use Complete", e, src.typ)
		return
	}
	if e.Case != nil && typ != SwitchCase {
		c.probs.Add(src.g.NodeID, "%s: only SwitchCase edges have a case: remove it", e)
	}
	if e.Condition != "" {
		switch {
		case typ == FalseBranch || typ == LoopExit:
			c.probs.Add(src.g.NodeID, "%s: a %s edge takes no condition, it is taken when the others are not: remove it", e, typ)
		case src.typ == TypeParallel:
			c.probs.Add(src.g.NodeID, "%s: edges leaving a Parallel take no condition, every branch runs: remove it or add an IfElse", e)
		case src.typ == TypeForEach:
			c.probs.Add(src.g.NodeID, "%s: edges leaving a ForEach take no condition: remove it", e)
		}
	}
	if (typ == LoopBody) && e.TargetNodeID == e.SourceNodeID {
		c.probs.Add(src.g.NodeID, "%s: the LoopBody leads straight back to the loop: point it at the first step of the body", e)
	}
	if e.EdgeID != "" {
		c.b.Reserve(e.EdgeID)
	}
	c.queueSettings(dst, e)
	src.out[typ] = append(src.out[typ], e)
	sc.edges = append(sc.edges, e)
	if both { // messageType All: the same edge on failure, with a flow id of its own
		fail := *e.Edge
		fail.EdgeID = ""
		f := edge{Edge: &fail, index: e.index, typ: OnFail, attrs: e.attrs}
		src.out[OnFail] = append(src.out[OnFail], f)
		sc.edges = append(sc.edges, f)
	}
}

// arity checks how many edges of each type a node has.
func (c *converter) arity(st *step) {
	id := st.g.NodeID
	one := func(typ string, required bool) {
		switch n := len(st.out[typ]); {
		case n == 0 && required:
			c.probs.Add(id, "a %s needs a %s edge: add one", st.typ, typ)
		case n > 1:
			c.probs.Add(id, "a %s has one %s edge, found %d: keep one (fork after it with a Parallel)", st.typ, typ, n)
		}
	}
	switch st.typ {
	case TypeIfElse:
		one(TrueBranch, true)
		one(FalseBranch, false)
	case TypeWhile, TypeForEach:
		one(LoopBody, true)
		one(LoopExit, false)
	case TypeSwitch:
		if len(st.out[SwitchCase]) == 0 {
			c.probs.Add(id, "a Switch needs SwitchCase edges: add one per case")
		}
	case TypeParallel:
		if len(st.out[OnComplete]) == 0 {
			c.probs.Add(id, "a Parallel needs OnComplete edges, one per branch: add them")
		}
	}
}

// build adds the flows, events and gateways of a collected scope.
func (c *converter) build(sc *scope) {
	for _, sub := range sc.subs {
		c.build(sub)
	}
	s := sc.s
	for _, st := range sc.steps {
		switch st.typ {
		case TypeWhile:
			st.body = body(sc, st)
			c.while(sc, st)
		case TypeForEach:
			st.body = body(sc, st)
			c.forEach(sc, st)
		}
	}
	sc.returns = loopReturns(sc)
	c.loops(sc)
	c.starts(sc)
	for _, st := range sc.steps {
		c.leave(sc, st)
	}
	for _, st := range sc.timers {
		c.b.Connect(s, sc.plain, st.exit, "")
	}
	c.loopErrors(sc)
	c.b.InsertJoins(s)
	for _, st := range sc.steps {
		if st.typ == TypeParallel {
			c.joinPolicy(sc, st)
		}
	}
}

// entry is where an edge from source into target goes.
func entry(target *step, source string) string {
	if target.again != "" && target.body[source] {
		return target.again
	}
	return target.entry
}

func (c *converter) branches(sc *scope, edges []edge) []model.Branch {
	out := make([]model.Branch, 0, len(edges))
	for _, e := range edges {
		out = append(out, model.Branch{
			FlowID:    e.EdgeID,
			Name:      e.Name,
			Target:    entry(sc.byID[e.TargetNodeID], e.SourceNodeID),
			Condition: jsVariables(e.Condition),
			Attrs:     e.attrs,
		})
	}
	return out
}

func (c *converter) flow(sc *scope, e edge, from, condition string) *model.Flow {
	return c.b.AddFlow(sc.s, &model.Flow{
		ID:        e.EdgeID,
		Name:      e.Name,
		SourceID:  from,
		TargetID:  entry(sc.byID[e.TargetNodeID], e.SourceNodeID),
		Condition: jsVariables(condition),
		Attrs:     e.attrs,
	})
}

// starts connects a generated start event to the startNodeId, or to every
// node no edge enters (through a parallel fork when there are several);
// edges from a loop's body back to the loop do not count. A Timer with a
// schedule that no edge enters is a timer start event of its own (see
// schedule.go); the plain start goes where it leads, as if it had fired.
func (c *converter) starts(sc *scope) {
	entered := map[string]bool{}
	for _, e := range sc.edges {
		if !sc.byID[e.TargetNodeID].body[e.SourceNodeID] {
			entered[e.TargetNodeID] = true
		}
	}
	for _, st := range sc.steps {
		if st.fallback != "" {
			entered[st.fallback] = true
		}
	}
	for _, st := range sc.steps {
		if cfg, ok := st.cfg.(*TimerConfig); ok && cfg.Schedule != "" && !entered[st.g.NodeID] {
			c.scheduledStart(sc, st)
		}
	}
	var first []*step
	if sc.startID != "" {
		st := sc.byID[sc.startID]
		if st == nil {
			c.probs.Add(sc.owner, "startNodeId %q is not a node of this graph: name one", sc.startID)
			return
		}
		first = append(first, st)
	} else {
		for _, st := range sc.steps {
			if !entered[st.g.NodeID] {
				first = append(first, st)
			}
		}
		if len(first) == 0 {
			c.probs.Add(sc.owner, "an edge enters every node, so none starts the graph: set startNodeId")
			return
		}
	}
	start := c.b.Generate(sc.s, sc.owner+"__start", model.KindStartEvent)
	sc.plain = start.ID
	if len(first) > 1 {
		fork := c.b.Generate(sc.s, sc.owner+"__fork", model.KindParallelGateway)
		c.b.Connect(sc.s, start.ID, fork.ID, "")
		sc.plain = fork.ID
	}
	for _, st := range first {
		if st.node.Kind == model.KindStartEvent {
			sc.timers = append(sc.timers, st) // connected once it has left (build)
			continue
		}
		c.b.Connect(sc.s, sc.plain, st.entry, "")
	}
}

// loops rejects loops no node can leave: cycles of unconditional OnComplete
// edges between activities and Parallels, which would run forever.
func (c *converter) loops(sc *scope) {
	const (
		active = iota + 1
		done
	)
	state := map[*step]int{}
	var visit func(st *step) bool
	visit = func(st *step) bool {
		state[st] = active
		if st.typ != TypeIfElse && st.typ != TypeSwitch && st.typ != TypeWhile && st.typ != TypeForEach {
			for _, e := range st.out[OnComplete] {
				if e.Condition != "" {
					continue
				}
				next := sc.byID[e.TargetNodeID]
				switch state[next] {
				case active:
					c.probs.Add(next.g.NodeID, "is on a loop that no While, ForEach, IfElse, Switch or condition can leave, so it would never end: loop with a While")
					return true
				case 0:
					if visit(next) {
						return true
					}
				}
			}
		}
		state[st] = done
		return false
	}
	for _, st := range sc.steps {
		if state[st] == 0 && visit(st) {
			return
		}
	}
}

// leave adds the flows out of a step.
func (c *converter) leave(sc *scope, st *step) {
	s, id := sc.s, st.g.NodeID
	switch st.typ {
	case TypeTask, TypeManual, TypeSubflow, TypeTimer, TypeValidate:
		st.exit = c.split(sc, id, id, c.branches(sc, st.out[OnComplete]))
		if fail := st.out[OnFail]; len(fail) > 0 {
			bound := c.b.AttachErrorBoundary(s, st.node, id+"__onFail")
			c.split(sc, id, bound.ID, c.branches(sc, fail))
		}
		if st.fallback != "" {
			c.b.Fallback(s, id, entry(sc.byID[st.fallback], id))
		}
	case TypeParallel:
		for _, e := range st.out[OnComplete] {
			c.flow(sc, e, id, "")
		}
	case TypeIfElse:
		cfg := st.cfg.(*IfElseConfig)
		yes := st.out[TrueBranch][0]
		cond := c.condition(id, "configuration.condition", cfg.Condition, yes)
		c.flow(sc, yes, id, cond)
		c.otherwise(sc, st, st.out[FalseBranch])
	case TypeSwitch:
		c.switchCases(sc, st)
	case TypeWhile:
		cfg := st.cfg.(*WhileConfig)
		body := st.out[LoopBody][0]
		cond := c.condition(id, "configuration.condition", cfg.Condition, body)
		if st.from != "" { // counted: through the counter
			c.b.Connect(s, id, st.from, jsVariables(cond))
			c.flow(sc, body, st.from, "")
		} else {
			c.flow(sc, body, id, cond)
		}
		c.otherwise(sc, st, st.out[LoopExit])
	case TypeForEach:
		c.flow(sc, st.out[LoopBody][0], st.from, "")
		c.otherwise(sc, st, st.out[LoopExit])
	}
}

// condition is the condition of an IfElse or While: in its configuration or
// on its TrueBranch/LoopBody edge.
func (c *converter) condition(id, field, configured string, e edge) string {
	if configured != "" && e.Condition != "" && configured != e.Condition {
		c.probs.Add(id, "%s: the edge's condition %q differs from %s %q: keep one", e, e.Condition, field, configured)
	}
	cond := cmp.Or(configured, e.Condition)
	if cond == "" {
		c.probs.Add(id, "has no condition: set %s", field)
	}
	return cond
}

// otherwise makes the edge (or, without one, a generated end event) the
// default flow of a gateway step.
func (c *converter) otherwise(sc *scope, st *step, edges []edge) {
	id := st.g.NodeID
	var f *model.Flow
	switch back := sc.returns[id]; {
	case len(edges) > 0:
		f = c.flow(sc, edges[0], id, "")
	case back != "":
		f = c.b.Connect(sc.s, id, back, "")
	default:
		end := c.b.Generate(sc.s, id+"__end", model.KindEndEvent)
		f = c.b.Connect(sc.s, id, end.ID, "")
	}
	st.node.DefaultID = f.ID
}

func (c *converter) switchCases(sc *scope, st *step) {
	cfg, id := st.cfg.(*SwitchConfig), st.g.NodeID
	var def *model.Flow
	for _, e := range st.out[SwitchCase] {
		cond := e.Condition
		switch {
		case e.Condition != "" && e.Case != nil:
			c.probs.Add(id, "%s has both a condition and a case: keep one", e)
		case e.Case != nil && cfg.Expression == "":
			c.probs.Add(id, "%s has a case but the Switch has no configuration.expression to compare it with: set one", e)
		case e.Case != nil:
			var err error
			if cond, err = caseCondition(cfg.Expression, e.Case); err != nil {
				c.probs.Add(id, "%s: %v", e, err)
			}
		}
		f := c.flow(sc, e, id, cond)
		if cond != "" {
			continue
		}
		if def != nil {
			c.probs.Add(id, "%s: a second SwitchCase without condition or case: only one can be the default", e)
			continue
		}
		def = f
		st.node.DefaultID = f.ID
	}
}

// caseCondition compares a Switch expression with a case value in JavaScript.
func caseCondition(expression string, value any) (string, error) {
	switch value.(type) {
	case string, float64, bool:
	default:
		return "", fmt.Errorf("case %v is not text, a number or a boolean: compare other values with a condition", value)
	}
	lit, err := json.Marshal(value)
	if err != nil {
		return "", fmt.Errorf("case %v: %w", value, err)
	}
	return "(" + jsVariables(javaScript(expression)) + ") === " + string(lit), nil
}

// javaScript returns the JavaScript inside a ${...} or =expr expression.
func javaScript(expr string) string {
	t := strings.TrimSpace(expr)
	if inner, ok := strings.CutPrefix(t, "${"); ok && strings.HasSuffix(inner, "}") && !strings.Contains(inner, "${") {
		return strings.TrimSuffix(inner, "}")
	}
	if inner, ok := strings.CutPrefix(t, "="); ok && !strings.HasPrefix(inner, "=") {
		return inner
	}
	return t
}

func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
