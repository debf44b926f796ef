package engine

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/gateways"
)

// Join policies (model.JoinPolicy) on parallel and inclusive joins.
//
// A policy join keeps one round per scope instance: a token standing at the
// join with status TokenRound, whose local variables record what each
// branch did, by the id of the join's incoming flow it comes in by
// (gateways.Branches says which branch a node is in). The round opens when
// a token first enters one of the join's branches, which is when the fork's
// tokens set out, and arms the BranchTimeout timer then. Arrivals, failures
// (work in the branch that fails for good with nothing catching it),
// timeouts and branches whose tokens all ended elsewhere are recorded as
// they happen; once the tokens have moved, settleJoins fires the join when
// enough branches completed, or throws JoinFailedCode from it when that can
// no longer happen. After it fired, the branches still running are
// cancelled (CancelRemaining) or go on and are absorbed when they arrive;
// the round ends when no token is left in its branches, or when a loop
// brings a new pass from the fork (the late tokens then count for the new
// round). Being a token, a round is stored and restored with the instance,
// and its timer re-armed.

// JoinFailedCode is the BPMN error a policy join throws when too many of its
// branches failed for the policy to be met.
const JoinFailedCode = "JOIN_FAILED"

// What a branch of a policy join did, in its results variable.
const (
	branchRunning   = "running"
	branchCompleted = "completed"
	branchFailed    = "failed"
	branchTimedOut  = "timedOut"
	branchCancelled = "cancelled"
)

// Keys of a round token's local variables.
const (
	roundBranches  = "branches"  // incoming flow id → {status, error, errorCode, elementId}
	roundVariables = "variables" // incoming flow id → the variables the branch set
	roundFired     = "fired"
)

// policyJoin is a join with a join policy and its branches.
type policyJoin struct {
	node     *model.Node
	branches *gateways.Branches
}

// policyJoinsOf returns the policy joins of p, a join nested in another's
// branch before that one, so that a failure counts for the innermost join
// first; nil when p has none (the common case: then nothing here runs).
func policyJoinsOf(p *model.Process) []*policyJoin {
	var out []*policyJoin
	for _, n := range p.AllNodes {
		if n.JoinPolicy != nil && gateways.IsJoin(n) && n.Kind != model.KindComplexGateway {
			out = append(out, &policyJoin{node: n, branches: gateways.NewBranches(p, n)})
		}
	}
	slices.SortStableFunc(out, func(a, b *policyJoin) int {
		switch {
		case b.branches.Of(a.node) >= 0:
			return -1
		case a.branches.Of(b.node) >= 0:
			return 1
		}
		return 0
	})
	return out
}

func (x *instance) policyJoin(n *model.Node) *policyJoin {
	for _, pj := range x.joins {
		if pj.node == n {
			return pj
		}
	}
	return nil
}

// round returns the open round of pj in scope, opening one when there is none.
func (x *instance) round(pj *policyJoin, scope uint64) *token {
	for _, t := range x.tokens {
		if t.status == TokenRound && t.node == pj.node && t.scope == scope {
			return t
		}
	}
	r := x.newToken(scope)
	r.node, r.status, r.local = pj.node, TokenRound, map[string]any{roundBranches: map[string]any{}}
	if d := pj.node.JoinPolicy.BranchTimeout; d > 0 {
		due := x.now.Add(d)
		sub := x.addSubscription(&Subscription{Token: r.id, ElementID: pj.node.ID, Timer: &due})
		x.emit(EventTimerScheduled, pj.node, r, map[string]any{"due": due, "branchTimeout": true})
		x.armTimer(sub)
	}
	x.joinsDirty = true
	return r
}

// branchOutcome is what a round recorded for a branch.
func branchOutcome(r *token, flow string) map[string]any {
	all, _ := r.local[roundBranches].(map[string]any)
	m, _ := all[flow].(map[string]any)
	return m
}

func branchStatus(r *token, flow string) string {
	s, _ := branchOutcome(r, flow)["status"].(string)
	return s
}

// record sets what a branch of round r did. Once the join fired, its
// results variable follows.
func (x *instance) record(r *token, flow string, outcome map[string]any) {
	all, _ := r.local[roundBranches].(map[string]any)
	all = maps.Clone(all) // a stored snapshot may share it
	if all == nil {
		all = map[string]any{}
	}
	all[flow] = outcome
	local := maps.Clone(r.local)
	local[roundBranches] = all
	r.local = local
	if r.local[roundFired] == true {
		x.writeResults(r)
	}
}

// arriveAtPolicyJoin counts token t in at its policy join. A token of a
// branch already counted (it came late, or the branch forked inside) is
// absorbed.
func (x *instance) arriveAtPolicyJoin(t *token) {
	pj := x.policyJoin(t.node)
	if t.via == nil || pj == nil { // an operator retried the join's JOIN_FAILED, or moved a token here: it goes on
		t.status = TokenActive
		x.leave(t)
		return
	}
	r := x.round(pj, t.scope)
	if s := branchStatus(r, t.via.ID); s == "" || s == branchRunning {
		x.record(r, t.via.ID, map[string]any{"status": branchCompleted})
	}
	x.consume(t)
}

