package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/workflowpp/wfpp/engine/model"
)

// Signals are broadcast: every subscription with the signal's name fires,
// in every instance, and every deployed definition whose main process has a
// signal start event of that name starts an instance. Subscriptions live in
// the message index under a name of their own (signalSub).

// signalSub is a signal subscription as the message index keeps it.
func signalSub(name, inst string, sub uint64) messageSub {
	return messageSub{name: "\x00signal\x00" + name, inst: inst, sub: sub}
}

// Signal broadcasts a signal with variables, on this replica and on the
// others (Config.Peers), and returns how many instances took it (started
// ones included). A signal nobody waits for is not an error: it returns 0.
func (e *Engine) Signal(ctx context.Context, name string, vars map[string]any) (int, error) {
	n, err := e.SignalHere(ctx, name, vars)
	if err != nil {
		return n, err
	}
	if e.cfg.Peers != nil {
		more, err := e.cfg.Peers.Signal(ctx, name, vars)
		if n += more; err != nil {
			return n, err
		}
	}
	started, err := e.startByEvent(ctx, model.TriggerSignal, name, vars, "")
	return n + started, err
}

// SignalHere delivers a signal to the instances of the partitions this
// replica holds that wait for it; it starts nothing. Another replica's
// Peers.Signal arrives here.
func (e *Engine) SignalHere(ctx context.Context, name string, vars map[string]any) (int, error) {
	if name == "" {
		return 0, fmt.Errorf("signal has no name: %w", ErrInvalidInput)
	}
	if err := e.checkVariables(vars); err != nil {
		return 0, err
	}
	n := 0
	key := signalSub(name, "", 0)
	for _, s := range e.messages.candidates(key.name, "") {
		_, err := e.call(ctx, command{kind: cmdSignal, inst: s.inst, name: name, vars: vars})
		switch {
		case err == nil:
			n++
		case errors.Is(err, ErrNotFound), errors.Is(err, ErrInstanceEnded), isNotOwner(err):
		default:
			return n, err
		}
	}
	return n, nil
}

// broadcast delivers a signal thrown by a process to the subscriptions that
// existed when it was thrown, and to the other replicas' instances waiting
// for it (Config.Peers), then starts the definitions it starts.
func (e *Engine) broadcast(ctx context.Context, name string, subs []messageSub) error {
	for _, s := range subs {
		_, err := e.call(ctx, command{kind: cmdSignal, inst: s.inst, name: name, sub: s.sub})
		if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrInstanceEnded) && !isNotOwner(err) {
			return err
		}
	}
	if e.cfg.Peers != nil {
		if _, err := e.cfg.Peers.Signal(ctx, name, nil); err != nil {
			return err
		}
	}
	_, err := e.startByEvent(ctx, model.TriggerSignal, name, nil, "")
	return err
}

// signalArrived fires every subscription of the instance waiting for the
// signal, or only the one a process's throw reached (c.sub).
func (x *instance) signalArrived(c command) error {
	var subs []*Subscription
	for _, s := range x.subs {
		if s.Signal == c.name && (c.sub == 0 || s.ID == c.sub) {
			subs = append(subs, s)
		}
	}
	if len(subs) == 0 {
		return fmt.Errorf("nothing in instance %s waits for signal %q: %w", x.id, c.name, ErrNotFound)
	}
	for _, s := range subs {
		if x.subscription(s.ID) == nil {
			continue // an earlier one in this loop disarmed it (same token)
		}
		t := x.token(s.Token)
		if t == nil {
			continue
		}
		n := x.proc.Node(s.ElementID)
		x.emit(EventSignalReceived, n, t, map[string]any{"signal": c.name})
		x.trigger(t, s, n, c.vars)
	}
	return nil
}

// throwSignal broadcasts the signal of a throw or end event once the round
// that threw it is stored, without holding the applier.
func (x *instance) throwSignal(t *token, n *model.Node) {
	x.emit(EventSignalThrown, n, t, map[string]any{"signal": n.SignalName})
	if n.SignalName == "" {
		return // a throw that names no signal (a drawing) reaches no one
	}
	x.p.effects.signals = append(x.p.effects.signals, n.SignalName)
}
