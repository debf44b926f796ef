package server

import (
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// correlate is POST /api/v1/messages: 200 {"correlated":N}, 404 when no
// instance waits and no start event takes the message.
func (s *Server) correlate(c *fiber.Ctx) error {
	var m engine.Message
	if err := decode(c, &m); err != nil {
		return err
	}
	if m.Name == "" {
		return badRequest("field \"name\" is required: the message's name")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	n, err := s.eng.Correlate(ctx, m)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"correlated": n})
}
