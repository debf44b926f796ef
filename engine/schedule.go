package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/workflowpp/wfpp/engine/model"
)

// Schedule starts instances of a definition on a cron expression or at a
// fixed interval. It lives in the store; the engine's scheduler fires it
// (scheduler.go). NextFire and Pending make every tick fire exactly once: a
// tick is claimed by moving it from NextFire into Pending with one guarded
// write (Rev), and leaves Pending only once its instance exists (for a
// schedule without a cap, with the next claim: scheduler.process).
type Schedule struct {
	ID            string `json:"id" bson:"_id"`
	DefinitionKey string `json:"definitionKey" bson:"definition_key"`
	Version       int    `json:"version" bson:"version"` // 0: the latest version when the tick fires
	// Cron is 5 fields (minute first) or 6 (seconds first), or a descriptor
	// such as @daily; Interval is an ISO-8601 (PT15M) or Go (15m) duration.
	// Exactly one is set.
	Cron     string         `json:"cron,omitempty" bson:"cron,omitempty"`
	Interval string         `json:"interval,omitempty" bson:"interval,omitempty"`
	TimeZone string         `json:"timeZone,omitempty" bson:"time_zone,omitempty"` // IANA; empty means UTC
	Start    *time.Time     `json:"startDate,omitempty" bson:"start_date,omitempty"`
	End      *time.Time     `json:"endDate,omitempty" bson:"end_date,omitempty"`
	Vars     map[string]any `json:"variables,omitempty" bson:"variables,omitempty"` // a template: strings may hold ${scheduledTime}, ${firedTime}, ${scheduleId}
	// MaxConcurrentRuns caps the schedule's running instances (0: no cap);
	// Overlap says what a tick does at the cap.
	MaxConcurrentRuns int            `json:"maxConcurrentRuns,omitempty" bson:"max_concurrent_runs,omitempty"`
	Overlap           OverlapPolicy  `json:"overlap,omitempty" bson:"overlap,omitempty"`
	CatchUp           CatchUpPolicy  `json:"catchUp,omitempty" bson:"catch_up,omitempty"`
	CatchUpLimit      int            `json:"catchUpLimit,omitempty" bson:"catch_up_limit,omitempty"` // CatchUpAll: at most this many missed ticks (0: ScheduleCatchUpLimitDefault)
	OnFailure         *ScheduleRetry `json:"onFailure,omitempty" bson:"on_failure,omitempty"`        // nil: a failed start is recorded, not retried
	Enabled           bool           `json:"enabled" bson:"enabled"`
	Source            string         `json:"source" bson:"source"` // ScheduleSourceAPI or ScheduleSourceBPMN (read-only)

	NextFire time.Time     `json:"nextFire" bson:"next_fire"`                  // the first tick not claimed yet; zero: none left
	Pending  []time.Time   `json:"pending,omitempty" bson:"pending,omitempty"` // claimed ticks whose instance is not started yet
	Runs     []ScheduleRun `json:"runs,omitempty" bson:"runs,omitempty"`       // the latest ScheduleRunsKept, oldest first
	Rev      int64         `json:"rev" bson:"rev"`                             // every stored change adds one
	Created  time.Time     `json:"createdAt" bson:"created_at"`
	Updated  time.Time     `json:"updatedAt" bson:"updated_at"`
	Element  string        `json:"elementId,omitempty" bson:"element_id,omitempty"` // ScheduleSourceBPMN: the timer start event
}

// ScheduleRun is one tick's outcome.
type ScheduleRun struct {
	Scheduled  time.Time `json:"scheduledTime" bson:"scheduled"`
	Fired      time.Time `json:"firedTime" bson:"fired"`
	InstanceID string    `json:"instanceId,omitempty" bson:"instance_id,omitempty"`
	Status     string    `json:"status" bson:"status"` // RunStarted, RunSkipped, RunFailed
	Error      string    `json:"error,omitempty" bson:"error,omitempty"`
	Attempts   int       `json:"attempts,omitempty" bson:"attempts,omitempty"`
}

// ScheduleUpdate is one guarded write of Store.UpdateSchedules: Schedule
// replaces the stored one while its Rev is PrevRev.
type ScheduleUpdate struct {
	Schedule Schedule
	PrevRev  int64
}

// ScheduleRetry retries a start that failed (the definition disabled, the
// store briefly away): Attempts in all, Delay before the second, each next
// delay Factor times the one before.
type ScheduleRetry struct {
	Attempts int           `json:"attempts" bson:"attempts"`
	Delay    time.Duration `json:"delay" bson:"delay"`
	Factor   float64       `json:"factor,omitempty" bson:"factor,omitempty"`
}

// Outcomes of a tick (ScheduleRun.Status).
const (
	RunStarted = "started"
	RunSkipped = "skipped" // at MaxConcurrentRuns with OverlapSkip, or missed during an outage
	RunFailed  = "failed"
)

// Sources of a schedule.
const (
	ScheduleSourceAPI  = "api"
	ScheduleSourceBPMN = "bpmn" // a timer start event's cycle; changes with its definition
)

// OverlapPolicy is what a tick does while MaxConcurrentRuns instances run.
type OverlapPolicy string

