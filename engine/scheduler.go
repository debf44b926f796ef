package engine

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// scheduler fires the stored schedules. It keeps the next fire time of every
// enabled schedule in an in-memory heap, rebuilt from the store at Run, and
// one clock timer for the earliest. A due schedule goes to one of the
// workers, always the same one for the same schedule, so a schedule is never
// worked on twice at once in this process; the store's guarded writes keep
// two processes from claiming the same tick. No store query looks for due
// schedules, and a claim starts from the schedule as last planned: each tick
// costs one write by _id (process), and a read only when another process
// changed the schedule meanwhile. The claims of the schedules due at once
// go to the store together (scheduleWriter), and so do their instances'
// starts (the partitions' commits).
//
// A tick is claimed up to scheduleClaimAhead before it is due, and its
// instance started when it is due: when thousands of schedules share a
// tick, their claims are written in the seconds before it, and the tick
// itself costs only the starts.
type scheduler struct {
	e      *Engine
	seed   maphash.Seed
	work   []chan []string
	writer scheduleWriter

	mu      sync.Mutex
	due     dueHeap
	byID    map[string]*dueEntry
	timer   Timer
	timerAt time.Time
	known   map[string]Schedule      // schedule id → the schedule as last planned, to claim without reading it
	owner   map[string]string        // instance id → schedule id, for runs still going
	retries map[string]map[int64]int // schedule id → pending tick (unix ms) → failed attempts
	started map[string][]time.Time   // schedule id → pending ticks whose instance this process started
	ahead   map[string][]time.Time   // schedule id → ticks this process claimed before they were due, not started yet
}

// schedulerWorkers is how many workers share the schedules, and
// schedulerFanOut how many schedules each works on at once (processAll).
// Claims and starts under way together share the store's writes (the
// scheduleWriter's, the partitions' commits), so a tick when thousands of
// schedules are due goes in a few dozen of each rather than thousands.
// 512 at once fill the store's update commands (32 statements) and
// commits of about 60 instances; more only cost CPU (in memory, a tick of
// 10,000 fires took about 10% more at 8 each than at 1, 30% at 16, 60% at
// 64).
const (
	schedulerWorkers = 64
	schedulerFanOut  = 8
)

// scheduleClaimAhead is how long before a tick the scheduler claims it, as
// Quartz acquires triggers within a "fire-ahead" window. Claiming 10,000
// schedules on the embedded store takes about a second, and a tick whose
// claims were all written before it starts its instances within a second.
// A change to a schedule's timing, or disabling it, drops the ticks
// claimed ahead (Schedule.dropAhead); in a cluster, where the change may
// come through another replica, a tick claimed ahead is read again before
// it starts (claim).
const scheduleClaimAhead = 5 * time.Second

func newScheduler(e *Engine) *scheduler {
	return &scheduler{
		e: e, seed: maphash.MakeSeed(), writer: scheduleWriter{e: e}, byID: map[string]*dueEntry{}, known: map[string]Schedule{},
		owner: map[string]string{}, retries: map[string]map[int64]int{}, started: map[string][]time.Time{},
		ahead: map[string][]time.Time{},
	}
}

// run loads the schedules and starts the workers.
func (s *scheduler) run(ctx context.Context) error {
	all, err := s.e.store.Schedules(ctx)
	if err != nil {
		return fmt.Errorf("loading schedules: %w", err)
	}
	for range schedulerWorkers {
		ch := make(chan []string, 64)
		s.work = append(s.work, ch)
		s.e.wg.Add(1)
		go func() { defer s.e.wg.Done(); s.worker(ch) }()
	}
	s.e.Subscribe(ExporterFunc(s.export))
	for _, sc := range all {
		if s.off(sc) {
			continue
		}
		for _, r := range sc.Runs {
			if r.Status == RunStarted {
				s.mu.Lock()
				s.owner[r.InstanceID] = sc.ID
				s.mu.Unlock()
			}
		}
		if len(sc.Pending) > 0 { // a crash left claimed ticks: start them (their request ids make that idempotent)
			s.dispatch(sc.ID)
		}
		s.plan(sc)
	}
	if s.e.cfg.Cluster != nil {
		s.resyncEvery()
	}
	return nil
}

// scheduleResync is how often a replica reads every schedule again
// (Config.Cluster): schedules created, changed or deleted through another
// replica are otherwise known here only from the next Run, and a schedule
// only a stopped replica knew of would not fire.
const scheduleResync = ScheduleMisfire / 2

