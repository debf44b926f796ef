package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/workflowpp/wfpp/engine/model"
)

// Chaining. A process's triggers (model.ChainTrigger) start other
// definitions when one of its instances ends. The ended instance's applier
// works out each start in the round that ends it: it evaluates the
// condition and the input mappings, reads the target definition, and
// stores the new instance under a request id made of the ended instance's
// id and the trigger's index, before the end is committed. Once the end is
// committed the new instance runs. So:
//   - a crash before the end is committed leaves the new instance stored
//     but not run: recovery starts it (as any start whose request id was
//     claimed), and the ended instance, ending again, finds it by its
//     request id instead of making a second one;
//   - a crash after the end is committed leaves the same stored instance,
//     which recovery starts.
//
// Each (ended instance, trigger) thus starts at most one instance, and
// exactly one once the end is stored. An end whose commit failed is not
// stored: the instance it triggered waits, unstarted, until its trigger
// ends again (the new end finds it by its request id and starts it), and
// recovery leaves it alone while its trigger has not ended
// (waitsForItsTrigger). The new instance names what
// triggered it (Snapshot.TriggeredBy); the ended one's history names what
// it started (chain.started), refused (chain.refused: the chain depth
// limit) or could not start (chain.failed: no such definition, a mapping
// that fails). None of these is an incident: the end stands.

// ChainRef names the instance whose end started this one, and how.
type ChainRef struct {
	InstanceID string `json:"instanceId" bson:"instance_id"`
	Definition string `json:"definition" bson:"definition"` // the ended instance's definition key
	Trigger    int    `json:"trigger" bson:"trigger"`       // the index of the trigger in its process
	Depth      int    `json:"depth" bson:"depth"`           // 1: triggered by an instance nothing triggered
}

// MaxChainDepthDefault bounds how long a chain of triggered instances
// grows: a definition that triggers itself stops there.
const MaxChainDepthDefault = 10

// chainOn is the trigger event an instance ending with status s fires.
func chainOn(s Status) string {
	switch s {
	case StatusCompleted:
		return model.ChainCompleted
	case StatusFailed:
		return model.ChainFailed
	case StatusCancelled:
		return model.ChainCancelled
	}
	return ""
}

// chain stores the instances the triggers of an ending instance start;
// they run once the end is committed.
func (x *instance) chain() {
	on := chainOn(x.status)
	if on == "" || len(x.proc.Triggers) == 0 {
		return
	}
	depth := 1
	if x.head.TriggeredBy != nil {
		depth = x.head.TriggeredBy.Depth + 1
	}
	for i, tr := range x.proc.Triggers {
		if tr.On != on {
			continue
		}
		detail := map[string]any{"trigger": i, "target": tr.Target}
		if depth > x.e.cfg.MaxChainDepth {
			detail["depth"], detail["limit"] = depth, x.e.cfg.MaxChainDepth
			detail["reason"] = fmt.Sprintf("the chain would be %d instances long, more than %d (MaxChainDepth): does the definition trigger itself without end?", depth, x.e.cfg.MaxChainDepth)
			x.emit(EventChainRefused, nil, nil, detail)
			continue
		}
		sr, err := x.chainStart(i, tr, depth)
		if err != nil {
			detail["reason"] = err.Error()
			x.emit(EventChainFailed, nil, nil, detail)
			continue
		}
		if sr == nil { // the condition does not hold
			continue
		}
		detail["instance"] = sr.snap.ID
		x.emit(EventChainStarted, nil, nil, detail)
		if sr.claimed {
			x.p.effects.chains = append(x.p.effects.chains, sr)
		}
	}
}

