package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/workflowpp/wfpp/engine/model"
)

// timerDue works out when a timer event fires and how often it repeats
// (-1: forever). Expressions in the definition are evaluated first.
func (x *instance) timerDue(t *token, n *model.Node) (time.Time, int, error) {
	text, err := x.evalString(x.evalVars(t), n.Timer.Expr)
	if err != nil {
		return time.Time{}, 0, err
	}
	now := x.now
	switch n.Timer.Kind {
	case model.TimerDuration:
		d, err := model.ParseISODuration(strings.TrimSpace(text))
		if err != nil {
			return time.Time{}, 0, err
		}
		return d.AddTo(now), 0, nil
	case model.TimerDate:
		due, err := parseDate(text)
		return due, 0, err
	case model.TimerCycle:
		c, err := parseCycle(text, n.Timer.TimeZone)
		if err != nil {
			return time.Time{}, 0, err
		}
		return c.next(now), c.repeat, nil
	}
	return time.Time{}, 0, fmt.Errorf("unknown timer kind %d", n.Timer.Kind)
}

// nextCycle returns when a repeating timer fires after it fired at last.
func nextCycle(t *model.Timer, last time.Time, x *instance) (time.Time, error) {
	text, err := x.evalString(x.vars, t.Expr)
	if err != nil {
		return time.Time{}, err
	}
	c, err := parseCycle(text, t.TimeZone)
	if err != nil {
		return time.Time{}, err
	}
	return c.next(last), nil
}

// cycle is a parsed timeCycle: an ISO-8601 repetition or a cron expression.
type cycle struct {
	repeat int // -1: forever
	start  *time.Time
	every  model.ISODuration
	cron   cron.Schedule
}

func (c cycle) next(after time.Time) time.Time {
	if c.cron != nil {
		return c.cron.Next(after)
	}
	if c.start != nil && c.start.After(after) {
		return *c.start
	}
	return c.every.AddTo(after)
}

// parseCycle reads R[n]/[start/]duration or a cron expression (5 or 6 fields,
// or @daily-style descriptors), in time zone tz.
func parseCycle(text, tz string) (cycle, error) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "R") {
		loc := time.UTC
		if tz != "" {
			var err error
			if loc, err = time.LoadLocation(tz); err != nil {
				return cycle{}, fmt.Errorf("time zone %q: %w", tz, err)
			}
		}
		if !strings.HasPrefix(text, "CRON_TZ=") && !strings.HasPrefix(text, "TZ=") && !strings.HasPrefix(text, "@every") {
			w, err := parseWallCron(text, loc) // daylight saving neither doubles nor drops a run (schedule.go)
			if err != nil {
				return cycle{}, fmt.Errorf("%q is neither an ISO-8601 repetition (R3/PT10M) nor a cron expression: %w", text, err)
			}
			return cycle{repeat: -1, cron: w}, nil
		}
		// A zone in the text wins over wf:timeZone; @every is a fixed period.
		p := cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)
		s, err := p.Parse(text)
		if err != nil {
			return cycle{}, fmt.Errorf("%q is neither an ISO-8601 repetition (R3/PT10M) nor a cron expression: %w", text, err)
		}
		return cycle{repeat: -1, cron: s}, nil
	}
	parts := strings.Split(text, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return cycle{}, fmt.Errorf("%q is not an ISO-8601 repetition: write it like R3/PT10M", text)
	}
	c := cycle{repeat: -1}
	if n := parts[0][1:]; n != "" && n != "-1" { // R and R-1 (Camunda 8's spelling) repeat for ever
		r, err := strconv.Atoi(n)
		if err != nil || r < 0 {
			return cycle{}, fmt.Errorf("%q: repetition count %q is not a whole number", text, n)
		}
		c.repeat = r
	}
	durText := parts[len(parts)-1]
	if len(parts) == 3 {
		start, err := parseDate(parts[1])
		if err != nil {
			return cycle{}, err
		}
		c.start = &start
		if end, err := parseDate(durText); err == nil { // Rn/start/end: the interval start to end, repeated
			if !end.After(start) {
				return cycle{}, fmt.Errorf("%q: the interval ends before it starts", text)
			}
			c.every = model.ISODuration{Time: end.Sub(start)}
			return c, nil
		}
	}
	d, err := model.ParseISODuration(durText)
	if err != nil {
		return cycle{}, err
	}
	c.every = d
	return c, nil
}

func parseDate(text string) (time.Time, error) {
	text = strings.TrimSpace(text)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, text); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO-8601 date-time: write it like 2026-01-02T15:04:05Z", text)
}

// parseDateOrDuration reads a due date given as a date-time or as a duration from now.
func parseDateOrDuration(text string, now time.Time) (time.Time, error) {
	if strings.HasPrefix(strings.TrimSpace(text), "P") {
		d, err := model.ParseISODuration(strings.TrimSpace(text))
		if err != nil {
			return time.Time{}, err
		}
		return d.AddTo(now), nil
	}
	return parseDate(text)
}

// CheckTimer reports whether a timer definition can be armed; expressions are
// checked when the timer is armed.
func CheckTimer(t *model.Timer) error {
	if t.TimeZone != "" {
		if _, err := time.LoadLocation(t.TimeZone); err != nil {
			return fmt.Errorf("wf:timeZone %q is not an IANA time zone: write e.g. Europe/Berlin", t.TimeZone)
		}
	}
	if model.IsExpression(t.Expr) {
		return nil
	}
	switch t.Kind {
	case model.TimerDuration:
		_, err := model.ParseISODuration(strings.TrimSpace(t.Expr))
		return err
	case model.TimerDate:
		_, err := parseDate(t.Expr)
		return err
	case model.TimerCycle:
		_, err := parseCycle(t.Expr, t.TimeZone)
		return err
	}
	return fmt.Errorf("unknown timer kind")
}

// PreviewTimer returns when timer t would fire after from, at most n times:
// once for a date or a duration, up to n times for a cycle (fewer when it
// repeats fewer times). An expression's times depend on an instance's
// variables, so it has no preview.
func PreviewTimer(t *model.Timer, from time.Time, n int) ([]time.Time, error) {
	if model.IsExpression(t.Expr) {
		return nil, fmt.Errorf("%q is an expression: when it fires depends on the instance's variables: %w", t.Expr, ErrInvalidInput)
	}
	if err := CheckTimer(t); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrInvalidInput)
	}
	var out []time.Time
	for due, left, err := startDue(t, from, -2); len(out) < n; due, left, err = startDue(t, due, left) {
		if err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrInvalidInput)
		}
		if due.IsZero() {
			break
		}
		out = append(out, due)
		if left == 0 {
			break
		}
	}
	return out, nil
}