func (s *scheduler) resyncEvery() {
	s.e.clock.AfterFunc(scheduleResync, func() {
		if s.e.ctx.Err() != nil {
			return
		}
		if err := s.resync(s.e.ctx); err != nil && !errors.Is(err, context.Canceled) {
			s.e.cfg.Logger.Error("schedules not read again", "err", err)
		}
		s.resyncEvery()
	})
}

// resync plans every stored schedule again, from one read of them all,
// and drops those no longer stored.
func (s *scheduler) resync(ctx context.Context) error {
	all, err := s.e.store.Schedules(ctx)
	if err != nil {
		return err
	}
	stored := make(map[string]bool, len(all))
	for _, sc := range all {
		stored[sc.ID] = true
		s.plan(sc)
	}
	s.mu.Lock()
	var gone []string
	for id := range s.byID {
		if !stored[id] {
			gone = append(gone, id)
		}
	}
	s.mu.Unlock()
	for _, id := range gone {
		s.plan(Schedule{ID: id})
	}
	return nil
}

// off reports whether a schedule is a timer start event's while they are
// turned off (Config.NoStartTimers).
func (s *scheduler) off(sc Schedule) bool {
	return sc.Source == ScheduleSourceBPMN && s.e.cfg.NoStartTimers
}

// plan puts a schedule's next tick in the heap, or takes it out, and keeps
// the schedule for its next claim.
func (s *scheduler) plan(sc Schedule) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.byID[sc.ID]; old != nil {
		heap.Remove(&s.due, old.index)
		delete(s.byID, sc.ID)
	}
	delete(s.known, sc.ID)
	if sc.Rev > 0 { // a stored schedule, not one deleted
		s.known[sc.ID] = sc
	}
	if ahead := slices.DeleteFunc(s.ahead[sc.ID], func(t time.Time) bool { return !slices.ContainsFunc(sc.Pending, t.Equal) }); len(ahead) > 0 {
		s.ahead[sc.ID] = ahead
	} else {
		delete(s.ahead, sc.ID) // started, or dropped by a change
	}
	if at, ok := sc.wake(s.e.clock.Now(), s.ahead[sc.ID]); ok && sc.Enabled && !s.off(sc) {
		d := &dueEntry{id: sc.ID, at: at}
		heap.Push(&s.due, d)
		s.byID[sc.ID] = d
	}
	s.arm()
}

// wake is when the scheduler next works on sc: scheduleClaimAhead before
// its next tick, to claim it, or when a tick claimed ahead is due, to
// start it. mine are the ticks this process claimed ahead and has not
// started, due or not; of the other pending ticks only those not due yet
// count (those due are being started, or wait for a run to end or a retry).
func (sc *Schedule) wake(now time.Time, mine []time.Time) (time.Time, bool) {
	var at time.Time
	earlier := func(t time.Time) {
		if at.IsZero() || t.Before(at) {
			at = t
		}
	}
	if !sc.NextFire.IsZero() {
		earlier(sc.NextFire.Add(-scheduleClaimAhead))
	}
	for _, t := range sc.Pending {
		if t.After(now) || slices.ContainsFunc(mine, t.Equal) {
			earlier(t)
		}
	}
	return at, !at.IsZero()
}

