package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/workflowpp/wfpp/engine/model"
)

// Call activities. A token on a call activity starts another process as an
// instance of its own (the child), which names the token in its Parent, and
// waits; when the child ends, its outcome comes back as a command to the
// caller: completed (its variables, through the call's out mappings),
// ended by a BPMN error nothing in it caught (thrown again at the call
// activity, so its boundary events catch it), or cancelled (an incident).
// Whatever withdraws the waiting token (a boundary event, a terminate end,
// cancelling the caller) cancels the child.
//
// No transaction spans the two instances: the caller's commit holds the
// child's id; the child is then started with a request id made of it, so a
// start that is repeated (after a crash, at recovery) finds the child the
// first one made; and a caller recovered while its child has ended already
// is told again.

// ParentRef links a called instance to the call activity that waits for it.
type ParentRef struct {
	InstanceID string `json:"instanceId" bson:"instance_id"`
	Token      uint64 `json:"token" bson:"token"`
	ElementID  string `json:"elementId" bson:"element_id"`
	Depth      int    `json:"depth" bson:"depth"` // 1: called by a root instance
}

// MaxCallDepthDefault bounds how deeply call activities nest.
const MaxCallDepthDefault = 50

// childStart is a child instance to start once the caller's round is stored.
type childStart struct {
	parent      ParentRef
	child       string
	processID   string
	binding     string
	version     int
	versionTag  string
	defKey      string // the caller's definition, for BindingDeployment
	defVersion  int
	vars        map[string]any
	businessKey string
	// fresh: the child's id is new (no earlier attempt or recovery can have
	// stored it), so the caller's applier may start it in the same round.
	fresh bool
}

// childEnd tells a caller that its child ended.
type childEnd struct {
	parent ParentRef
	child  string
	status Status
	vars   map[string]any
	code   string // a BPMN error nothing in the child caught
	msg    string
}

// callActivity starts the child of the token's call activity.
func (x *instance) callActivity(t *token) {
	n := t.node
	if !x.takeInputs(t) {
		return
	}
	depth := 1
	if x.head.Parent != nil {
		depth = x.head.Parent.Depth + 1
	}
	if depth > x.e.cfg.MaxCallDepth {
		x.incident(t, "call", fmt.Sprintf("call activity %q would nest calls %d deep, more than %d (MaxCallDepth): does the process call itself without end?", n.ID, depth, x.e.cfg.MaxCallDepth))
		return
	}
	cs, err := x.childStart(t, depth)
	if err != nil {
		x.incident(t, "call", err.Error())
		return
	}
	t.attempt++
	t.status, t.child = TokenCall, cs.child
	if t.attempt == 1 && t.outer == 0 {
		x.armBoundaries(t)
	}
	x.emit(EventCallStarted, n, t, map[string]any{"child": cs.child, "process": cs.processID})
	x.p.effects.calls = append(x.p.effects.calls, cs)
}

// childStart works out what the call activity starts: which process, with
// which variables and business key.
func (x *instance) childStart(t *token, depth int) (childStart, error) {
	n, call := t.node, t.node.Call
	vars := x.evalVars(t)
	pid, err := x.evalString(vars, call.ProcessID)
	if err != nil {
		return childStart{}, fmt.Errorf("called element of %q: %w", n.ID, err)
	}
	in := map[string]any{}
	switch {
	case call.AllIn:
		maps.Copy(in, vars)
	case len(n.Inputs) > 0:
		maps.Copy(in, t.local) // Camunda 8: only the input mappings
	}
	for _, m := range call.In {
		v, err := x.eval(vars, m.Source)
		if err != nil {
			return childStart{}, fmt.Errorf("in mapping %q of %q: %w", m.Target, n.ID, err)
		}
		setPath(in, m.Target, v)
	}
	bk := ""
	switch {
	case call.ParentBusinessKey:
		bk = x.head.BusinessKey
	case call.BusinessKey != "":
		if bk, err = x.evalString(vars, call.BusinessKey); err != nil {
			return childStart{}, fmt.Errorf("business key of %q: %w", n.ID, err)
		}
	}
	child, fresh := t.child, t.child == ""
	if fresh {
		child = x.e.idIn(x.p)
	}
	return childStart{
		fresh:  fresh,
		parent: ParentRef{InstanceID: x.id, Token: t.id, ElementID: n.ID, Depth: depth},
		child:  child, processID: pid, binding: call.Binding, version: call.Version, versionTag: call.VersionTag,
		defKey: x.head.DefinitionKey, defVersion: x.head.Version, vars: in, businessKey: bk,
	}, nil
}

// startRequestOf is the start of child cs, its definition looked up.
func (e *Engine) startRequestOf(ctx context.Context, cs childStart) (StartRequest, error) {
	req, err := e.calledDefinition(ctx, cs)
	if err != nil {
		return req, err
	}
	req.Variables, req.BusinessKey = cs.vars, cs.businessKey
	req.RequestID = "call:" + cs.parent.InstanceID + ":" + strconv.FormatUint(cs.parent.Token, 10) + ":" + cs.child
	req.id, req.parent = cs.child, &cs.parent
	return req, nil
}

