package api

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/model"
)

// What the designer asks while someone draws: the job types this server
// runs itself, and when a timer would fire.

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