// arm sets the clock timer for the earliest tick; s.mu is held. A tick
// already due (the scheduler was away, or busy) fires at once.
func (s *scheduler) arm() {
	if len(s.due) == 0 {
		return
	}
	at := s.due[0].at
	if s.timer != nil && s.timerAt.Equal(at) {
		return
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	wait := at.Sub(s.e.clock.Now())
	if wait <= 0 {
		s.e.busy.Add(1)
		go func() { // not here: s.mu is held, and the caller may be the worker dispatch feeds
			defer s.e.done()
			s.fire()
		}()
		return
	}
	s.timerAt = at
	s.timer = s.e.clock.AfterFunc(wait, s.fire)
}

// fire hands every due schedule to its worker.
func (s *scheduler) fire() {
	now := s.e.clock.Now()
	s.mu.Lock()
	if s.timer != nil && !s.timerAt.After(now) {
		s.timer = nil // this one fired
	}
	var ids []string
	for len(s.due) > 0 && !s.due[0].at.After(now) {
		d := heap.Pop(&s.due).(*dueEntry)
		delete(s.byID, d.id)
		ids = append(ids, d.id)
	}
	s.arm()
	s.mu.Unlock()
	s.dispatch(ids...)
}

// dispatch queues schedules for their workers, always the same one for
// the same schedule; the engine counts each busy until its worker is done.
func (s *scheduler) dispatch(ids ...string) {
	if len(s.work) == 0 { // not running yet: run picks them up
		return
	}
	byWorker := map[uint64][]string{}
	for _, id := range ids {
		w := maphash.String(s.seed, id) % uint64(len(s.work))
		byWorker[w] = append(byWorker[w], id)
	}
	for w, batch := range byWorker {
		s.e.busy.Add(int64(len(batch)))
		select {
		case s.work[w] <- batch:
		case <-s.e.ctx.Done():
			for range batch {
				s.e.done()
			}
		}
	}
}

// worker takes every schedule queued for it and works on them until all
// are done: no schedule is worked on twice at once.
func (s *scheduler) worker(ch chan []string) {
	for {
		select {
		case <-s.e.ctx.Done():
			return
		case ids := <-ch:
			ids = drain(ch, ids)
			s.processAll(ids)
			for range ids {
				s.e.done()
			}
		}
	}
}

// processAll works on schedules, schedulerFanOut at once.
func (s *scheduler) processAll(ids []string) {
	todo := slices.Clone(ids)
	slices.Sort(todo)
	todo = slices.Compact(todo) // queued twice: one look at it does for both
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(todo), schedulerFanOut) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(todo)); i = next.Add(1) - 1 {
				if err := s.process(s.e.ctx, todo[i]); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ErrClosed) {
					s.e.cfg.Logger.Error("schedule did not fire", "schedule_id", todo[i], "err", err)
				}
			}
		})
	}
	wg.Wait()
}

// drain adds to ids those queued on ch after them.
func drain(ch chan []string, ids []string) []string {
	for {
		select {
		case more := <-ch:
			ids = append(ids, more...)
		default:
			return ids
		}
	}
}

// process claims the due ticks of a schedule and starts their instances.
//
// A schedule without a cap on its runs costs one write per tick: the claim
// records each tick's run, with the id its instance will have, and the
// instance is then started under that id, so a start repeated (after a
// crash, or by another process finding the tick pending) finds the instance
// there rather than making a second. The tick leaves Pending with the next
// claim. A capped schedule decides at start whether a tick runs, is skipped
// or waits, and records the outcome with a second write (settle).
func (s *scheduler) process(ctx context.Context, id string) error {
	sc, fresh, err := s.claim(ctx, id)
	if err != nil || sc == nil {
		return err
	}
	defer func() { s.plan(*sc) }()
	now := s.e.clock.Now()
	for _, tick := range slices.Clone(sc.Pending) {
		if s.wasStarted(sc.ID, tick) {
			continue
		}
		claimedHere := slices.ContainsFunc(fresh, tick.Equal) || s.claimedAhead(sc.ID, tick)
		if tick.After(now) { // claimed ahead: plan wakes the scheduler when it is due
			if claimedHere {
				s.markAhead(sc.ID, tick)
			}
			continue
		}
		if pre, ok := sc.startedRun(tick); ok {
			if !claimedHere && s.exists(ctx, pre.InstanceID) {
				s.markStarted(sc.ID, tick) // an earlier run of this or another process started it
				continue
			}
			retried := s.failedBefore(sc.ID, tick)
			run, retryIn := s.start(ctx, sc, tick, pre.InstanceID)
			if retryIn != 0 {
				s.retryAfter(sc.ID, retryIn)
				return nil
			}
			if run.Status == RunStarted && !retried { // as recorded: nothing to write
				s.markStarted(sc.ID, tick)
				continue
			}
			if err := s.settle(ctx, sc, tick, run); err != nil {
				return err
			}
			continue
		}
		if sc.capped() {
			if running := s.running(ctx, sc); running >= sc.MaxConcurrentRuns {
				if sc.Overlap == OverlapQueue {
					return nil // the tick waits in Pending until a run ends (export)
				}
				if err := s.settle(ctx, sc, tick, ScheduleRun{Status: RunSkipped, Error: fmt.Sprintf("%d runs still going (maxConcurrentRuns)", running)}); err != nil {
					return err
				}
				continue
			}
		}
		run, retryIn := s.start(ctx, sc, tick, "")
		if retryIn != 0 {
			s.retryAfter(sc.ID, retryIn)
			return nil
		}
		if err := s.settle(ctx, sc, tick, run); err != nil {
			return err
		}
	}
	return nil
}

