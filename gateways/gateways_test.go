package gateways_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/gateways"
)

// process builds a linked process from a compact text: nodes "id:kind" and
// flows "src->tgt" (id "src-tgt"), "src->tgt?cond" with a condition, and
// "src->tgt!" as src's default flow.
func process(t *testing.T, nodes, flows string) *model.Process {
	t.Helper()
	p := model.NewProcess("p", "")
	kinds := map[string]model.Kind{
		"start": model.KindStartEvent, "end": model.KindEndEvent, "task": model.KindTask,
		"xor": model.KindExclusiveGateway, "or": model.KindInclusiveGateway, "and": model.KindParallelGateway,
		"event": model.KindEventBasedGateway, "catch": model.KindIntermediateCatchEvent,
	}
	byID := map[string]*model.Node{}
	for _, nk := range strings.Fields(nodes) {
		id, kind, _ := strings.Cut(nk, ":")
		n := &model.Node{ID: id, Kind: kinds[kind]}
		if kind == "catch" {
			n.Trigger = model.TriggerMessage
		}
		byID[id] = n
		p.Nodes = append(p.Nodes, n)
	}
	for _, f := range strings.Fields(flows) {
		src, rest, _ := strings.Cut(f, "->")
		def := strings.HasSuffix(rest, "!")
		rest = strings.TrimSuffix(rest, "!")
		tgt, cond, _ := strings.Cut(rest, "?")
		id := src + "-" + tgt
		p.Flows = append(p.Flows, &model.Flow{ID: id, SourceID: src, TargetID: tgt, Condition: cond})
		if def {
			byID[src].DefaultID = id
		}
	}
	if probs := p.Link(); len(probs) > 0 {
		t.Fatalf("process: %v", probs)
	}
	return p
}

func ids(flows []*model.Flow) string {
	out := make([]string, len(flows))
	for i, f := range flows {
		out[i] = f.ID
	}
	return strings.Join(out, " ")
}

// truth evaluates a flow's condition "true", "false" or "boom" (an error).
func truth(f *model.Flow) (bool, error) {
	if f.Condition == "boom" {
		return false, errors.New("boom")
	}
	return f.Condition == "true", nil
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, nodes, flows string
		want               string // chosen flow ids, or "error: ..." text
		def                bool
	}{
		{"exclusive takes the first that holds", "g:xor a:task b:task c:task", "g->a?false g->b?true g->c?true", "g-b", false},
		{"exclusive takes an unconditional flow", "g:xor a:task b:task", "g->a?false g->b", "g-b", false},
		{"exclusive falls back to the default", "g:xor a:task b:task", "g->a?false g->b!", "g-b", true},
		{"exclusive without default stops", "g:xor a:task", "g->a?false", "error: no condition holds", false},
		{"exclusive names the failing flow", "g:xor a:task", "g->a?boom", `error: condition of flow "g-a": boom`, false},
		{"inclusive takes every flow that holds", "g:or a:task b:task c:task", "g->a?true g->b?false g->c?true", "g-a g-c", false},
		{"inclusive default only when none holds", "g:or a:task b:task", "g->a?true g->b!", "g-a", false},
		{"inclusive default", "g:or a:task b:task", "g->a?false g->b!", "g-b", true},
		{"parallel forks every flow, conditions ignored", "g:and a:task b:task", "g->a?false g->b", "g-a g-b", false},
		{"an activity leaves by its one flow", "s:task a:task", "s->a", "s-a", false},
		{"an activity's conditional flows are inclusive", "s:task a:task b:task", "s->a?true s->b?true", "s-a s-b", false},
		{"no outgoing flow is an implicit end", "s:task", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := process(t, tc.nodes, tc.flows)
			n := p.Nodes[0]
			d, err := gateways.Split(n, truth)
			if msg, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), msg) {
					t.Fatalf("got %v, %v; want an error with %q", ids(d.Chosen), err, msg)
				}
				return
			}
			if err != nil || ids(d.Chosen) != tc.want || d.Default != tc.def {
				t.Fatalf("got %q default=%v %v; want %q default=%v", ids(d.Chosen), d.Default, err, tc.want, tc.def)
			}
		})
	}
}

