package server

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/workflowpp/wfpp/server/api"
)

// observe logs every request once, with its status and latency, and records
// the latency metric. It writes the error envelope itself so the status is
// known here.
func (s *Server) observe(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	if err != nil {
		if herr := api.HandleError(c, err); herr != nil {
			s.log.Error("writing error response", "err", herr)
		}
	}
	elapsed := time.Since(start)
	status := c.Response().StatusCode()
	route := c.Route().Path
	if status == fiber.StatusNotFound && route == "/" {
		route = "unmatched" // a route per unknown path would grow without bound
	}
	s.metrics.httpLatency.WithLabelValues(c.Method(), route, strconv.Itoa(status)).Observe(elapsed.Seconds())
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	attrs := []any{
		"method", c.Method(), "path", c.Path(), "status", status,
		"latency_ms", float64(elapsed.Microseconds()) / 1000, "correlation_id", api.CorrelationID(c),
	}
	if err != nil {
		attrs = append(attrs, "err", err.Error())
	}
	s.log.Log(c.UserContext(), level, "request", attrs...)
	return nil
}
