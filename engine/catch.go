package engine

import (
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/gateways"
)

// catch makes a token wait at a catching event (or receive task) for its
// timer or message.
func (x *instance) catch(t *token, n *model.Node) {
	t.status = TokenEvent
	if n.Kind == model.KindReceiveTask && t.outer == 0 {
		x.armBoundaries(t)
	}
	if err := x.subscribe(t, n); err != nil {
		x.incidentAt(t, "event", err.Error(), phaseEnter)
	}
}

// subscribe arms n's timer or opens its message subscription for token t.
func (x *instance) subscribe(t *token, n *model.Node) error {
	switch {
	case n.Trigger == model.TriggerTimer:
		due, repeat, err := x.timerDue(t, n)
		if err != nil {
			return fmt.Errorf("timer of %q: %w", n.ID, err)
		}
		sub := x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID, Timer: &due, Repeat: repeat})
		x.emit(EventTimerScheduled, n, t, map[string]any{"due": due})
		x.armTimer(sub)
	case n.Trigger == model.TriggerMultiple:
		for _, alt := range n.Alternatives {
			if alt.Trigger == model.TriggerError || alt.Trigger == model.TriggerEscalation {
				continue // found when one is thrown (throwError, escalate)
			}
			if err := x.subscribe(t, alt); err != nil {
				return err
			}
		}
	case n.Webhook != nil:
		return x.openWebhook(t, n)
	case (n.Trigger == model.TriggerMessage || n.Kind == model.KindReceiveTask) && (n.Message == nil || n.Message.Name == ""),
		n.Trigger == model.TriggerSignal && n.SignalName == "":
		// Nothing names what it waits for: only Engine.Trigger, by its id, moves it.
		x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID})
		x.emit(EventTriggerAwaited, n, t, nil)
	case n.Trigger == model.TriggerMessage || n.Kind == model.KindReceiveTask:
		name, err := x.evalString(x.evalVars(t), n.Message.Name)
		if err != nil {
			return fmt.Errorf("message name of %q: %w", n.ID, err)
		}
		key := ""
		if n.Message.CorrelationKey != "" {
			if key, err = x.evalString(x.evalVars(t), n.Message.CorrelationKey); err != nil {
				return fmt.Errorf("correlation key of %q: %w", n.ID, err)
			}
		}
		sub := x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID, Message: name, CorrelationKey: key})
		x.emit(EventMessageSubscribed, n, t, map[string]any{"message": name, "correlationKey": key})
		x.p.effects.subscribe = append(x.p.effects.subscribe, messageSub{name: name, key: key, inst: x.id, sub: sub.ID})
	case n.Trigger == model.TriggerConditional:
		sub := x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID, Conditional: true})
		x.newConds = append(x.newConds, sub.ID) // evaluated once the step is done: true on entry fires
	case n.Trigger == model.TriggerSignal:
		sub := x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID, Signal: n.SignalName})
		x.emit(EventSignalSubscribed, n, t, map[string]any{"signal": n.SignalName})
		x.p.effects.subscribe = append(x.p.effects.subscribe, signalSub(n.SignalName, x.id, sub.ID))
	default:
		return fmt.Errorf("%q has nothing to wait for", n.ID)
	}
	return nil
}

func (x *instance) addSubscription(s *Subscription) *Subscription {
	x.nextID++
	s.ID = x.nextID
	x.subs = append(x.subs, s)
	return s
}

func (x *instance) armTimer(s *Subscription) {
	x.p.effects.timers = append(x.p.effects.timers, timerArm{inst: x, sub: s.ID, due: *s.Timer})
}

// dropSubscription disarms a timer or closes a message subscription (the
// caller removes it from x.subs).
func (x *instance) dropSubscription(s *Subscription) {
	if t, ok := x.timers[s.ID]; ok {
		x.p.effects.stops = append(x.p.effects.stops, t)
		delete(x.timers, s.ID)
	}
	if s.Message != "" {
		x.p.effects.forget = append(x.p.effects.forget, messageSub{name: s.Message, key: s.CorrelationKey, inst: x.id, sub: s.ID})
	}
	if s.Signal != "" {
		x.p.effects.forget = append(x.p.effects.forget, signalSub(s.Signal, x.id, s.ID))
	}
	if s.Webhook != nil {
		x.p.effects.forget = append(x.p.effects.forget, hookSub(s.Webhook.Token, x.id, s.ID))
	}
}

// disarmToken drops every subscription a token holds (its boundary events,
// its event-gateway targets, its own catch).
func (x *instance) disarmToken(t *token) {
	x.withdrawCall(t)
	x.subs = slices.DeleteFunc(x.subs, func(s *Subscription) bool {
		if s.Token != t.id {
			return false
		}
		x.dropSubscription(s)
		return true
	})
}