// chainStart stores the instance trigger i starts, or finds the one an
// earlier attempt at this end stored (then claimed is false: that one
// runs already, or recovery runs it). It returns nil when the trigger's
// condition does not hold.
func (x *instance) chainStart(i int, tr model.ChainTrigger, depth int) (*startRequest, error) {
	if tr.Condition != "" {
		prog, err := compileExpr(tr.Condition)
		if err != nil {
			return nil, fmt.Errorf("condition %q: %w", tr.Condition, err)
		}
		ok, err := x.e.eval.EvalBool(x.ctx, prog, x.vars)
		if err != nil {
			return nil, fmt.Errorf("condition %q: %w", tr.Condition, err)
		}
		if !ok {
			return nil, nil
		}
	}
	vars := map[string]any{}
	if tr.AllVariables {
		maps.Copy(vars, x.vars)
	}
	for _, m := range tr.Input {
		v, err := x.eval(x.vars, m.Source)
		if err != nil {
			return nil, fmt.Errorf("input mapping %q: %w", m.Target, err)
		}
		setPath(vars, m.Target, v)
	}
	req := StartRequest{
		Definition: tr.Target, Variables: vars,
		RequestID:   "chain:" + x.id + ":" + strconv.Itoa(i),
		triggeredBy: &ChainRef{InstanceID: x.id, Definition: x.head.DefinitionKey, Trigger: i, Depth: depth},
	}
	if tr.Binding == model.BindingVersion {
		req.Version = tr.Version
	}
	ctx, cancel := context.WithTimeout(x.ctx, loadTimeout)
	defer cancel()
	sr, err := x.e.prepareStart(ctx, req)
	if err != nil {
		return nil, err
	}
	existing, err := x.e.store.CreateInstance(ctx, sr.snap)
	switch {
	case errors.Is(err, ErrDuplicate) && unstarted(existing):
		// An earlier attempt at this end stored it, and its commit failed:
		// start that one now, as it was stored.
		req.id, req.Version = existing.ID, existing.Version
		if sr, err = x.e.prepareStart(ctx, req); err != nil {
			return nil, err
		}
	case errors.Is(err, ErrDuplicate):
		sr.snap = existing
		return sr, nil
	case err != nil:
		return nil, fmt.Errorf("storing the instance of %s: %w", tr.Target, err)
	}
	sr.claimed = true
	return sr, nil
}

// runChained runs an instance a trigger stored. When the engine stops
// first, recovery runs it.
func (e *Engine) runChained(ctx context.Context, sr *startRequest) {
	_, err := e.call(ctx, command{kind: cmdStart, inst: sr.snap.ID, start: sr})
	if err != nil && !errors.Is(err, ErrClosed) && ctx.Err() == nil {
		e.cfg.Logger.Error("starting a chained instance", "instance_id", sr.snap.ID, "err", err)
	}
}

// unstarted reports whether s was stored for an idempotent start that has
// not run yet.
func unstarted(s *Snapshot) bool {
	return s.Seq == 0 && len(s.Tokens) == 0 && s.Status == StatusRunning
}

// waitsForItsTrigger reports whether recovery must leave s unstarted: a
// triggered instance stored before its trigger's end was, whose trigger
// has not ended (or was never stored: a start whose first commit failed).
// The trigger ending again starts it.
func waitsForItsTrigger(ctx context.Context, e *Engine, s *Snapshot) bool {
	if s.TriggeredBy == nil || !unstarted(s) {
		return false
	}
	trigger, err := e.store.Instance(ctx, s.TriggeredBy.InstanceID)
	switch {
	case errors.Is(err, ErrNotFound):
		e.cfg.Logger.Warn("a triggered instance waits for an instance that was never stored: it will not start",
			"instance_id", s.ID, "trigger_instance_id", s.TriggeredBy.InstanceID)
		return true
	case err != nil:
		return false // start it: an end that might not be stored beats one never acted on
	}
	return !trigger.Status.Done()
}

// Spawns says what snap's process can start: children through call
// activities, and other instances through its triggers. Readers list
// either only when the process can have them: each list is a query on a
// field that a store without secondary indexes (the embedded one) answers
// by scanning every instance.
func (e *Engine) Spawns(ctx context.Context, snap *Snapshot) (children, triggered bool, err error) {
	dep, err := e.defs.byID(ctx, snap.DefinitionID)
	if err != nil {
		return false, false, fmt.Errorf("what %s can start: %w", snap.ID, err)
	}
	p := dep.def.Process(snap.ProcessID)
	if p == nil {
		return false, false, nil
	}
	for _, n := range p.AllNodes {
		if n.Kind == model.KindCallActivity {
			children = true
			break
		}
	}
	return children, len(p.Triggers) > 0, nil
}
