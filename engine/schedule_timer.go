package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// The timer start events of each definition's default version are stored
// schedules (source bpmn, id bpmn:<key>:<element>), fired by the scheduler
// like the others: a tick fires once across restarts and processes, and
// ticks missed while no scheduler ran catch up by CatchUpLast (one run for
// all of them). syncTimerStarts writes them whenever a default version may
// have changed (deploy, rollback, lifecycle changes) and at Run.
//
// What a record holds, by the kind of timer:
//   - a cron timeCycle: Cron and TimeZone (wf:timeZone, or CRON_TZ= in the text);
//   - an ISO-8601 repetition (R3/PT10M, R/2026-01-01T00:00:00Z/P1D):
//     Interval is the expression and Start the first tick (its start date,
//     or one period after the version became the default);
//   - timeDate and timeDuration: one tick, Start (the date, or the duration
//     after the version became the default); it fires once, late or not.
//
// A new default version with the same cron keeps the schedule's ticks; any
// other change of version or timer starts it again from the change.

const bpmnSchedulePrefix = "bpmn:"

// ErrReadOnly: the schedule comes from a definition; change the definition.
var ErrReadOnly = errors.New("read-only: this schedule is a timer start event of a definition; change the timer in the definition and deploy it (only enabled can be changed here)")

// timerStartAttempts bounds the retries of a schedule write that another
// writer keeps beating.
const timerStartAttempts = 10

// syncTimerStarts makes the stored schedules of timer start events match
// the default version of key, or of every definition when key is "": new
// ones are created, changed ones updated (keeping enabled and the runs), and
// those of events no default version has any more deleted.
func (e *Engine) syncTimerStarts(ctx context.Context, key string) error {
	if e.cfg.NoStartTimers {
		return nil
	}
	var defaults []DefinitionRecord
	if key == "" {
		var err error
		if defaults, err = e.defaultVersions(ctx); err != nil {
			return err
		}
	} else {
		rec, err := e.DefaultVersion(ctx, key)
		switch {
		case err == nil:
			defaults = []DefinitionRecord{rec}
		case !errors.Is(err, ErrNoDefaultVersion):
			return err
		}
	}
	now := e.clock.Now()
	want := map[string]Schedule{}
	for _, rec := range defaults {
		if !rec.Enabled {
			continue
		}
		dep, err := e.defs.byID(ctx, rec.ID)
		if err != nil {
			return err
		}
		proc := dep.def.Main()
		if proc == nil {
			continue
		}
		for _, s := range proc.Starts() {
			tm := s.Definition(model.TriggerTimer) // a multiple start's timer has the start's id
			if tm == nil || tm.Timer == nil {
				continue
			}
			sc, err := timerStartSchedule(rec, tm, now)
			if err != nil {
				e.cfg.Logger.Error("timer start event cannot be scheduled", "definition_id", rec.ID, "element_id", tm.ID, "err", err)
				continue
			}
			want[sc.ID] = sc
		}
	}
	stored, err := e.store.Schedules(ctx)
	if err != nil {
		return err
	}
	for _, sc := range stored {
		if sc.Source != ScheduleSourceBPMN || (key != "" && sc.DefinitionKey != key) {
			continue
		}
		if _, ok := want[sc.ID]; ok {
			continue
		}
		if err := e.store.DeleteSchedule(ctx, sc.ID); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		e.sched.plan(Schedule{ID: sc.ID})
	}
	for _, sc := range want {
		if err := e.putTimerStart(ctx, sc); err != nil {
			return fmt.Errorf("timer start event %s of %s v%d: %w", sc.Element, sc.DefinitionKey, sc.Version, err)
		}
	}
	return nil
}

// timerStartSchedule is the schedule timer event tm of version rec gets
// when it becomes the default at now.
func timerStartSchedule(rec DefinitionRecord, tm *model.Node, now time.Time) (Schedule, error) {
	sc := Schedule{
		ID: bpmnSchedulePrefix + rec.Key + ":" + tm.ID, DefinitionKey: rec.Key, Version: rec.Version, Element: tm.ID,
		Source: ScheduleSourceBPMN, Enabled: true, Overlap: OverlapAllow, CatchUp: CatchUpLast,
		TimeZone: tm.Timer.TimeZone, Rev: 1, Created: now, Updated: now,
	}
	if model.IsExpression(tm.Timer.Expr) {
		return sc, fmt.Errorf("%q is an expression: a start event has no variables to read it from", tm.Timer.Expr)
	}
	var first time.Time
	switch tm.Timer.Kind {
	case model.TimerDate:
		at, err := parseDate(tm.Timer.Expr)
		if err != nil {
			return sc, err
		}
		first = at
	case model.TimerDuration:
		d, err := model.ParseISODuration(tm.Timer.Expr)
		if err != nil {
			return sc, err
		}
		first = d.AddTo(now)
	default:
		c, err := parseCycle(tm.Timer.Expr, tm.Timer.TimeZone)
		if err != nil {
			return sc, err
		}
		if c.cron != nil {
			sc.Cron = tm.Timer.Expr
			sc.NextFire = c.next(now)
			return sc, nil
		}
		sc.Interval = tm.Timer.Expr
		first = c.every.AddTo(now)
		if c.start != nil {
			first = *c.start
		}
	}
	first = first.UTC()
	sc.Start = &first
	sc.NextFire = first // a one-shot in the past still fires, once
	if sc.Interval != "" {
		sc.NextFire = sc.firstTick(now)
	}
	return sc, nil
}

