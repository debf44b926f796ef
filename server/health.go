package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/workflowpp/wfpp/server/api"
)

const readyTimeout = 2 * time.Second

// HealthCheck is a dependency the server can run without, such as Redis or
// the free space of the data disk: when Check fails, /health/ready says
// "degraded" with the reason, and still 200, because the server still
// serves. Only the store makes it unready.
type HealthCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// healthReason is one failed HealthCheck in a degraded answer.
type healthReason struct {
	Check string `json:"check"`
	Error string `json:"error"`
}

// live is GET /health/live: the process serves requests. It touches nothing.
func (s *Server) live(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// ready is GET /health/ready: 503 when the store does not answer; 200 with
// "ok", or "degraded" and the reasons when a HealthCheck fails.
func (s *Server) ready(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), readyTimeout)
	defer cancel()
	if err := s.eng.Queries().Ping(ctx); err != nil {
		return &api.Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "store does not answer: " + err.Error()}
	}
	reasons := []healthReason{}
	if ids := s.eng.StuckPartitions(s.cfg.StuckAfter); len(ids) > 0 {
		reasons = append(reasons, healthReason{Check: "partitions", Error: fmt.Sprintf(
			"partitions %v have been applying one round for more than %v: their instances do not move (a store call or script that does not return?)", ids, s.cfg.StuckAfter)})
	}
	for _, h := range s.cfg.Health {
		if err := h.Check(ctx); err != nil {
			reasons = append(reasons, healthReason{Check: h.Name, Error: err.Error()})
		}
	}
	if len(reasons) > 0 {
		return c.JSON(fiber.Map{"status": "degraded", "reasons": reasons})
	}
	return c.JSON(fiber.Map{"status": "ok"})
}
