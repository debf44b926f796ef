package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// partition owns a share of the instances and applies their commands one at
// a time. Its loop: take a batch of commands, apply them, commit what changed
// in one Store.Commit, then publish events and start what the changes caused.
type partition struct {
	e         *Engine
	id        int
	inbox     chan command
	instances map[string]*instance
	roundAt   atomic.Int64 // clock time (unix ns) the current round began; 0 between rounds
	// epoch is the lease epoch this replica holds the partition at, 0 while
	// it does not (with Config.Cluster; without, always 0 and unchecked).
	epoch atomic.Int64
	// fresh is how long the lease at an epoch needs no reading before new
	// instances are stored (Batch.LeaseFresh); nil while not held.
	fresh atomic.Pointer[leaseFresh]
	ctl   chan func() // the lease manager's orders (drop), run between rounds

	roundEpoch int64 // epoch as the current round began: its commit names it
	refusal    error // the NotOwnerError of a round without the lease, read once

	// the current round
	touched  []*instance
	buffers  [][]Event // emptied event buffers, handed to the next instances touched
	effects  effects
	replies  []pendingReply
	consumed int
}

type pendingReply struct {
	ch chan<- reply
	r  reply
	// created is the instance a start creates with the round's commit
	// (not stored before: no request id), whose caller must hear of it if
	// the commit stored it although it failed (failRound).
	created string
}

func newPartition(e *Engine, id int) *partition {
	return &partition{
		e:         e,
		id:        id,
		inbox:     make(chan command, e.cfg.InboxSize),
		ctl:       make(chan func(), 4),
		instances: map[string]*instance{},
	}
}

func (p *partition) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case f := <-p.ctl:
			f()
		case c := <-p.inbox:
			p.control() // a drop ordered before c was sent comes first
			p.round(ctx, c)
		}
	}
}

// control runs the lease manager's orders that wait.
func (p *partition) control() {
	for {
		select {
		case f := <-p.ctl:
			f()
		default:
			return
		}
	}
}

// round applies c and whatever else is already waiting, up to MaxBatch, then commits.
func (p *partition) round(ctx context.Context, first command) {
	p.roundAt.Store(p.e.clock.Now().UnixNano())
	defer p.roundAt.Store(0)
	p.roundEpoch, p.refusal = p.epoch.Load(), nil
	p.apply(ctx, first)
	for n := 1; n < p.e.cfg.MaxBatch; n++ {
		select {
		case c := <-p.inbox:
			p.apply(ctx, c)
		default:
			n = p.e.cfg.MaxBatch
		}
	}
	p.runCalls(ctx)
	// The commit must not stop half way because the engine is closing: it
	// gets its own deadline instead of the applier's context.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), commitTimeout)
	defer cancel()
	p.commit(cctx)
}

// runCalls carries out, inside the round, the call activity effects that
// stay in this partition: it starts the children the round's call
// activities asked for (their ids are made to land here), and hands the
// ends of children to callers applied here. A child that runs to its end
// at once thus costs its caller no second round: both commit together,
// caller first, so a crash between the two writes leaves a caller that
// starts the child again at recovery (its id in the caller's token), never
// a child without its caller. A child that cannot start here (its
// definition cannot be read, say) is left to the usual path, which reports
// the error to the caller.
func (p *partition) runCalls(ctx context.Context) {
	for {
		calls, ends := p.effects.calls, p.effects.ends
		if len(calls) == 0 && len(ends) == 0 {
			return
		}
		p.effects.calls, p.effects.ends = nil, nil
		var keepCalls []childStart
		var keepEnds []childEnd
		moved := false
		for _, cs := range calls {
			if !cs.fresh || p.e.partitionOf(cs.child) != p || !p.startChild(ctx, cs) {
				keepCalls = append(keepCalls, cs)
				continue
			}
			moved = true
		}
		for _, end := range ends {
			if p.e.partitionOf(end.parent.InstanceID) != p {
				keepEnds = append(keepEnds, end)
				continue
			}
			c := command{kind: cmdChildEnded, inst: end.parent.InstanceID, token: end.parent.Token, child: end.child, vars: end.vars, childStatus: end.status}
			if end.code != "" {
				c.err = &BPMNError{Code: end.code, Message: end.msg}
			}
			p.e.busy.Add(1) // apply counts it done with the round, as a submitted command
			p.apply(ctx, c)
			moved = true
		}
		p.effects.calls = append(keepCalls, p.effects.calls...)
		p.effects.ends = append(keepEnds, p.effects.ends...)
		if !moved {
			return
		}
	}
}

