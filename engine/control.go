package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
)

// start puts the first token on the start event.
func (x *instance) start(req *startRequest) {
	x.armDeadline()
	detail := map[string]any{"definition": x.head.DefinitionKey, "version": x.head.Version, "businessKey": x.head.BusinessKey}
	if req.warning != "" {
		detail["warning"] = req.warning
	}
	x.emit(EventInstanceStarted, nil, nil, detail)
	x.armEventSubs(0, &x.proc.Scope)
	if req.start == nil { // no start event: a token at every node no flow enters
		for _, n := range x.proc.Scope.ImplicitStarts() {
			x.work = append(x.work, step{tok: x.newToken(0), node: n})
		}
		return
	}
	t := x.newToken(0)
	if req.triggered {
		t.node = req.start
		x.emit(EventElementActivated, req.start, t, nil)
		if req.start.ParallelMultiple && x.awaitOtherDefinitions(t, req.fired) {
			return
		}
		x.leave(t)
		return
	}
	x.work = append(x.work, step{tok: t, node: req.start})
}

// awaitOtherDefinitions makes a parallel multiple start event, one of whose
// definitions (fired) started the instance, wait for all the others
// (BPMN: all its triggers are needed): the instance exists from the first,
// and the next ones reach its subscriptions. It reports whether t waits.
func (x *instance) awaitOtherDefinitions(t *token, fired model.Trigger) bool {
	t.status = TokenEvent
	skipped := false
	for _, alt := range t.node.Alternatives {
		if !skipped && alt.Trigger == fired {
			skipped = true
			continue
		}
		if err := x.subscribe(t, alt); err != nil {
			x.incidentAt(t, "event", err.Error(), phaseEnter)
			return true
		}
	}
	if !slices.ContainsFunc(x.subs, func(s *Subscription) bool { return s.Token == t.id }) {
		t.status = TokenActive
		return false
	}
	return true
}

// load brings a stored instance back to life after a restart: timers are
// armed again, subscriptions reopened, and work that was under way runs again
// (at least once: handlers get an idempotency key).
func (x *instance) load() {
	if x.head.Seq == 0 && len(x.tokens) == 0 {
		// created, but the start never got stored: start it now
		x.start(&startRequest{start: x.proc.Node(x.head.StartElement)}) // nil: an implicit start
		return
	}
	x.armDeadline()
	if x.status == StatusPaused {
		return
	}
	x.rearmAll()
}

// rearmAll arms every stored timer and subscription and re-dispatches work.
func (x *instance) rearmAll() {
	for _, s := range x.subs {
		if s.Timer != nil {
			x.armTimer(s)
		}
		if s.Message != "" {
			x.p.effects.subscribe = append(x.p.effects.subscribe, messageSub{name: s.Message, key: s.CorrelationKey, inst: x.id, sub: s.ID})
		}
		if s.Signal != "" {
			x.p.effects.subscribe = append(x.p.effects.subscribe, signalSub(s.Signal, x.id, s.ID))
		}
		if s.Webhook != nil {
			x.p.effects.subscribe = append(x.p.effects.subscribe, hookSub(s.Webhook.Token, x.id, s.ID))
		}
	}
	for _, t := range x.tokens {
		switch t.status {
		case TokenJob:
			x.dispatch(t)
		case TokenCall:
			// Start the child again, or find it: the request id makes it one.
			if cs, err := x.childStart(t, 0); err == nil {
				if x.head.Parent != nil {
					cs.parent.Depth = x.head.Parent.Depth + 1
				} else {
					cs.parent.Depth = 1
				}
				x.p.effects.calls = append(x.p.effects.calls, cs)
			}
		}
	}
}

func (x *instance) pause() error {
	if x.status.Done() {
		return fmt.Errorf("instance %s is %s: %w", x.id, x.status, ErrInstanceEnded)
	}
	if x.status == StatusPaused {
		return nil
	}
	for _, s := range x.subs { // timers hold while paused
		if t, ok := x.timers[s.ID]; ok {
			x.p.effects.stops = append(x.p.effects.stops, t)
			delete(x.timers, s.ID)
		}
	}
	x.status = StatusPaused
	x.emit(EventInstancePaused, nil, nil, nil)
	return nil
}

func (x *instance) resume(ctx context.Context) error {
	if x.status != StatusPaused {
		return fmt.Errorf("instance %s is %s, not paused: %w", x.id, x.status, ErrInvalidState)
	}
	x.status = StatusRunning
	x.emit(EventInstanceResumed, nil, nil, nil)
	for _, s := range x.subs {
		if s.Timer != nil {
			x.armTimer(s) // a timer that came due while paused fires at once
		}
	}
	for _, t := range x.tokens {
		if t.status == TokenJob && t.job == 0 {
			x.dispatch(t) // loaded while paused: its work never started
		}
	}
	held := x.held
	x.held = nil
	for _, c := range held {
		_ = x.do(ctx, c) // held commands are results and timers: no caller waits for them
	}
	return nil
}

func (x *instance) cancel() error {
	if x.status.Done() {
		return fmt.Errorf("instance %s is %s: %w", x.id, x.status, ErrInstanceEnded)
	}
	x.terminateAll()
	x.finish(StatusCancelled, EventInstanceCancelled, nil)
	return nil
}

// terminateAll removes every token, closing tasks and incidents and
// withdrawing external jobs (a worker must not fetch work of an ended instance).
func (x *instance) terminateAll() {
	for i := len(x.tokens) - 1; i >= 0; i-- {
		t := x.tokens[i]
		x.unlockExternal(t)
		x.disarmToken(t)
		if t.taskID != "" {
			x.cancelTask(t)
		}
		x.resolveIncidentsOf(t)
		x.moveLetter(t, DeadLetterCancelled, "")
		x.emit(EventElementTerminated, t.node, t, nil)
		t.removed = true
	}
	x.tokens = nil
	x.scopes = nil
	x.held = nil
}

func (x *instance) setVariables(c command) error {
	if x.status.Done() {
		return fmt.Errorf("instance %s is %s: %w", x.id, x.status, ErrInstanceEnded)
	}
	x.setVars(c.vars)
	x.emit(EventVariablesChanged, nil, nil, map[string]any{"variables": keys(c.vars), "by": c.user})
	return nil
}

// move takes a token off its node and puts it on another node of the same
// scope (an operator's modification).
func (x *instance) move(c command) error {
	if x.status.Done() {
		return fmt.Errorf("instance %s is %s: %w", x.id, x.status, ErrInstanceEnded)
	}
	t := x.token(c.token)
	if t == nil {
		return fmt.Errorf("token %d is not in instance %s: %w", c.token, x.id, ErrNotFound)
	}
	target := x.proc.Node(c.target)
	switch {
	case target == nil:
		return fmt.Errorf("element %q is not in the process: %w", c.target, ErrNotFound)
	case target.Scope != t.node.Scope:
		return fmt.Errorf("element %q is in another scope than the token: %w", c.target, ErrInvalidState)
	case target.Kind == model.KindBoundaryEvent || target.Kind == model.KindStartEvent && target.Trigger != model.TriggerNone:
		return fmt.Errorf("a token cannot be moved onto %s %q: %w", target.Kind, target.ID, ErrInvalidState)
	}
	x.resolveIncidentsOf(t)
	x.interrupt(t)
	x.work = append(x.work, step{tok: t, node: target})
	return nil
}