// capped reports whether a tick may have to wait or be skipped for the
// runs still going.
func (sc *Schedule) capped() bool { return sc.MaxConcurrentRuns > 0 && sc.Overlap != OverlapAllow }

// startedRun is the run recorded started for a pending tick: its claim
// chose the instance's id (process).
func (sc *Schedule) startedRun(tick time.Time) (ScheduleRun, bool) {
	for _, r := range sc.Runs {
		if r.Status == RunStarted && r.Scheduled.Equal(tick) {
			return r, true
		}
	}
	return ScheduleRun{}, false
}

// exists reports whether an instance is stored; unknown counts as yes, so
// that nothing starts twice.
func (s *scheduler) exists(ctx context.Context, id string) bool {
	_, err := s.e.store.Instance(ctx, id)
	return !errors.Is(err, ErrNotFound)
}

// failedBefore reports whether starting a tick failed before, so its run
// as recorded at the claim no longer says when it fired.
func (s *scheduler) failedBefore(id string, tick time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retries[id][tick.UnixMilli()] > 0
}

func (s *scheduler) wasStarted(id string, tick time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.started[id], tick.Equal)
}

func (s *scheduler) markStarted(id string, tick time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.started[id] = append(s.started[id], tick)
	s.ahead[id] = slices.DeleteFunc(s.ahead[id], tick.Equal)
}

// markAhead notes a tick this process claimed before it was due: when it
// is, its instance starts without asking the store whether another process
// started it (process).
func (s *scheduler) markAhead(id string, tick time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.ContainsFunc(s.ahead[id], tick.Equal) {
		s.ahead[id] = append(s.ahead[id], tick)
	}
}

func (s *scheduler) claimedAhead(id string, tick time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.ahead[id], tick.Equal)
}

// aheadDue reports whether a tick this process claimed ahead is due.
func (s *scheduler) aheadDue(id string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.ahead[id], func(t time.Time) bool { return !t.After(now) })
}

