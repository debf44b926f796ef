package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// scheduleBody is what POST and PATCH /api/v1/schedules take; in a PATCH an
// absent field stays as it is, and startDate or endDate null clears it.
type scheduleBody struct {
	DefinitionKey     *string               `json:"definitionKey"`
	Version           *int                  `json:"version"` // 0: the latest version when a tick fires
	Cron              *string               `json:"cron"`
	Interval          *string               `json:"interval"`
	TimeZone          *string               `json:"timeZone"`
	StartDate         json.RawMessage       `json:"startDate"`
	EndDate           json.RawMessage       `json:"endDate"`
	Variables         *map[string]any       `json:"variables"`
	MaxConcurrentRuns *int                  `json:"maxConcurrentRuns"`
	Overlap           *engine.OverlapPolicy `json:"overlap"`
	CatchUp           *engine.CatchUpPolicy `json:"catchUp"`
	CatchUpLimit      *int                  `json:"catchUpLimit"`
	OnFailure         *onFailureBody        `json:"onFailure"`
	Enabled           *bool                 `json:"enabled"`
	Rev               *int64                `json:"rev"` // PATCH: the rev read; a newer stored one is 409
}

// onFailureBody: action retry (attempts, delay as a Go or ISO-8601
// duration, factor) or none.
type onFailureBody struct {
	Action   string  `json:"action"`
	Attempts int     `json:"attempts,omitempty"`
	Delay    string  `json:"delay,omitempty"`
	Factor   float64 `json:"factor,omitempty"`
}

// apply changes sc as the body says.
func (b *scheduleBody) apply(sc *engine.Schedule) error {
	set(&sc.DefinitionKey, b.DefinitionKey)
	set(&sc.Version, b.Version)
	set(&sc.Cron, b.Cron)
	set(&sc.Interval, b.Interval)
	set(&sc.TimeZone, b.TimeZone)
	set(&sc.MaxConcurrentRuns, b.MaxConcurrentRuns)
	set(&sc.Overlap, b.Overlap)
	set(&sc.CatchUp, b.CatchUp)
	set(&sc.CatchUpLimit, b.CatchUpLimit)
	set(&sc.Enabled, b.Enabled)
	set(&sc.Vars, b.Variables)
	if b.Cron != nil && *b.Cron != "" && b.Interval == nil {
		sc.Interval = "" // a cron given replaces the interval
	}
	if b.Interval != nil && *b.Interval != "" && b.Cron == nil {
		sc.Cron = ""
	}
	var err error
	if sc.Start, err = dateField("startDate", b.StartDate, sc.Start); err != nil {
		return err
	}
	if sc.End, err = dateField("endDate", b.EndDate, sc.End); err != nil {
		return err
	}
	if f := b.OnFailure; f != nil {
		switch f.Action {
		case "none", "":
			sc.OnFailure = nil
		case "retry":
			delay, err := durationField(f.Delay)
			if err != nil {
				return fieldError("onFailure.delay", "%v", err)
			}
			sc.OnFailure = &engine.ScheduleRetry{Attempts: f.Attempts, Delay: delay, Factor: f.Factor}
		default:
			return fieldError("onFailure.action", "%q: use retry or none", f.Action)
		}
	}
	return nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func dateField(name string, raw json.RawMessage, old *time.Time) (*time.Time, error) {
	switch string(raw) {
	case "":
		return old, nil
	case "null":
		return nil, nil
	}
	var t time.Time
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fieldError(name, "%s is not an RFC 3339 date-time: write it like 2026-01-02T15:04:05Z", raw)
	}
	return &t, nil
}

func durationField(text string) (time.Duration, error) {
	if text == "" {
		return 0, nil
	}
	if d, err := time.ParseDuration(text); err == nil {
		return d, nil
	}
	iso, err := model.ParseISODuration(text)
	if err != nil {
		return 0, err
	}
	if iso.Years != 0 || iso.Months != 0 {
		return 0, fmt.Errorf("%q: give the delay in days or less", text)
	}
	return iso.Time + time.Duration(iso.Days)*24*time.Hour, nil
}

func fieldError(field, format string, args ...any) *Error {
	return &Error{
		Status: http.StatusBadRequest, Code: "invalid_input", Message: field + ": " + sprintf(format, args...),
		Details: []map[string]string{{"field": field, "message": sprintf(format, args...)}},
	}
}

