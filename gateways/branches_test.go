package gateways_test

import (
	"testing"

	"github.com/workflowpp/wfpp/gateways"
)

// TestBranches: a node is in the branch whose incoming flow it reaches
// alone; the fork and what comes before reach every branch, a flow straight
// from the fork has no node of its own, and the join is in none.
func TestBranches(t *testing.T) {
	p := process(t, "s:start fork:and a1:task a2:task b:task j:and e:end",
		"s->fork fork->a1 a1->a2 a2->j fork->b b->j fork->j j->e")
	j := p.Node("j")
	b := gateways.NewBranches(p, j)
	in := func(id string) string {
		i := b.Of(p.Node(id))
		if i < 0 {
			return ""
		}
		return j.Incoming[i].ID
	}
	for node, branch := range map[string]string{"a1": "a2-j", "a2": "a2-j", "b": "b-j", "fork": "", "s": "", "j": "", "e": ""} {
		if got := in(node); got != branch {
			t.Errorf("%s is in branch %q, want %q", node, got, branch)
		}
	}
}