// startChild starts a child, or finds the one an earlier attempt started,
// and tells the caller when that one has ended already or none can start.
func (e *Engine) startChild(ctx context.Context, cs childStart) {
	req, err := e.startRequestOf(ctx, cs)
	if err == nil {
		var snap *Snapshot
		var created bool
		snap, created, err = e.Start(ctx, req)
		if err == nil {
			if !created && snap.Status.Done() {
				e.tellParent(ctx, childEndOf(snap))
			}
			return
		}
	}
	if errors.Is(err, ErrClosed) || errors.Is(err, ErrNotRunning) || ctx.Err() != nil {
		return // the engine stops: recovery starts the child again
	}
	_ = e.submit(ctx, command{
		kind: cmdChildEnded, inst: cs.parent.InstanceID, token: cs.parent.Token, child: cs.child,
		err: fmt.Errorf("call activity %q cannot start process %q: %w", cs.parent.ElementID, cs.processID, err),
	})
}

// calledDefinition picks the definition version the call starts.
func (e *Engine) calledDefinition(ctx context.Context, cs childStart) (StartRequest, error) {
	req := StartRequest{ProcessID: cs.processID}
	switch cs.binding {
	case model.BindingDeployment:
		req.Definition, req.Version = cs.defKey, cs.defVersion
		return req, nil
	case model.BindingVersion:
		req.Definition, req.Version = cs.processID, cs.version
		return req, nil
	case model.BindingVersionTag:
		recs, err := e.store.Definitions(ctx)
		if err != nil {
			return req, err
		}
		for _, r := range recs { // the newest startable version of the process's key with the tag
			if r.Key == cs.processID && r.VersionTag == cs.versionTag && r.Status.startable() && r.Version > req.Version {
				req.Definition, req.Version = r.Key, r.Version
			}
		}
		if req.Version == 0 {
			return req, fmt.Errorf("no version of %q is tagged %q: deploy one with that version tag, then retry the incident: %w", cs.processID, cs.versionTag, ErrNotFound)
		}
		return req, nil
	}
	// Latest: the default version of the definition the process is the
	// main one of, else of the newest that holds it.
	rec, err := e.defs.latestHolding(ctx, cs.processID)
	if err != nil {
		return req, err
	}
	req.Definition = rec.Key
	return req, nil
}

// childEndOf is the end of a stored child. A child ended by an error it
// passed on says so in its last event; the caller gets an incident instead
// of the error, which is rare enough: the caller had crashed in between.
func childEndOf(s *Snapshot) childEnd {
	return childEnd{parent: *s.Parent, child: s.ID, status: s.Status, vars: s.Variables}
}

// tellParent hands a child's end to its caller.
func (e *Engine) tellParent(ctx context.Context, end childEnd) {
	c := command{kind: cmdChildEnded, inst: end.parent.InstanceID, token: end.parent.Token, child: end.child, vars: end.vars}
	c.childStatus = end.status
	if end.code != "" {
		c.err = &BPMNError{Code: end.code, Message: end.msg}
	}
	_ = e.submit(ctx, c)
}

// childEnded applies a child's outcome to the call activity waiting for it.
func (x *instance) childEnded(c command) {
	t := x.token(c.token)
	if t == nil || t.status != TokenCall || t.child != c.child {
		return // stale: the call activity was interrupted, or this is told twice
	}
	n := t.node
	t.child = ""
	switch {
	case c.err != nil:
		if be := (*BPMNError)(nil); errors.As(c.err, &be) {
			x.throwError(t, n, be.Code, be.Message)
			return
		}
		x.incident(t, "call", c.err.Error())
	case c.childStatus == StatusCompleted:
		out, err := x.callOutputs(n, c.vars)
		if err != nil {
			x.incident(t, "call", err.Error())
			return
		}
		x.emit(EventCallEnded, n, t, map[string]any{"child": c.child, "status": string(c.childStatus)})
		x.finishActivity(t, out)
	default:
		x.incident(t, "call", fmt.Sprintf("the instance %s that call activity %q started was %s: retry to start a new one", c.child, n.ID, c.childStatus))
	}
}

// callOutputs is what a completed child passes back: all its variables or
// none, then the out mappings evaluated on them.
func (x *instance) callOutputs(n *model.Node, child map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if n.Call.AllOut {
		maps.Copy(out, child)
	}
	for _, m := range n.Call.Out {
		v, err := x.eval(child, m.Source)
		if err != nil {
			return nil, fmt.Errorf("out mapping %q of %q: %w", m.Target, n.ID, err)
		}
		setPath(out, m.Target, v)
	}
	return out, nil
}

// withdrawCall cancels the child of a call activity whose token is
// withdrawn.
func (x *instance) withdrawCall(t *token) {
	if t.child == "" {
		return
	}
	x.p.effects.cancels = append(x.p.effects.cancels, t.child)
	t.child = ""
}

// ended tells the caller, if there is one, that this instance ended.
func (x *instance) ended() {
	if x.head.Parent == nil {
		return
	}
	x.varsOwned = false
	x.p.effects.ends = append(x.p.effects.ends, childEnd{
		parent: *x.head.Parent, child: x.id, status: x.status, vars: x.vars, code: x.endCode, msg: x.endMsg,
	})
}

// propagateError ends a called instance by a BPMN error nothing in it
// caught: its caller throws it at the call activity. It reports false for
// an instance nothing called.
func (x *instance) propagateError(t *token, n *model.Node, code, msg string) bool {
	if x.head.Parent == nil {
		return false
	}
	x.emit(EventElementCompleted, n, t, nil)
	x.endCode, x.endMsg = code, msg
	x.terminateAll()
	x.finish(StatusFailed, EventInstanceFailed, map[string]any{"error": code, "message": msg, "propagated": x.head.Parent.ElementID})
	return true
}