// claim moves the ticks due within scheduleClaimAhead from NextFire into
// Pending with one guarded write, applying the catch-up policy to ticks
// missed during an outage; for a schedule without a cap it records their
// runs as started, with their instances' ids (process). The same write
// takes out of Pending the ticks this process started since. It returns the
// schedule as stored, nil when it is gone or disabled, and the ticks it
// claimed.
func (s *scheduler) claim(ctx context.Context, id string) (*Schedule, []time.Time, error) {
	s.mu.Lock()
	sc, known := s.known[id] // as this process last stored or read it: a stale one fails the guarded write
	s.mu.Unlock()
	if known && s.e.cfg.Cluster != nil && s.aheadDue(id, s.e.clock.Now()) {
		known = false // another replica may have changed or disabled it since this one claimed the tick
	}
	for {
		var err error
		if !known {
			sc, err = s.e.store.Schedule(ctx, id)
		}
		known = false
		if errors.Is(err, ErrNotFound) {
			s.forget(id, nil)
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if !sc.Enabled {
			return nil, nil, nil
		}
		now := s.e.clock.Now()
		horizon := now.Add(scheduleClaimAhead)
		if sc.NextFire.IsZero() || sc.NextFire.After(horizon) {
			return &sc, nil, nil // nothing new is due: work on what is pending
		}
		next := sc
		settled := slices.DeleteFunc(slices.Clone(sc.Pending), func(t time.Time) bool { return !s.wasStarted(id, t) })
		next.Pending = slices.DeleteFunc(slices.Clone(sc.Pending), func(t time.Time) bool { return s.wasStarted(id, t) })
		next.Runs = slices.Clone(sc.Runs)
		tm, err := sc.timing()
		if err != nil {
			return nil, nil, err
		}
		var missed, onTime []time.Time
		t := sc.NextFire
		for ; !t.IsZero() && !t.After(horizon); t = sc.nextTick(tm, t) {
			if now.Sub(t) > ScheduleMisfire {
				missed = append(missed, t)
				if len(missed) > ScheduleRunsKept+sc.catchUpLimit() { // keep what is recorded or run
					missed = missed[1:]
				}
			} else {
				onTime = append(onTime, t)
			}
		}
		fresh := append(sc.catchUp(missed), onTime...)
		for _, m := range missed {
			if !slices.Contains(fresh, m) {
				next.Runs = appendRun(next.Runs, ScheduleRun{Scheduled: m, Fired: now, Status: RunSkipped, Error: "missed while no scheduler ran (catchUp " + string(sc.catchUpPolicy()) + ")"})
			}
		}
		if !sc.capped() {
			for _, tick := range fresh {
				// In a cluster, an id in a partition this replica holds,
				// so that it starts the instance itself.
				inst, err := s.e.newInstanceID(ctx)
				if err != nil {
					return nil, nil, err
				}
				fired := now
				if tick.After(now) {
					fired = tick // claimed ahead: it starts when due
				}
				next.Runs = appendRun(next.Runs, ScheduleRun{Scheduled: tick, Fired: fired, InstanceID: inst, Status: RunStarted})
			}
		}
		next.Pending = append(next.Pending, fresh...)
		next.NextFire = t
		next.Rev, next.Updated = sc.Rev+1, now
		switch err := s.writer.write(ctx, next, sc.Rev); {
		case errors.Is(err, ErrConflict):
			continue // changed meanwhile (an edit, another replica's claim): look again
		case err != nil:
			return nil, nil, err
		}
		s.forget(id, settled)
		return &next, fresh, nil
	}
}

// forget drops ticks from the ones this process started (nil: all of the
// schedule's), once no stored Pending holds them.
func (s *scheduler) forget(id string, ticks []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ticks == nil {
		delete(s.started, id)
		return
	}
	left := slices.DeleteFunc(s.started[id], func(t time.Time) bool { return slices.ContainsFunc(ticks, t.Equal) })
	if len(left) == 0 {
		delete(s.started, id)
	} else {
		s.started[id] = left
	}
}

func (sc *Schedule) catchUpPolicy() CatchUpPolicy {
	if sc.CatchUp == "" {
		return CatchUpNone
	}
	return sc.CatchUp
}

func (sc *Schedule) catchUpLimit() int {
	if sc.CatchUpLimit > 0 {
		return sc.CatchUpLimit
	}
	return ScheduleCatchUpLimitDefault
}

// catchUp picks which missed ticks (oldest first) still run.
func (sc *Schedule) catchUp(missed []time.Time) []time.Time {
	if len(missed) == 0 {
		return nil
	}
	switch sc.catchUpPolicy() {
	case CatchUpLast:
		return []time.Time{missed[len(missed)-1]}
	case CatchUpAll:
		return slices.Clone(missed[max(0, len(missed)-sc.catchUpLimit()):])
	}
	return nil
}

// start starts the instance of one tick: under the id its claim chose
// (instanceID), where an instance already there is the tick's; or, for a
// capped schedule, with a request id made of the schedule and the tick, so
// starting a tick again (after a crash between the claim and the settle, or
// a retry) returns the instance the first start made. A failure the retry
// policy retries returns how long to wait.
func (s *scheduler) start(ctx context.Context, sc *Schedule, tick time.Time, instanceID string) (ScheduleRun, time.Duration) {
	now := s.e.clock.Now()
	run := ScheduleRun{Scheduled: tick, Fired: now}
	vars, err := renderTemplate(sc.Vars, map[string]any{
		"scheduledTime": tick.UTC().Format(time.RFC3339Nano), "firedTime": now.UTC().Format(time.RFC3339Nano), "scheduleId": sc.ID,
	})
	if err == nil {
		var snap *Snapshot
		req := StartRequest{Definition: sc.DefinitionKey, Version: sc.Version, Variables: vars, id: instanceID}
		if instanceID == "" {
			req.RequestID = ScheduleRequestID(sc.ID, tick)
		}
		if sc.Source == ScheduleSourceBPMN { // the timer start event has happened
			req.StartElement, req.Triggered, req.fired = sc.Element, true, model.TriggerTimer
		}
		snap, _, err = s.e.Start(ctx, req)
		if instanceID != "" && (errors.Is(err, ErrDuplicate) || errors.Is(err, ErrConflict)) {
			run.InstanceID, run.Status = instanceID, RunStarted // started before
			return run, 0
		}
		if err == nil {
			run.InstanceID, run.Status = snap.ID, RunStarted
			s.mu.Lock()
			if !snap.Status.Done() {
				s.owner[snap.ID] = sc.ID
			}
			delete(s.retries[sc.ID], tick.UnixMilli())
			s.mu.Unlock()
			return run, 0
		}
	}
	run.Status, run.Error = RunFailed, err.Error()
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrClosed) || errors.Is(err, ErrNotRunning) {
		return run, -1 // shutting down: the tick stays pending for the next start
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retries[sc.ID] == nil {
		s.retries[sc.ID] = map[int64]int{}
	}
	s.retries[sc.ID][tick.UnixMilli()]++
	run.Attempts = s.retries[sc.ID][tick.UnixMilli()]
	if r := sc.OnFailure; r != nil && run.Attempts < r.Attempts {
		delay := float64(r.Delay)
		for range run.Attempts - 1 {
			delay *= max(r.Factor, 1)
		}
		return run, max(time.Duration(delay), time.Millisecond)
	}
	delete(s.retries[sc.ID], tick.UnixMilli())
	return run, 0
}

// retryAfter works on a schedule again after d (d < 0: never, the engine
// is closing and the tick stays pending for the next Run).
func (s *scheduler) retryAfter(id string, d time.Duration) {
	if d < 0 {
		return
	}
	s.e.clock.AfterFunc(d, func() { s.dispatch(id) })
}

// settle takes a started, skipped or failed tick out of Pending and records
// its run, with a guarded write (a conflict reloads and applies it again:
// taking a tick out is idempotent).
func (s *scheduler) settle(ctx context.Context, sc *Schedule, tick time.Time, run ScheduleRun) error {
	if run.Scheduled.IsZero() {
		run.Scheduled, run.Fired = tick, s.e.clock.Now()
	}
	for {
		next := *sc
		next.Pending = slices.DeleteFunc(slices.Clone(sc.Pending), tick.Equal)
		next.Runs = appendRun(slices.DeleteFunc(slices.Clone(sc.Runs), func(r ScheduleRun) bool { return r.Scheduled.Equal(tick) }), run)
		next.Rev, next.Updated = sc.Rev+1, s.e.clock.Now()
		err := s.writer.write(ctx, next, sc.Rev)
		if err == nil {
			*sc = next
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			return err
		}
		fresh, err := s.e.store.Schedule(ctx, sc.ID)
		if err != nil {
			return err
		}
		*sc = fresh
		if !slices.ContainsFunc(sc.Pending, tick.Equal) {
			return nil // settled meanwhile
		}
	}
}

func appendRun(runs []ScheduleRun, r ScheduleRun) []ScheduleRun {
	runs = append(runs, r)
	return runs[max(0, len(runs)-ScheduleRunsKept):]
}

// running counts the schedule's instances that have not ended, asking the
// store about each run recorded as started.
func (s *scheduler) running(ctx context.Context, sc *Schedule) int {
	n := 0
	for _, r := range sc.Runs {
		if r.Status != RunStarted {
			continue
		}
		snap, err := s.e.store.Instance(ctx, r.InstanceID)
		if err != nil || !snap.Status.Done() {
			n++ // unknown counts as running: the cap is never overrun
		}
	}
	return n
}

// export watches the schedule's instances end, so a queued tick starts.
func (s *scheduler) export(events []Event) {
	for i := range events {
		switch events[i].Type {
		case EventInstanceCompleted, EventInstanceFailed, EventInstanceCancelled:
		default:
			continue
		}
		s.mu.Lock()
		id, ok := s.owner[events[i].InstanceID]
		delete(s.owner, events[i].InstanceID)
		s.mu.Unlock()
		if ok {
			s.e.busy.Add(1)
			go func() { // not on the applier: the worker may be waiting for it
				defer s.e.done()
				s.dispatch(id)
			}()
		}
	}
}

// ScheduleRequestID is the request id of the instance a schedule's tick starts.
func ScheduleRequestID(scheduleID string, tick time.Time) string {
	return fmt.Sprintf("schedule:%s:%d", scheduleID, tick.UnixMilli())
}

type dueEntry struct {
	id    string
	at    time.Time
	index int
}

type dueHeap []*dueEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h *dueHeap) Push(x any) {
	d := x.(*dueEntry)
	d.index = len(*h)
	*h = append(*h, d)
}

func (h *dueHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return d
}
