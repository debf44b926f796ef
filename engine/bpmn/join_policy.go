package bpmn

import (
	"strconv"
	"strings"

	"github.com/workflowpp/wfpp/engine/model"
)

// The wf: attributes of a join policy on a parallel or inclusive gateway
// (model.JoinPolicy): wf:joinPolicy, wf:joinN, wf:branchTimeout,
// wf:cancelRemaining and wf:joinResultsVariable. Whether the node can take
// one is checked with the model (model.Validate), for every format.

// joinPolicy returns the node's join policy, giving it one first.
func (x *extension) joinPolicy() *model.JoinPolicy {
	if x.n.JoinPolicy == nil {
		x.n.JoinPolicy = &model.JoinPolicy{}
	}
	return x.n.JoinPolicy
}

func readJoinPolicy(x *extension, v string) {
	p := strings.ToLower(strings.TrimSpace(v))
	switch p {
	case model.JoinAll, model.JoinAny, model.JoinMajority, model.JoinNOfM:
		x.joinPolicy().Policy = p
	default:
		x.problem("wf:joinPolicy %q is not a join policy: write all, any, majority or n_of_m (with wf:joinN)", v)
	}
}

func readJoinN(x *extension, v string) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		x.problem("wf:joinN %q is not a positive whole number: write how many branches must complete, e.g. 2", v)
		return
	}
	x.joinPolicy().N = n
}

func readCancelRemaining(x *extension, v string) {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		x.problem("wf:cancelRemaining %q: write true (cancel the branches still running when the join goes on) or false", v)
		return
	}
	x.joinPolicy().CancelRemaining = b
}
