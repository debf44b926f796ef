package api

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine/circuit"
)

// circuitView is one circuit breaker as the API shows it.
type circuitView struct {
	Key            string        `json:"key"`
	State          string        `json:"state"` // closed, open or half_open
	Failures       int           `json:"failures"`
	Calls          int           `json:"calls"`
	WindowFailures int           `json:"windowFailures"`
	OpenedAt       *time.Time    `json:"openedAt,omitempty"`
	Config         circuitConfig `json:"config"`
}

type circuitConfig struct {
	FailureThreshold int     `json:"failureThreshold"`
	FailureRate      float64 `json:"failureRate"`
	MinCalls         int     `json:"minCalls"`
	WindowMs         int64   `json:"windowMs"`
	OpenTimeoutMs    int64   `json:"openTimeoutMs"`
	HalfOpenCalls    int     `json:"halfOpenCalls"`
}

func viewOfCircuit(s circuit.Status) circuitView {
	v := circuitView{
		Key: s.Key, State: s.State.String(), Failures: s.Failures, Calls: s.Calls, WindowFailures: s.WindowFailures,
		Config: circuitConfig{
			FailureThreshold: s.Policy.FailureThreshold, FailureRate: s.Policy.FailureRate, MinCalls: s.Policy.MinCalls,
			WindowMs: s.Policy.Window.Milliseconds(), OpenTimeoutMs: s.Policy.OpenTimeout.Milliseconds(), HalfOpenCalls: s.Policy.HalfOpenCalls,
		},
	}
	if !s.OpenedAt.IsZero() {
		v.OpenedAt = &s.OpenedAt
	}
	return v
}

// listCircuits is GET /api/v1/circuits?limit=&cursor=: every circuit
// breaker a job went through, by key (shared by every replica with Redis).
func (s *Service) listCircuits(c *fiber.Ctx) error {
	if err := onlyParams(c, "cursor", "limit"); err != nil {
		return err
	}
	limit, err := limitOf(c)
	if err != nil {
		return err
	}
	cursor, err := cursorIn(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	all, err := s.eng.Circuits(ctx)
	if err != nil {
		return err
	}
	page, next := paginate(all, cursor, limit, func(st circuit.Status) string { return st.Key }, ascending)
	items := make([]circuitView, len(page))
	for i, st := range page {
		items[i] = viewOfCircuit(st)
	}
	return c.JSON(newListPage(items, next))
}

// resetCircuit is POST /api/v1/circuits/:key/reset (the key URL-encoded):
// closes the breaker and clears its counts, so jobs run again at once.
func (s *Service) resetCircuit(c *fiber.Ctx) error {
	key, err := url.PathUnescape(c.Params("key"))
	if err != nil {
		return BadRequest("circuit key %q is not URL-encoded properly: %v", c.Params("key"), err)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.ResetCircuit(ctx, key); err != nil {
		return err
	}
	all, err := s.eng.Circuits(ctx)
	if err != nil {
		return err
	}
	s.log.Info("circuit breaker reset", "circuit", key, "user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	for _, st := range all {
		if st.Key == key {
			return c.JSON(viewOfCircuit(st))
		}
	}
	return c.JSON(fiber.Map{"key": key, "state": circuit.Closed.String()})
}
