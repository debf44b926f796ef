package server

import (
	"context"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
)

const readyTimeout = 2 * time.Second

// live is GET /health/live: the process serves requests.
func (s *Server) live(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// ready is GET /health/ready: the store answers.
func (s *Server) ready(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), readyTimeout)
	defer cancel()
	if err := s.eng.Store().Ping(ctx); err != nil {
		return &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "store does not answer: " + err.Error()}
	}
	return c.JSON(fiber.Map{"status": "ok"})
}