// startChild starts child cs in this round and reports whether it did.
func (p *partition) startChild(ctx context.Context, cs childStart) bool {
	lctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	req, err := p.e.startRequestOf(lctx, cs)
	if err != nil {
		return false
	}
	sr, err := p.e.prepareStart(lctx, req)
	if err != nil {
		return false
	}
	p.e.busy.Add(1)
	p.apply(ctx, command{kind: cmdStart, inst: sr.snap.ID, start: sr})
	return true
}

// commitTimeout bounds one Store.Commit; loadTimeout the reads that bring
// an instance into the applier, so a store that hangs cannot hold it.
const (
	commitTimeout = 30 * time.Second
	loadTimeout   = 10 * time.Second
)

func (p *partition) apply(ctx context.Context, c command) {
	p.consumed++
	if p.e.cluster != nil && p.roundEpoch == 0 { // lost since the command was sent
		if p.refusal == nil {
			p.refusal = p.e.notOwner(ctx, p.id)
		}
		p.answer(c, reply{err: p.refusal})
		return
	}
	inst, err := p.instance(ctx, c)
	if err != nil {
		p.answer(c, reply{err: err})
		return
	}
	if inst == nil {
		p.answer(c, reply{}) // nothing to do: e.g. a stale timer of an ended instance
		return
	}
	if !inst.dirty {
		inst.dirty = true
		inst.prevSeq = inst.seq
		if inst.events == nil && len(p.buffers) > 0 {
			inst.events = p.buffers[len(p.buffers)-1]
			p.buffers = p.buffers[:len(p.buffers)-1]
		}
		p.touched = append(p.touched, inst)
	}
	r := inst.apply(ctx, c)
	p.answer(c, r)
}

func (p *partition) answer(c command, r reply) {
	if c.reply == nil {
		return
	}
	pr := pendingReply{ch: c.reply, r: r}
	if c.kind == cmdStart && !c.start.claimed {
		pr.created = c.inst
	}
	p.replies = append(p.replies, pr)
}

// instance finds the instance a command is for, loading it from the store
// (within loadTimeout) when this applier does not hold it.
func (p *partition) instance(ctx context.Context, c command) (*instance, error) {
	if c.kind == cmdStart {
		inst := newInstance(p, c.start)
		if old := p.instances[inst.id]; old != nil {
			return nil, fmt.Errorf("instance %s exists already: %w", inst.id, ErrDuplicate)
		}
		p.instances[inst.id] = inst
		return inst, nil
	}
	if inst := p.instances[c.inst]; inst != nil {
		return inst, nil
	}
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	snap := c.snap
	if snap == nil {
		var err error
		if snap, err = p.e.store.Instance(ctx, c.inst); err != nil {
			return nil, fmt.Errorf("loading instance %s: %w", c.inst, err)
		}
	}
	if snap.Status.Done() {
		if c.kind == cmdLoad || c.kind == cmdTimer || c.kind == cmdJobDone || c.kind == cmdJobFailed || c.kind == cmdRetry {
			return nil, nil
		}
		return nil, fmt.Errorf("instance %s is %s: %w", c.inst, snap.Status, ErrInstanceEnded)
	}
	inst, err := restoreInstance(ctx, p, snap)
	if err != nil {
		return nil, err
	}
	p.instances[inst.id] = inst
	return inst, nil
}

// leaseFresh says whether the round's lease was written recently enough
// that no other replica can hold it (Batch.LeaseFresh).
func (p *partition) leaseFresh() bool {
	f := p.fresh.Load()
	return p.roundEpoch != 0 && f != nil && f.epoch == p.roundEpoch && p.e.clock.Now().Before(f.until)
}