const (
	OverlapSkip  OverlapPolicy = "skip"  // record it skipped (the default)
	OverlapQueue OverlapPolicy = "queue" // start it when a run ends, in order
	OverlapAllow OverlapPolicy = "allow" // start it anyway
)

// CatchUpPolicy is what happens to ticks missed while no scheduler ran
// (due more than ScheduleMisfire ago when the scheduler sees them).
type CatchUpPolicy string

const (
	CatchUpNone CatchUpPolicy = "none" // skip them all (the default)
	CatchUpLast CatchUpPolicy = "last" // run the latest one
	CatchUpAll  CatchUpPolicy = "all"  // run the latest CatchUpLimit of them, oldest first
)

const (
	// ScheduleRunsKept is how many runs a schedule remembers.
	ScheduleRunsKept = 20
	// ScheduleCatchUpLimitDefault caps CatchUpAll without a CatchUpLimit.
	ScheduleCatchUpLimitDefault = 10
	// ScheduleMisfire is how late a tick may be seen and still count as on
	// time rather than missed.
	ScheduleMisfire = time.Minute
)

// FieldError is bad input in one named field.
type FieldError struct {
	Field, Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Is makes a FieldError an ErrInvalidInput.
func (e *FieldError) Is(target error) bool { return target == ErrInvalidInput }

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, a...)}
}

// check returns the first bad field of s, as a *FieldError.
func (s *Schedule) check() error {
	if strings.TrimSpace(s.DefinitionKey) == "" {
		return fieldErr("definitionKey", "is required: the key of the definition to start")
	}
	if s.Version < 0 {
		return fieldErr("version", "must be 0 (the latest) or a version number")
	}
	if (s.Cron == "") == (s.Interval == "") {
		return fieldErr("cron", "give either cron (e.g. \"0 9 * * 1-5\") or interval (e.g. PT15M or 15m), not both or neither")
	}
	if s.TimeZone != "" {
		if _, err := time.LoadLocation(s.TimeZone); err != nil {
			return fieldErr("timeZone", "%q is not an IANA time zone: write e.g. Europe/Berlin", s.TimeZone)
		}
	}
	if _, err := s.timing(); err != nil {
		return err
	}
	if s.Start != nil && s.End != nil && !s.End.After(*s.Start) {
		return fieldErr("endDate", "must be after startDate")
	}
	switch s.Overlap {
	case "", OverlapSkip, OverlapQueue, OverlapAllow:
	default:
		return fieldErr("overlap", "%q: use skip, queue or allow", s.Overlap)
	}
	switch s.CatchUp {
	case "", CatchUpNone, CatchUpLast, CatchUpAll:
	default:
		return fieldErr("catchUp", "%q: use none, last or all", s.CatchUp)
	}
	if s.MaxConcurrentRuns < 0 {
		return fieldErr("maxConcurrentRuns", "must be 0 (no cap) or more")
	}
	if s.CatchUpLimit < 0 {
		return fieldErr("catchUpLimit", "must be 0 (the default, %d) or more", ScheduleCatchUpLimitDefault)
	}
	if r := s.OnFailure; r != nil && (r.Attempts < 1 || r.Delay < 0 || r.Factor < 0) {
		return fieldErr("onFailure", "retry needs attempts ≥ 1, a delay ≥ 0 and a factor ≥ 0")
	}
	if _, err := renderTemplate(s.Vars, map[string]any{"scheduledTime": "", "firedTime": "", "scheduleId": ""}); err != nil {
		return fieldErr("variables", "%v", err)
	}
	return nil
}

// timing is when a schedule's ticks fall.
type timing interface {
	// next returns the first tick after t.
	next(t time.Time) time.Time
}

func (s *Schedule) timing() (timing, error) {
	if s.Source == ScheduleSourceBPMN {
		return s.timerTiming()
	}
	loc := time.UTC
	if s.TimeZone != "" {
		var err error
		if loc, err = time.LoadLocation(s.TimeZone); err != nil {
			return nil, fieldErr("timeZone", "%q is not an IANA time zone: write e.g. Europe/Berlin", s.TimeZone)
		}
	}
	if s.Cron != "" {
		c, err := parseWallCron(s.Cron, loc)
		if err != nil {
			return nil, fieldErr("cron", "%v", err)
		}
		return c, nil
	}
	every, err := parseInterval(s.Interval)
	if err != nil {
		return nil, fieldErr("interval", "%v", err)
	}
	anchor := s.Created
	if s.Start != nil {
		anchor = *s.Start
	}
	return interval{anchor: anchor, every: every}, nil
}

// ticksAfter returns the ticks of s after t, at most n, before its end date.
func (s *Schedule) ticksAfter(t time.Time, n int) []time.Time {
	tm, err := s.timing()
	if err != nil {
		return nil
	}
	var out []time.Time
	for len(out) < n {
		t = s.nextTick(tm, t)
		if t.IsZero() {
			break
		}
		out = append(out, t)
	}
	return out
}