func TestParallelJoin(t *testing.T) {
	t.Parallel()
	p := process(t, "a:task b:task c:task j:and e:end", "a->j b->j c->j j->e")
	j := p.Node("j")
	f := func(id string) *model.Flow { return p.Flow(id) }
	for _, tc := range []struct {
		name string
		vias []*model.Flow
		take []int // nil: does not fire
	}{
		{"nothing parked", nil, nil},
		{"two of three", []*model.Flow{f("a-j"), f("b-j")}, nil},
		{"twice on one flow is not two flows", []*model.Flow{f("a-j"), f("a-j"), f("b-j")}, nil},
		{"all three, in incoming order", []*model.Flow{f("c-j"), f("a-j"), f("b-j")}, []int{1, 2, 0}},
		{"the first on each flow; the second waits", []*model.Flow{f("a-j"), f("a-j"), f("b-j"), f("c-j")}, []int{0, 2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			take, fire := gateways.ParallelJoin(j, tc.vias)
			if fire != (tc.take != nil) || !equal(take, tc.take) {
				t.Fatalf("got %v fire=%v; want %v", take, fire, tc.take)
			}
		})
	}
}

func TestInclusiveJoin(t *testing.T) {
	t.Parallel()
	// s splits to a and b, both join at j; x runs beside, after j.
	p := process(t, "s:or a:task b:task j:or x:task e:end", "s->a s->b a->j b->j j->x x->e")
	r := gateways.NewReachability(p)
	j, n := p.Node("j"), p.Node
	for _, tc := range []struct {
		name   string
		vias   []*model.Flow
		others []*model.Node
		take   []int
	}{
		{"nothing parked", nil, nil, nil},
		{"a token upstream can still come", []*model.Flow{p.Flow("a-j")}, []*model.Node{n("b")}, nil},
		{"a token at the split can still come", []*model.Flow{p.Flow("a-j")}, []*model.Node{n("s")}, nil},
		{"only one branch was taken", []*model.Flow{p.Flow("a-j")}, nil, []int{0}},
		{"a token downstream does not hold it", []*model.Flow{p.Flow("a-j"), p.Flow("b-j")}, []*model.Node{n("x")}, []int{0, 1}},
		{"one per flow; the second on a waits", []*model.Flow{p.Flow("a-j"), p.Flow("a-j"), p.Flow("b-j")}, nil, []int{0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			take, fire := gateways.InclusiveJoin(j, tc.vias, tc.others, r)
			if fire != (tc.take != nil) || !equal(take, tc.take) {
				t.Fatalf("got %v fire=%v; want %v", take, fire, tc.take)
			}
		})
	}
	if !gateways.IsJoin(j) || gateways.IsJoin(n("s")) || gateways.IsJoin(n("a")) {
		t.Fatal("IsJoin: j joins, the split and a task do not")
	}
}

func TestEventBasedGateway(t *testing.T) {
	t.Parallel()
	p := process(t, "g:event m1:catch m2:catch x:task", "g->m1 g->m2 m1->x")
	g := p.Node("g")
	var got []string
	for _, n := range gateways.EventChoices(g) {
		got = append(got, n.ID)
	}
	if strings.Join(got, " ") != "m1 m2" {
		t.Fatalf("arms %v; want m1 m2", got)
	}
	if f := gateways.EventTaken(g, p.Node("m2")); f == nil || f.ID != "g-m2" {
		t.Fatalf("m2 fired: took %v; want g-m2", f)
	}
	if f := gateways.EventTaken(g, p.Node("x")); f != nil {
		t.Fatalf("x is not one of g's events, got %v", f)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