// commit stores the round's changes, then makes them visible.
func (p *partition) commit(ctx context.Context) {
	defer p.reset()
	if len(p.touched) > 0 {
		b := &Batch{Changes: make([]Change, 0, len(p.touched)), Epoch: p.roundEpoch, LeaseFresh: p.leaseFresh}
		for _, inst := range p.touched {
			b.Changes = append(b.Changes, inst.change())
		}
		if err := p.e.store.Commit(ctx, b); err != nil {
			// Dropped before the callers hear of it: once told "fenced",
			// they find the partition gone.
			if errors.Is(err, ErrFenced) && p.e.cluster != nil {
				p.e.cluster.fenced(p, p.roundEpoch)
			}
			p.failRound(ctx, fmt.Errorf("storing changes: %w", err))
			return
		}
		for i, inst := range p.touched {
			p.e.export(inst.events)
			p.e.exportTasks(b.Changes[i].Tasks)
			inst.committed()
			p.buffers = append(p.buffers, inst.events)
			inst.events = nil
			if inst.status.Done() || inst.idle() {
				delete(p.instances, inst.id)
			}
		}
	}
	p.effects.run(p.e)
	for _, r := range p.replies {
		r.ch <- r.r
	}
}

// failRound forgets the in-memory state of every instance the round touched:
// the store still has their last committed state, which the next command
// reloads. Callers get the error; nothing the round caused is started.
//
// A fenced commit may have stored some of its changes before the fence
// refused the others: a new instance the new owner's fence stamped runs
// there. Its start's caller hears that it started, not to try again: a
// start without request id would start a second instance.
func (p *partition) failRound(ctx context.Context, err error) {
	p.e.cfg.Logger.Error("commit failed; changes are dropped and instances reload from the store", "err", err, "partition", p.id)
	for _, inst := range p.touched {
		inst.discardTimers()
		delete(p.instances, inst.id)
	}
	fenced := errors.Is(err, ErrFenced)
	for i, r := range p.replies {
		if fenced && r.created != "" && r.r.err == nil && p.storedAnyway(ctx, r.created) {
			continue
		}
		p.replies[i].r = reply{err: err}
	}
	for _, r := range p.replies {
		r.ch <- r.r
	}
}

// storedAnyway reports whether instance id is stored after a commit that
// failed.
func (p *partition) storedAnyway(ctx context.Context, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, loadTimeout)
	defer cancel()
	_, err := p.e.store.Instance(ctx, id)
	return err == nil
}

// drop forgets the partition's instances after its lease was lost, and
// everything armed for them: timers and deadlines, message and signal
// subscriptions, external jobs. The replica that took the partition
// loads them from the store and arms them again.
func (p *partition) drop() {
	for id, inst := range p.instances {
		inst.discardTimers()
		if inst.deadline != nil {
			inst.deadline.Stop()
		}
		delete(p.instances, id)
	}
	mine := func(inst string) bool { return p.e.partitionOf(inst) == p }
	p.e.messages.dropWhere(mine)
	p.e.external.dropWhere(mine)
}

func (p *partition) reset() {
	for _, inst := range p.touched {
		inst.dirty = false
	}
	clear(p.touched)
	p.touched = p.touched[:0]
	p.effects.reset()
	clear(p.replies)
	p.replies = p.replies[:0]
	for ; p.consumed > 0; p.consumed-- {
		p.e.done()
	}
}

// StuckPartitions lists the partitions whose current round has run for
// longer than d: no command of their instances is applied meanwhile. A round
// is bounded by its store calls' deadlines and scripts' budgets, so one that
// outlasts them means an applier that no longer moves (issue 11 adds
// partitions that no replica owns).
func (e *Engine) StuckPartitions(d time.Duration) []int {
	now := e.clock.Now().UnixNano()
	var stuck []int
	for _, p := range e.partitions {
		if at := p.roundAt.Load(); at != 0 && now-at > d.Nanoseconds() {
			stuck = append(stuck, p.id)
		}
	}
	return stuck
}
