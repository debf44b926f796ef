package api

import (
	"errors"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// What the designer asks while someone draws: the job types this server
// runs itself, when a timer would fire, and whether a script compiles (the
// pages' content security policy allows no eval, so the browser cannot
// check it itself).

// JobTypes is GET /api/v1/job-types: the job types with a handler in this
// server; any other type is fetched by external workers.
type JobTypes struct {
	Handlers []string `json:"handlers"`
	External string   `json:"external"`
}

func (s *Service) jobTypes(c *fiber.Ctx) error {
	return c.JSON(JobTypes{
		Handlers: s.eng.HandlerTypes(),
		External: "any other job type waits for an external worker: POST /api/v1/jobs/fetch-and-lock",
	})
}

// TimerPreview is GET /api/v1/timers/preview?kind=&expression=&timeZone=&count=:
// when a timer drawn now would fire.
type TimerPreview struct {
	Next []time.Time `json:"next"`
}

var timerKinds = map[string]model.TimerKind{
	"duration": model.TimerDuration, "date": model.TimerDate, "cycle": model.TimerCycle,
	"timeDuration": model.TimerDuration, "timeDate": model.TimerDate, "timeCycle": model.TimerCycle,
}

func (s *Service) previewTimer(c *fiber.Ctx) error {
	kind, ok := timerKinds[c.Query("kind")]
	if !ok {
		return BadRequest("kind %q is not a timer kind: use duration, date or cycle", c.Query("kind"))
	}
	expr := c.Query("expression")
	if expr == "" {
		return BadRequest("expression is missing: give the timer's duration, date or cycle")
	}
	count := 5
	if v := c.Query("count"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 50 {
			return BadRequest("count %q: give a whole number from 1 to 50", v)
		}
		count = n
	}
	next, err := engine.PreviewTimer(&model.Timer{Kind: kind, Expr: expr, TimeZone: c.Query("timeZone")}, time.Now().UTC(), count)
	if err != nil {
		return err
	}
	return c.JSON(TimerPreview{Next: next})
}

// ScriptCheck is POST /api/v1/scripts/check {"source"}: whether a script
// task's or listener's JavaScript compiles as the engine will run it, and
// where it does not.
type ScriptCheck struct {
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

func (s *Service) checkScript(c *fiber.Ctx) error {
	var b struct {
		Source string `json:"source"`
	}
	if err := Decode(c, &b); err != nil {
		return err
	}
	err := script.CheckScript(b.Source)
	if err == nil {
		return c.JSON(ScriptCheck{OK: true})
	}
	out := ScriptCheck{Error: err.Error()}
	var ce *script.CompileError
	if errors.As(err, &ce) {
		out.Error, out.Line, out.Column = ce.Message, ce.Line, ce.Column
	}
	return c.JSON(out)
}
