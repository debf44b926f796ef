package api

import (
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Limits of external job requests.
const (
	JobFetchMax = 100
	JobLockMax  = 24 * time.Hour
)

type fetchBody struct {
	Type   string `json:"type"`
	Worker string `json:"worker"`
	Max    int    `json:"max"`
	LockMs int64  `json:"lockMs"`
}

// fetchAndLock is POST /api/v1/jobs/fetch-and-lock: up to max open jobs of
// a type, locked for the worker for lockMs. An empty list is 200 with no items.
// In a cluster, this replica's jobs come first, then the peers' (Peers).
func (s *Service) fetchAndLock(c *fiber.Ctx) error {
	var b fetchBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if b.Max == 0 {
		b.Max = 1
	}
	if err := checkJobFields(b.Type, "type", b.Worker); err != nil {
		return err
	}
	lock, err := lockOf(b.LockMs)
	if err != nil {
		return err
	}
	if b.Max < 1 || b.Max > JobFetchMax {
		return BadRequest("field \"max\" is %d: use 1 to %d", b.Max, JobFetchMax)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	jobs, err := s.eng.FetchAndLock(ctx, b.Type, b.Worker, b.Max, lock)
	if err != nil {
		return err
	}
	if s.cfg.Peers != nil && len(jobs) < b.Max {
		jobs = append(jobs, s.cfg.Peers.FetchAndLock(ctx, b.Type, b.Worker, b.Max-len(jobs), lock)...)
	}
	return c.JSON(newListPage(jobs, ""))
}

func checkJobFields(v, name, worker string) error {
	switch {
	case strings.TrimSpace(v) == "":
		return BadRequest("field %q is required", name)
	case strings.TrimSpace(worker) == "":
		return BadRequest("field \"worker\" is required: the name of the worker that holds the lock")
	}
	return nil
}

func lockOf(ms int64) (time.Duration, error) {
	d := time.Duration(ms) * time.Millisecond
	if ms < 1 || d > JobLockMax {
		return 0, BadRequest("field \"lockMs\" is %d: use 1 to %d milliseconds", ms, JobLockMax.Milliseconds())
	}
	return d, nil
}

type jobCompleteBody struct {
	Worker    string         `json:"worker"`
	Variables map[string]any `json:"variables"`
}

// completeJob is POST /api/v1/jobs/:key/complete.
func (s *Service) completeJob(c *fiber.Ctx) error {
	var b jobCompleteBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if strings.TrimSpace(b.Worker) == "" {
		return BadRequest("field \"worker\" is required: the worker that holds the lock")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.CompleteJob(ctx, jobKey(c), b.Worker, b.Variables); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"key": jobKey(c), "completed": true})
}

type jobFailBody struct {
	Worker       string `json:"worker"`
	Message      string `json:"message"`
	ErrorCode    string `json:"errorCode"`
	RetryAfterMs int64  `json:"retryAfterMs"`
}

// failJob is POST /api/v1/jobs/:key/fail: the attempt failed; the job is
// retried after retryAfterMs (else the task's backoff) while retries last,
// then it becomes an incident. errorCode throws that BPMN error instead.
func (s *Service) failJob(c *fiber.Ctx) error {
	var b jobFailBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(b.Worker) == "":
		return BadRequest("field \"worker\" is required: the worker that holds the lock")
	case strings.TrimSpace(b.Message) == "":
		return BadRequest("field \"message\" is required: what went wrong, for the incident and the history")
	case b.RetryAfterMs < 0 || time.Duration(b.RetryAfterMs)*time.Millisecond > JobLockMax:
		return BadRequest("field \"retryAfterMs\" is %d: use 0 (the task's backoff) to %d", b.RetryAfterMs, JobLockMax.Milliseconds())
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.FailJob(ctx, jobKey(c), b.Worker, b.Message, b.ErrorCode, time.Duration(b.RetryAfterMs)*time.Millisecond); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"key": jobKey(c), "failed": true})
}

type progressBody struct {
	Worker  string   `json:"worker"`
	Percent *float64 `json:"percent"`
	Message string   `json:"message"`
}

// jobProgress is POST /api/v1/jobs/:key/progress: how far the worker holding
// the job is. The monitor shows it on the element, and the instance's
// estimate takes it instead of the element's elapsed time.
func (s *Service) jobProgress(c *fiber.Ctx) error {
	var b progressBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(b.Worker) == "":
		return BadRequest("field \"worker\" is required: the worker that holds the lock")
	case b.Percent == nil:
		return BadRequest("field \"percent\" is required: how far the job is, 0 to 100")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.ReportJobProgress(ctx, jobKey(c), b.Worker, *b.Percent, b.Message); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"key": jobKey(c), "percent": *b.Percent, "message": b.Message})
}

type extendBody struct {
	Worker string `json:"worker"`
	LockMs int64  `json:"lockMs"`
}

// extendLock is POST /api/v1/jobs/:key/extend-lock.
func (s *Service) extendLock(c *fiber.Ctx) error {
	var b extendBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	if strings.TrimSpace(b.Worker) == "" {
		return BadRequest("field \"worker\" is required: the worker that holds the lock")
	}
	lock, err := lockOf(b.LockMs)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	until, err := s.eng.ExtendLock(ctx, jobKey(c), b.Worker, lock)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"key": jobKey(c), "lockedUntil": until})
}

// jobKey is the :key route parameter; keys hold a colon, which clients may escape.
func jobKey(c *fiber.Ctx) string {
	k := c.Params("key")
	if u, err := url.PathUnescape(k); err == nil {
		return u
	}
	return k
}
