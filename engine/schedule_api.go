package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ScheduleView is a schedule with its next fire times.
type ScheduleView struct {
	Schedule
	Next []time.Time `json:"nextFireTimes"`
}

// scheduleNextShown is how many next fire times a ScheduleView holds.
const scheduleNextShown = 5

// CreateSchedule checks and stores a new schedule (source api) and plans its
// first tick.
func (e *Engine) CreateSchedule(ctx context.Context, sc Schedule) (ScheduleView, error) {
	now := e.clock.Now()
	sc.ID, sc.Source, sc.Rev, sc.Created, sc.Updated = newID(), ScheduleSourceAPI, 1, now, now
	sc.Pending, sc.Runs, sc.Element = nil, nil, ""
	if err := e.checkSchedule(ctx, &sc); err != nil {
		return ScheduleView{}, err
	}
	sc.NextFire = sc.firstTick(now)
	if err := e.store.CreateSchedule(ctx, sc); err != nil {
		return ScheduleView{}, fmt.Errorf("storing schedule: %w", err)
	}
	e.sched.plan(sc)
	return sc.view(e.clock.Now()), nil
}

// UpdateSchedule stores a changed schedule: sc is one read before, changed,
// and its Rev says which; ErrConflict when it changed meanwhile. A changed
// timing or a schedule enabled again fires next after now (ticks while it
// was disabled do not catch up).
func (e *Engine) UpdateSchedule(ctx context.Context, sc Schedule) (ScheduleView, error) {
	old, err := e.store.Schedule(ctx, sc.ID)
	if err != nil {
		return ScheduleView{}, fmt.Errorf("schedule %s: %w", sc.ID, err)
	}
	if old.Rev != sc.Rev {
		return ScheduleView{}, fmt.Errorf("schedule %s changed meanwhile: read it again: %w", sc.ID, ErrConflict)
	}
	if old.Source == ScheduleSourceBPMN {
		return e.updateTimerStart(ctx, old, sc)
	}
	if err := e.checkSchedule(ctx, &sc); err != nil {
		return ScheduleView{}, err
	}
	now := e.clock.Now()
	sc.Source, sc.Created, sc.Pending, sc.Runs, sc.NextFire = old.Source, old.Created, old.Pending, old.Runs, old.NextFire
	timingChanged := sc.Cron != old.Cron || sc.Interval != old.Interval || sc.TimeZone != old.TimeZone ||
		!equalTime(sc.Start, old.Start) || !equalTime(sc.End, old.End)
	if timingChanged || sc.Enabled != old.Enabled {
		sc.dropAhead(now)
	}
	if timingChanged || (sc.Enabled && !old.Enabled) {
		sc.NextFire = sc.firstTick(now)
	}
	sc.Rev, sc.Updated = old.Rev+1, now
	if err := e.store.UpdateSchedule(ctx, sc, old.Rev); err != nil {
		return ScheduleView{}, fmt.Errorf("schedule %s: %w", sc.ID, err)
	}
	e.sched.plan(sc)
	return sc.view(e.clock.Now()), nil
}

// DeleteSchedule removes a schedule; its instances run on.
func (e *Engine) DeleteSchedule(ctx context.Context, id string) error {
	if strings.HasPrefix(id, bpmnSchedulePrefix) {
		return fmt.Errorf("schedule %s: remove the timer start event from the definition, or disable the schedule: %w", id, ErrReadOnly)
	}
	if err := e.store.DeleteSchedule(ctx, id); err != nil {
		return fmt.Errorf("schedule %s: %w", id, err)
	}
	e.sched.plan(Schedule{ID: id})
	return nil
}

// ScheduleByID returns one schedule.
func (e *Engine) ScheduleByID(ctx context.Context, id string) (ScheduleView, error) {
	sc, err := e.store.Schedule(ctx, id)
	if err != nil {
		return ScheduleView{}, fmt.Errorf("schedule %s: %w", id, err)
	}
	return sc.view(e.clock.Now()), nil
}

// Schedules lists the schedules by id, those of timer start events (source
// bpmn) among them.
func (e *Engine) Schedules(ctx context.Context) ([]ScheduleView, error) {
	stored, err := e.store.Schedules(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ScheduleView, 0, len(stored))
	for _, sc := range stored {
		out = append(out, sc.view(e.clock.Now()))
	}
	return out, nil
}

// checkSchedule checks the fields and that the definition version exists.
func (e *Engine) checkSchedule(ctx context.Context, sc *Schedule) error {
	if sc.Overlap == "" {
		sc.Overlap = OverlapSkip
	}
	if sc.CatchUp == "" {
		sc.CatchUp = CatchUpNone
	}
	if sc.Start != nil {
		*sc.Start = sc.Start.UTC()
	}
	if sc.End != nil {
		*sc.End = sc.End.UTC()
	}
	if err := sc.check(); err != nil {
		return err
	}
	if _, err := e.store.Definition(ctx, sc.DefinitionKey, sc.Version); err != nil {
		if errors.Is(err, ErrNotFound) {
			return fieldErr("definitionKey", "no definition %q version %d (0: the latest) is deployed", sc.DefinitionKey, sc.Version)
		}
		return err
	}
	return nil
}

// firstTick is the first tick after now.
func (sc *Schedule) firstTick(now time.Time) time.Time {
	tm, err := sc.timing()
	if err != nil {
		return time.Time{}
	}
	return sc.nextTick(tm, now)
}

// view shows sc as it is at now. Ticks claimed ahead of their time
// (scheduleClaimAhead) have not fired yet: they are next fire times, not
// pending ticks or runs.
func (sc Schedule) view(now time.Time) ScheduleView {
	v := ScheduleView{Schedule: sc}
	notYet := func(t time.Time) bool { return t.After(now) }
	v.Next = slices.DeleteFunc(slices.Clone(sc.Pending), func(t time.Time) bool { return !notYet(t) })
	slices.SortFunc(v.Next, time.Time.Compare)
	if !sc.NextFire.IsZero() {
		v.Next = append(v.Next, sc.NextFire)
		v.Next = append(v.Next, sc.ticksAfter(sc.NextFire, max(0, scheduleNextShown-len(v.Next)))...)
	}
	v.Next = v.Next[:min(len(v.Next), scheduleNextShown)]
	if len(v.Next) > 0 {
		v.NextFire = v.Next[0]
	}
	// A pending tick with a run recorded started has its instance (or is
	// getting it): only the others wait.
	v.Pending = slices.DeleteFunc(slices.Clone(sc.Pending), func(t time.Time) bool { _, ok := sc.startedRun(t); return ok || notYet(t) })
	v.Runs = slices.DeleteFunc(slices.Clone(sc.Runs), func(r ScheduleRun) bool { return notYet(r.Scheduled) })
	return v
}

// dropAhead forgets the ticks claimed ahead of now (scheduleClaimAhead):
// the schedule's timing changed, or it was disabled or enabled again.
func (sc *Schedule) dropAhead(now time.Time) {
	sc.Pending = slices.DeleteFunc(slices.Clone(sc.Pending), func(t time.Time) bool { return t.After(now) })
	sc.Runs = slices.DeleteFunc(slices.Clone(sc.Runs), func(r ScheduleRun) bool { return r.Scheduled.After(now) })
}

func equalTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