// settleJoins fires or fails the first policy join whose round is due, ends
// the rounds that are over, and reports whether tokens moved.
func (x *instance) settleJoins() bool {
	if x.joins == nil {
		return false
	}
	for _, r := range slices.Clone(x.tokens) {
		if r.status == TokenRound && !r.removed && x.settle(r) {
			return true
		}
	}
	return false
}

// settle decides round r and reports whether tokens moved.
func (x *instance) settle(r *token) bool {
	j := r.node
	pj := x.policyJoin(j)
	live := make([]bool, len(j.Incoming))
	for _, o := range x.tokens {
		if o.scope == r.scope && !o.removed {
			if i := pj.branches.Of(o.node); i >= 0 {
				live[i] = true
			}
		}
	}
	succeeded, failed, started := 0, 0, 0
	for i, f := range j.Incoming {
		s := branchStatus(r, f.ID)
		if s == branchRunning && !live[i] {
			s = branchFailed
			x.record(r, f.ID, map[string]any{"status": s, "error": fmt.Sprintf("ended without reaching %q", j.ID)})
		}
		switch s {
		case "":
			continue
		case branchCompleted:
			succeeded++
		case branchFailed, branchTimedOut, branchCancelled:
			failed++
		}
		started++
	}
	if r.local[roundFired] != true {
		branches := started // an inclusive join waits for the branches its fork took
		if j.Kind == model.KindParallelGateway {
			branches = len(j.Incoming)
		}
		need := joinNeeds(j.JoinPolicy, branches)
		switch {
		case succeeded >= need:
			x.fireRound(pj, r, live, succeeded, failed)
			return true
		case branches-failed < need:
			x.failRound(pj, r, live, succeeded, failed, branches, need)
			return true
		}
		return false
	}
	if !slices.Contains(live, true) {
		x.removeToken(r) // every branch is accounted for
	}
	return false
}

// joinNeeds is how many of branches must complete for policy p.
func joinNeeds(p *model.JoinPolicy, branches int) int {
	switch p.Policy {
	case model.JoinAny:
		return 1
	case model.JoinMajority:
		return branches/2 + 1
	case model.JoinNOfM:
		return p.N
	}
	return branches
}

// fireRound sends a token on from join pj once enough branches completed.
func (x *instance) fireRound(pj *policyJoin, r *token, live []bool, succeeded, failed int) {
	j, p := pj.node, pj.node.JoinPolicy
	x.disarmToken(r) // the branch timeout has no more to decide
	if p.CancelRemaining {
		x.cancelRunning(pj, r, live)
	}
	r.local = maps.Clone(r.local)
	r.local[roundFired] = true // from here on each outcome rewrites the results (record)
	x.writeResults(r)
	x.emit(EventGatewayActivated, j, r, map[string]any{"policy": cmp.Or(p.Policy, model.JoinAll), "completed": succeeded, "failed": failed})
	if !slices.Contains(live, true) {
		x.removeToken(r)
	}
	t := x.newToken(r.scope)
	t.node = j
	x.leave(t)
}

// failRound ends round r, its policy out of reach, and throws
// JoinFailedCode from its join.
func (x *instance) failRound(pj *policyJoin, r *token, live []bool, succeeded, failed, branches, need int) {
	j, p := pj.node, pj.node.JoinPolicy
	x.disarmToken(r)
	x.cancelRunning(pj, r, live)
	x.writeResults(r)
	x.removeToken(r)
	msg := fmt.Sprintf("%d of the %d branches of %q completed and %d failed: policy %s needs %d to complete", succeeded, branches, j.ID, failed, cmp.Or(p.Policy, model.JoinAll), need)
	t := x.newToken(r.scope)
	t.node = j
	x.throwError(t, j, JoinFailedCode, msg)
}

// cancelRunning cancels the branches of round r that still have tokens.
func (x *instance) cancelRunning(pj *policyJoin, r *token, live []bool) {
	for i, f := range pj.node.Incoming {
		if !live[i] {
			continue
		}
		x.cancelBranch(pj, r.scope, i)
		if s := branchStatus(r, f.ID); s == "" || s == branchRunning {
			x.record(r, f.ID, map[string]any{"status": branchCancelled})
		}
		live[i] = false
	}
}

// writeResults sets the join's results variable: each branch's outcome by
// the id of the incoming flow it comes in by, with the variables it set.
func (x *instance) writeResults(r *token) {
	p := r.node.JoinPolicy
	name := cmp.Or(p.ResultsVariable, r.node.ID)
	all, _ := r.local[roundBranches].(map[string]any)
	vars, _ := r.local[roundVariables].(map[string]any)
	results := make(map[string]any, len(all))
	for f, o := range all {
		m, ok := o.(map[string]any)
		if !ok {
			continue
		}
		m = maps.Clone(m)
		if set, ok := vars[f].(map[string]any); ok {
			m["variables"] = maps.Clone(set)
		}
		results[f] = m
	}
	x.setVarsAt(r, map[string]any{name: results})
	x.emit(EventVariablesChanged, r.node, r, map[string]any{"variables": []any{name}})
}