// nextTick is the first tick after t within the start and end dates; zero
// when there is none.
func (s *Schedule) nextTick(tm timing, t time.Time) time.Time {
	if s.Start != nil && t.Before(*s.Start) {
		t = s.Start.Add(-time.Nanosecond) // a tick at the start date itself counts
	}
	next := tm.next(t)
	if next.IsZero() || (s.End != nil && next.After(*s.End)) {
		return time.Time{}
	}
	return next
}

// wallCron is a cron expression read on the wall clock of a time zone. Its
// ticks are wall times, so daylight saving changes neither double nor drop
// a run: a wall time that occurs twice (the clocks go back) fires once, at
// its first occurrence; one that is skipped (the clocks go forward) fires at
// the first instant after the gap.
type wallCron struct {
	spec cron.Schedule // read in UTC, standing for the wall clock
	loc  *time.Location
}

func parseWallCron(text string, loc *time.Location) (wallCron, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "CRON_TZ=") || strings.HasPrefix(text, "TZ=") {
		return wallCron{}, errors.New("give the time zone in timeZone, not in the expression")
	}
	p := cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
	spec, err := p.Parse(text)
	if err != nil {
		return wallCron{}, fmt.Errorf("%q is not a cron expression of 5 or 6 fields: %w", text, err)
	}
	if strings.HasPrefix(text, "@every") {
		return wallCron{}, fmt.Errorf("%q: use interval for a fixed period", text)
	}
	return wallCron{spec: spec, loc: loc}, nil
}

// Next makes a wallCron a cron.Schedule, for timer events' cycles.
func (c wallCron) Next(after time.Time) time.Time { return c.next(after) }

func (c wallCron) next(after time.Time) time.Time {
	w := wall(after.In(c.loc))
	for range 1000 { // each step moves a wall time forward; gaps and folds are an hour or two
		w = c.spec.Next(w)
		if w.IsZero() {
			return time.Time{}
		}
		at := instant(w, c.loc)
		if at.After(after) {
			return at.In(after.Location()) // as robfig/cron does: in the caller's location
		}
	}
	return time.Time{}
}

// wall is t's wall clock as the same reading in UTC.
func wall(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
}

// instant is the first instant at which loc's clocks show wall time w, or,
// when they never do (a spring-forward gap), the instant the gap ends.
func instant(w time.Time, loc *time.Location) time.Time {
	at := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
	if !wall(at).Equal(w) { // in a gap: the end of the gap is the first instant whose wall time is past w
		lo, hi := at.Add(-3*time.Hour), at.Add(3*time.Hour)
		for hi.Sub(lo) > time.Second {
			mid := lo.Add(hi.Sub(lo) / 2)
			if wall(mid.In(loc)).After(w) {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi.Truncate(time.Second)
	}
	// In a fold the same wall time comes twice: take the first.
	if earlier := at.Add(-time.Hour); wall(earlier.In(loc)).Equal(w) {
		return earlier
	}
	return at
}

// interval ticks every period from an anchor, on absolute time.
type interval struct {
	anchor time.Time
	every  time.Duration
}

func (i interval) next(after time.Time) time.Time {
	if after.Before(i.anchor) {
		return i.anchor
	}
	n := after.Sub(i.anchor)/i.every + 1
	return i.anchor.Add(n * i.every)
}

// parseInterval reads an ISO-8601 duration without calendar parts (PT15M,
// P1W) or a Go duration (15m).
func parseInterval(text string) (time.Duration, error) {
	text = strings.TrimSpace(text)
	var d time.Duration
	if strings.HasPrefix(text, "P") {
		iso, err := model.ParseISODuration(text)
		if err != nil {
			return 0, err
		}
		if iso.Years != 0 || iso.Months != 0 {
			return 0, fmt.Errorf("%q: months and years vary in length; use a cron expression", text)
		}
		d = iso.Time + time.Duration(iso.Days)*24*time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(text); err != nil {
			return 0, fmt.Errorf("%q is neither an ISO-8601 (PT15M) nor a Go (15m) duration", text)
		}
	}
	if d < time.Second {
		return 0, fmt.Errorf("%q: an interval is at least one second", text)
	}
	return d, nil
}

// renderTemplate copies a variables template, replacing ${name} in its
// strings by the named values; a string that is only ${name} takes the value
// itself.
func renderTemplate(tmpl map[string]any, vals map[string]any) (map[string]any, error) {
	if tmpl == nil {
		return nil, nil
	}
	v, err := renderValue(tmpl, vals)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func renderValue(v any, vals map[string]any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			r, err := renderValue(x, vals)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			r, err := renderValue(x, vals)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case string:
		return renderString(v, vals)
	}
	return v, nil
}

func renderString(s string, vals map[string]any) (any, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}")
		if j < 0 {
			return nil, fmt.Errorf("%q: ${ without a closing }", s)
		}
		name := strings.TrimSpace(s[i+2 : i+j])
		val, ok := vals[name]
		if !ok {
			return nil, fmt.Errorf("%q: unknown ${%s}; use scheduledTime, firedTime or scheduleId", s, name)
		}
		if i == 0 && j == len(s)-1 {
			return val, nil
		}
		b.WriteString(s[:i])
		fmt.Fprint(&b, val)
		s = s[i+j+1:]
	}
}