// scheduleView is a schedule as the API shows it.
type scheduleView struct {
	engine.ScheduleView
	OnFailure *onFailureBody `json:"onFailure,omitempty"`
	LastRuns  []runView      `json:"lastRuns"`
}

// runView is one tick's run; InstanceStatus is the instance's status now.
type runView struct {
	engine.ScheduleRun
	InstanceStatus engine.Status `json:"instanceStatus,omitempty"`
}

func (s *Service) viewOfSchedule(c *fiber.Ctx, v engine.ScheduleView, withStatus bool) scheduleView {
	out := scheduleView{ScheduleView: v, LastRuns: []runView{}}
	if r := v.OnFailure; r != nil {
		out.OnFailure = &onFailureBody{Action: "retry", Attempts: r.Attempts, Delay: r.Delay.String(), Factor: r.Factor}
	}
	if out.Next == nil {
		out.Next = []time.Time{}
	}
	for i := len(v.Runs) - 1; i >= 0; i-- { // newest first
		rv := runView{ScheduleRun: v.Runs[i]}
		if withStatus && rv.InstanceID != "" {
			ctx, cancel := s.ctx(c)
			if snap, err := s.eng.Queries().Instance(ctx, rv.InstanceID); err == nil {
				rv.InstanceStatus = snap.Status
			}
			cancel()
		}
		out.LastRuns = append(out.LastRuns, rv)
	}
	return out
}

// listSchedules is GET /api/v1/schedules: the schedules, those of timer
// start events (source bpmn) among them, with their next fire times.
func (s *Service) listSchedules(c *fiber.Ctx) error {
	if err := onlyParams(c); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	all, err := s.eng.Schedules(ctx)
	if err != nil {
		return err
	}
	items := make([]scheduleView, len(all))
	for i, v := range all {
		items[i] = s.viewOfSchedule(c, v, false)
	}
	return c.JSON(fiber.Map{"items": items})
}

// getSchedule is GET /api/v1/schedules/:id: one schedule with its next five
// fire times and its last runs (newest first) with their instances' status.
func (s *Service) getSchedule(c *fiber.Ctx) error {
	id, err := scheduleID(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.eng.ScheduleByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(s.viewOfSchedule(c, v, true))
}

// createSchedule is POST /api/v1/schedules.
func (s *Service) createSchedule(c *fiber.Ctx) error {
	var b scheduleBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	sc := engine.Schedule{Enabled: true}
	if err := b.apply(&sc); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.eng.CreateSchedule(ctx, sc)
	if err != nil {
		return err
	}
	c.Location("/api/v1/schedules/" + url.PathEscape(v.ID))
	return c.Status(http.StatusCreated).JSON(s.viewOfSchedule(c, v, false))
}

// patchSchedule is PATCH /api/v1/schedules/:id: changes the fields given;
// with rev, only when the stored schedule is still at that rev.
func (s *Service) patchSchedule(c *fiber.Ctx) error {
	id, err := scheduleID(c)
	if err != nil {
		return err
	}
	var b scheduleBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	cur, err := s.eng.ScheduleByID(ctx, id)
	if err != nil {
		return err
	}
	sc := cur.Schedule
	if b.Rev != nil && *b.Rev != sc.Rev {
		return &Error{Status: http.StatusConflict, Code: "conflict", Message: sprintf("schedule %s is at rev %d, not %d: read it again", id, sc.Rev, *b.Rev)}
	}
	if err := b.apply(&sc); err != nil {
		return err
	}
	v, err := s.eng.UpdateSchedule(ctx, sc)
	if err != nil {
		return err
	}
	return c.JSON(s.viewOfSchedule(c, v, false))
}

// deleteSchedule is DELETE /api/v1/schedules/:id; its instances run on.
func (s *Service) deleteSchedule(c *fiber.Ctx) error {
	id, err := scheduleID(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.DeleteSchedule(ctx, id); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

func scheduleID(c *fiber.Ctx) (string, error) {
	id, err := url.PathUnescape(c.Params("id"))
	if err != nil {
		return "", BadRequest("schedule id %q is not URL-encoded properly: %v", c.Params("id"), err)
	}
	return id, nil
}
