package engine

import (
	"context"
	"errors"
	"time"
)

// effects are what a round caused outside the instance state: they start
// only after the round is stored.
type effects struct {
	jobs        []*jobRun
	timers      []timerArm
	stops       []Timer
	subscribe   []messageSub
	forget      []messageSub
	external    []*jobRun
	unlock      []string // external job keys to drop
	signals     []string // signals thrown, to broadcast
	calls       []childStart
	ends        []childEnd // called instances that ended, to tell their callers
	cancels     []string   // called instances whose call activity was withdrawn
	escalations []childEscalation
	deadlines   []timerArm      // instance timeouts to arm (timeout.go)
	chains      []*startRequest // instances triggers stored, to run (chain.go)
}

type timerArm struct {
	inst *instance
	sub  uint64
	due  time.Time
}

func (f *effects) run(e *Engine) {
	// A thrown signal reaches the subscriptions that existed when it was
	// thrown, not those its own round opened (a catch right after the throw
	// waits for the next one).
	thrown := make([][]messageSub, len(f.signals))
	for i, name := range f.signals {
		thrown[i] = e.messages.all(signalSub(name, "", 0).name)
	}
	for _, t := range f.stops {
		t.Stop()
	}
	for _, s := range f.forget {
		e.messages.remove(s)
	}
	for _, s := range f.subscribe {
		e.messages.add(s)
	}
	if len(f.subscribe) > 0 {
		e.buffer.opened(f.subscribe) // kept messages may match now that the index has them
	}
	for _, k := range f.unlock {
		e.external.remove(k)
	}
	for _, j := range f.external {
		e.external.add(j)
	}
	now := e.clock.Now()
	for _, a := range f.timers {
		inst, sub := a.inst.id, a.sub
		t := e.clock.AfterFunc(a.due.Sub(now), func() {
			_ = e.submit(context.Background(), command{kind: cmdTimer, inst: inst, sub: sub})
		})
		if a.inst.timers == nil {
			a.inst.timers = map[uint64]Timer{}
		}
		a.inst.timers[sub] = t
	}
	f.armDeadlines(e)
	for _, j := range f.jobs {
		e.busy.Add(1)
		e.workers.dispatch(j)
	}
	for _, cs := range f.calls {
		e.busy.Add(1)
		go func() { defer e.done(); e.startChild(e.ctx, cs) }()
	}
	for _, sr := range f.chains {
		e.busy.Add(1)
		go func() { defer e.done(); e.runChained(e.ctx, sr) }()
	}
	for _, end := range f.ends {
		e.busy.Add(1)
		go func() { defer e.done(); e.tellParent(e.ctx, end) }()
	}
	for _, esc := range f.escalations {
		e.busy.Add(1)
		go func() {
			defer e.done()
			_ = e.submit(e.ctx, command{kind: cmdChildEscalated, inst: esc.parent.InstanceID, token: esc.parent.Token, child: esc.child, name: esc.code})
		}()
	}
	for _, id := range f.cancels {
		e.busy.Add(1)
		go func() {
			defer e.done()
			if _, err := e.Cancel(e.ctx, id); err != nil && !errors.Is(err, ErrInstanceEnded) && !errors.Is(err, ErrNotFound) {
				e.cfg.Logger.Error("cancelling a called instance", "instance_id", id, "err", err)
			}
		}()
	}
	for i, name := range f.signals {
		subs := thrown[i]
		e.busy.Add(1)
		go func() {
			defer e.done()
			if err := e.broadcast(e.ctx, name, subs); err != nil {
				e.cfg.Logger.Error("broadcasting signal", "signal", name, "err", err)
			}
		}()
	}
}

func (f *effects) reset() {
	clear(f.jobs)
	f.jobs = f.jobs[:0]
	clear(f.timers)
	f.timers = f.timers[:0]
	clear(f.stops)
	f.stops = f.stops[:0]
	f.subscribe = f.subscribe[:0]
	f.forget = f.forget[:0]
	clear(f.external)
	f.external = f.external[:0]
	f.unlock = f.unlock[:0]
	f.signals = f.signals[:0]
	clear(f.calls)
	f.calls = f.calls[:0]
	clear(f.ends)
	f.ends = f.ends[:0]
	f.cancels = f.cancels[:0]
	f.escalations = f.escalations[:0]
	clear(f.deadlines)
	f.deadlines = f.deadlines[:0]
	clear(f.chains)
	f.chains = f.chains[:0]
}