func (x *instance) subscription(id uint64) *Subscription {
	for _, s := range x.subs {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// armBoundaries arms the timer and message boundary events of an activity.
func (x *instance) armBoundaries(t *token) {
	for _, b := range t.node.Boundaries {
		if b.Trigger == model.TriggerTimer || b.Trigger == model.TriggerMessage || b.Trigger == model.TriggerSignal ||
			b.Trigger == model.TriggerConditional || b.Trigger == model.TriggerMultiple {
			if err := x.subscribe(t, b); err != nil {
				x.incidentAt(t, "event", err.Error(), phaseEnter)
				return
			}
		}
	}
}

// armEventGateway waits for the first of the events after the gateway.
func (x *instance) armEventGateway(t *token) {
	t.status = TokenEvent
	for _, ev := range gateways.EventChoices(t.node) {
		if err := x.subscribe(t, ev); err != nil {
			x.disarmToken(t)
			x.incidentAt(t, "event", err.Error(), phaseEnter)
			return
		}
	}
}

// timerFired moves the token whose timer came due.
func (x *instance) timerFired(id uint64) {
	delete(x.timers, id)
	s := x.subscription(id)
	if s == nil {
		return
	}
	t := x.token(s.Token)
	if t == nil {
		return
	}
	if t.status == TokenRound {
		x.branchesTimedOut(t, s)
		return
	}
	if t.status == TokenRetry && s.ElementID == t.node.ID {
		x.removeSubscription(s)
		x.retryJob(command{token: t.id})
		return
	}
	n := x.proc.Node(s.ElementID)
	x.emit(EventTimerFired, n, t, nil)
	x.trigger(t, s, n, nil)
}

// trigger moves token t because subscription s on node n fired.
func (x *instance) trigger(t *token, s *Subscription, n *model.Node, vars map[string]any) {
	if n.ParallelMultiple { // all its definitions must happen: wait for the rest
		x.removeSubscription(s)
		x.setVars(vars)
		if slices.ContainsFunc(x.subs, func(o *Subscription) bool { return o.Token == t.id && o.ElementID == n.ID }) {
			return
		}
		vars = nil
	}
	switch {
	case t.watch:
		x.eventSubTriggered(t, s, n, vars)
	case n.Kind == model.KindBoundaryEvent:
		if err := x.outputs(t, n, vars); err != nil {
			x.incidentAt(t, "expression", err.Error(), phaseEnter)
			return
		}
		x.boundary(t, s, n)
	case t.node.Kind == model.KindEventBasedGateway:
		x.disarmToken(t)
		x.setVars(vars)
		x.emit(EventElementCompleted, t.node, t, map[string]any{"event": n.ID})
		if f := gateways.EventTaken(t.node, n); f != nil {
			x.emitFlow(f, t)
			t.node, t.via = n, f
		}
		x.emit(EventElementActivated, n, t, nil)
		x.finishActivity(t, vars)
	default: // the token's own catch event or receive task
		x.finishActivity(t, vars)
	}
}

// boundary fires boundary event n of token t's activity.
func (x *instance) boundary(t *token, s *Subscription, n *model.Node) {
	x.emit(EventBoundaryTriggered, n, t, map[string]any{"interrupting": n.Interrupting})
	if n.Interrupting {
		x.interrupt(t)
		x.work = append(x.work, step{tok: t, node: n})
		return
	}
	switch {
	case s.Conditional: // it fires again when the condition next becomes true
	case s.Timer != nil && s.Repeat != 0:
		x.rearm(t, s, n)
	case s.Timer != nil:
		x.removeSubscription(s) // a timer that fires once
	default: // a message or signal: it fires again for the next one while the activity runs
	}
	x.work = append(x.work, step{tok: x.newToken(t.scope), node: n})
}

func (x *instance) removeSubscription(s *Subscription) {
	x.dropSubscription(s)
	x.subs = slices.DeleteFunc(x.subs, func(o *Subscription) bool { return o == s })
}

// rearm schedules the next cycle of a repeating timer.
func (x *instance) rearm(t *token, s *Subscription, n *model.Node) {
	x.removeSubscription(s)
	next, err := nextCycle(n.Definition(model.TriggerTimer).Timer, *s.Timer, x)
	if err != nil {
		return
	}
	repeat := s.Repeat
	if repeat > 0 {
		repeat--
	}
	if repeat == 0 {
		return
	}
	sub := x.addSubscription(&Subscription{Token: t.id, ElementID: n.ID, Timer: &next, Repeat: repeat, Scope: s.Scope})
	x.armTimer(sub)
}

// interrupt cancels what the token's activity is doing: its job, task,
// subscriptions and, for a sub-process, everything inside it.
func (x *instance) interrupt(t *token) {
	x.unlockExternal(t) // before the job is forgotten below: its key names it
	x.moveLetter(t, DeadLetterCancelled, "")
	if t.status == TokenMulti {
		x.cancelInner(t)
	}
	x.disarmToken(t)
	if t.taskID != "" {
		x.cancelTask(t)
	}
	if t.node.Kind == model.KindSubProcess {
		for _, sc := range x.scopes {
			if sc.token == t.id {
				x.terminateScope(sc.id)
				break
			}
		}
	}
	x.emit(EventElementTerminated, t.node, t, nil)
	t.local, t.taskID, t.due, t.job, t.loops, t.listener = nil, "", nil, 0, 0, nil // a late result of the interrupted job is stale
	t.status = TokenActive
}
