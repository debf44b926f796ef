package model

// joinPolicy checks the join policy of n, whatever format set it.
func (v *validator) joinPolicy(n *Node) {
	p := n.JoinPolicy
	if p == nil {
		return
	}
	if n.Kind != KindParallelGateway && n.Kind != KindInclusiveGateway {
		v.add(n.ID, "%s %q cannot have a join policy (wf:joinPolicy): only parallel and inclusive gateways that join do; remove it", n.Kind, n.ID)
		return
	}
	if len(n.Incoming) < 2 {
		v.add(n.ID, "the join policy of %q needs a join: it has %d incoming sequence flow(s), a policy decides when two or more branches go on; remove it or join the branches here", n.ID, len(n.Incoming))
	}
	switch p.Policy {
	case "", JoinAll, JoinAny, JoinMajority:
		if p.N != 0 {
			v.add(n.ID, "N (wf:joinN) %d is for the join policy n_of_m: set wf:joinPolicy=\"n_of_m\" or remove it", p.N)
		}
	case JoinNOfM:
		switch {
		case p.N < 1:
			v.add(n.ID, "the join policy n_of_m needs N (wf:joinN), how many branches must complete, e.g. 2")
		case p.N > len(n.Incoming) && len(n.Incoming) > 1:
			v.add(n.ID, "the join policy n_of_m asks for %d branches but %q joins %d: lower wf:joinN", p.N, n.ID, len(n.Incoming))
		}
	default:
		v.add(n.ID, "join policy %q: write all, any, majority or n_of_m", p.Policy)
	}
	if p.BranchTimeout < 0 {
		v.add(n.ID, "the branch timeout (wf:branchTimeout) of %q cannot be negative", n.ID)
	}
}
