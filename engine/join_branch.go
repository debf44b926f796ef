package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// The branches of a policy join (join_policy.go): what entering one,
// failing in one, setting variables in one and timing out does to the
// join's round.

// enterBranches opens the rounds of the policy joins whose branches node n
// is in, and marks those branches running. Any move may take a branch's
// last token out of it, so the joins are looked at once the tokens stop.
func (x *instance) enterBranches(t *token, n *model.Node, via *model.Flow) {
	x.joinsDirty = true
	for _, pj := range x.joins {
		i := pj.branches.Of(n)
		if i < 0 {
			continue
		}
		r := x.round(pj, t.scope)
		if r.local[roundFired] == true && via != nil && pj.branches.Of(via.Source) != i {
			// A new pass from the fork (a loop) while the last round's late
			// branches still run: they count for the new round from here.
			x.removeToken(r)
			r = x.round(pj, t.scope)
		}
		if f := pj.node.Incoming[i].ID; branchStatus(r, f) == "" {
			x.record(r, f, map[string]any{"status": branchRunning})
		}
	}
}

// branchFailed ends the branch of a policy join that token t's failed work
// is in (its own node's, or that of a sub-process around it), recording the
// error, and reports whether it did; else the failure goes the usual way.
func (x *instance) branchFailed(t *token, code, msg string) bool {
	if x.joins == nil {
		return false
	}
	for tok := x.activityToken(t); tok != nil; {
		for _, pj := range x.joins {
			i := pj.branches.Of(tok.node)
			if i < 0 {
				continue
			}
			r := x.round(pj, tok.scope)
			f := pj.node.Incoming[i].ID
			if s := branchStatus(r, f); s == "" || s == branchRunning {
				outcome := map[string]any{"status": branchFailed, "error": msg, "elementId": t.node.ID}
				if code != "" {
					outcome["errorCode"] = code
				}
				x.record(r, f, outcome)
			}
			x.cancelBranch(pj, tok.scope, i) // t with it, inside what it interrupts when t is not tok
			return true
		}
		owner, _ := x.scopeOwner(tok.scope)
		if owner == nil {
			return false
		}
		tok = x.activityToken(owner)
	}
	return false
}

// branchSet keeps the variables that work in a branch of a policy join set
// (token t's, or that of a sub-process around it), for the join's results.
func (x *instance) branchSet(t *token, values map[string]any) {
	if len(values) == 0 {
		return
	}
	for tok := x.activityToken(t); tok != nil; {
		for _, pj := range x.joins {
			if i := pj.branches.Of(tok.node); i >= 0 {
				r := x.round(pj, tok.scope)
				flow := pj.node.Incoming[i].ID
				all, _ := r.local[roundVariables].(map[string]any)
				all = maps.Clone(all) // a stored snapshot may share it
				if all == nil {
					all = map[string]any{}
				}
				set, _ := all[flow].(map[string]any)
				set = maps.Clone(set)
				if set == nil {
					set = map[string]any{}
				}
				maps.Copy(set, values)
				all[flow] = set
				r.local = maps.Clone(r.local)
				r.local[roundVariables] = all
			}
		}
		owner, _ := x.scopeOwner(tok.scope)
		if owner == nil {
			return
		}
		tok = x.activityToken(owner)
	}
}

// branchesTimedOut ends the branches of round r that have not arrived when
// its BranchTimeout is over.
func (x *instance) branchesTimedOut(r *token, s *Subscription) {
	x.removeSubscription(s)
	j := r.node
	x.emit(EventTimerFired, j, r, map[string]any{"branchTimeout": true})
	pj := x.policyJoin(j)
	for i, f := range j.Incoming {
		st := branchStatus(r, f.ID)
		if st == branchRunning || st == "" && j.Kind == model.KindParallelGateway {
			x.cancelBranch(pj, r.scope, i)
			x.record(r, f.ID, map[string]any{
				"status": branchTimedOut,
				"error":  fmt.Sprintf("did not reach %q within %s", j.ID, j.JoinPolicy.BranchTimeout),
			})
		}
	}
}

// cancelBranch removes every token of branch i of pj in scope, with what
// it was doing.
func (x *instance) cancelBranch(pj *policyJoin, scope uint64, i int) {
	for _, o := range slices.Clone(x.tokens) {
		if o.removed || o.scope != scope || o.outer != 0 || pj.branches.Of(o.node) != i {
			continue
		}
		x.interrupt(o)
		x.resolveIncidentsOf(o)
		x.removeToken(o)
	}
	x.joinsDirty = true
}