// putTimerStart stores the schedule of a timer start event, keeping what
// the stored one has that the definition does not say (enabled, runs,
// pending ticks) and its ticks when the timer is an unchanged cron.
func (e *Engine) putTimerStart(ctx context.Context, want Schedule) error {
	for range timerStartAttempts {
		old, err := e.store.Schedule(ctx, want.ID)
		if errors.Is(err, ErrNotFound) {
			err := e.store.CreateSchedule(ctx, want)
			if errors.Is(err, ErrDuplicate) {
				continue // another process made it meanwhile
			}
			if err == nil {
				e.sched.plan(want)
			}
			return err
		}
		if err != nil {
			return err
		}
		sameTimer := old.Cron == want.Cron && old.Interval == want.Interval && old.TimeZone == want.TimeZone
		if sameTimer && old.Version == want.Version {
			return nil
		}
		next := old
		next.Version = want.Version
		if !sameTimer || want.Cron == "" {
			next.Cron, next.Interval, next.TimeZone, next.Start, next.NextFire = want.Cron, want.Interval, want.TimeZone, want.Start, want.NextFire
			next.dropAhead(want.Updated)
		}
		next.Rev, next.Updated = old.Rev+1, want.Updated
		err = e.store.UpdateSchedule(ctx, next, old.Rev)
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			continue
		}
		if err == nil {
			e.sched.plan(next)
		}
		return err
	}
	return fmt.Errorf("schedule %s kept changing meanwhile: %w", want.ID, ErrConflict)
}

// updateTimerStart changes the one thing of a timer start event's schedule
// that is not the definition's: whether it is enabled. Enabling it again
// fires next after now.
func (e *Engine) updateTimerStart(ctx context.Context, old, sc Schedule) (ScheduleView, error) {
	asked := sc
	asked.Enabled, asked.Rev, asked.Updated = old.Enabled, old.Rev, old.Updated
	if !reflect.DeepEqual(editable(asked), editable(old)) {
		return ScheduleView{}, fmt.Errorf("schedule %s is timer start event %q of definition %q: its timing comes from the BPMN; change the timer there (timeCycle, wf:timeZone) and deploy: %w",
			sc.ID, old.Element, old.DefinitionKey, ErrReadOnly)
	}
	now := e.clock.Now()
	next := old
	next.Enabled = sc.Enabled
	if sc.Enabled != old.Enabled {
		next.dropAhead(now)
	}
	if sc.Enabled && !old.Enabled {
		next.NextFire = old.firstTick(now)
	}
	next.Rev, next.Updated = old.Rev+1, now
	if err := e.store.UpdateSchedule(ctx, next, old.Rev); err != nil {
		return ScheduleView{}, fmt.Errorf("schedule %s: %w", sc.ID, err)
	}
	e.sched.plan(next)
	return next.view(now), nil
}

// editable is what a PATCH may ask to change, times made comparable.
func editable(sc Schedule) Schedule {
	out := Schedule{
		DefinitionKey: sc.DefinitionKey, Version: sc.Version, Cron: sc.Cron, Interval: sc.Interval, TimeZone: sc.TimeZone,
		Vars: sc.Vars, MaxConcurrentRuns: sc.MaxConcurrentRuns, Overlap: sc.Overlap, CatchUp: sc.CatchUp,
		CatchUpLimit: sc.CatchUpLimit, OnFailure: sc.OnFailure, Enabled: sc.Enabled,
	}
	if sc.Start != nil {
		t := sc.Start.UTC()
		out.Start = &t
	}
	if sc.End != nil {
		t := sc.End.UTC()
		out.End = &t
	}
	if len(out.Vars) == 0 {
		out.Vars = nil
	}
	return out
}

// timerTiming is when a timer start event's schedule ticks.
func (s *Schedule) timerTiming() (timing, error) {
	if s.Cron != "" {
		c, err := parseCycle(s.Cron, s.TimeZone)
		if err != nil {
			return nil, fieldErr("cron", "%v", err)
		}
		return c, nil
	}
	if s.Start == nil {
		return nil, fieldErr("startDate", "a timer start event's schedule without a cron has its first tick here")
	}
	if s.Interval == "" {
		return once{at: *s.Start}, nil
	}
	c, err := parseCycle(s.Interval, "")
	if err != nil {
		return nil, fieldErr("interval", "%v", err)
	}
	return repetition{first: *s.Start, every: c.every, times: c.repeat}, nil
}

// once ticks at one instant.
type once struct{ at time.Time }

func (o once) next(after time.Time) time.Time {
	if o.at.After(after) {
		return o.at
	}
	return time.Time{}
}

// repetition ticks at first and then every period, times ticks in all
// (-1: for ever): an ISO-8601 repetition such as R3/PT10M.
type repetition struct {
	first time.Time
	every model.ISODuration
	times int
}

func (r repetition) next(after time.Time) time.Time {
	n, t := 0, r.first // t is tick n (from 0)
	if d, ok := r.every.Fixed(); ok && d > 0 {
		if !after.Before(t) {
			n = int(after.Sub(t)/d) + 1
			t = t.Add(time.Duration(n) * d)
		}
	} else {
		for !t.After(after) {
			t, n = r.every.AddTo(t), n+1
		}
	}
	if r.times >= 0 && n >= r.times {
		return time.Time{}
	}
	return t
}
