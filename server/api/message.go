package api

import (
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// MessageTTLMax is the longest a message may wait in the buffer.
const MessageTTLMax = 24 * time.Hour

type messageBody struct {
	Name           string         `json:"name"`
	CorrelationKey string         `json:"correlationKey"`
	Variables      map[string]any `json:"variables"`
	InstanceID     string         `json:"instanceId"`
	TTLMs          int64          `json:"ttlMs"`
}

// correlate is POST /api/v1/messages: 200 {"correlated":N}; when nothing
// waits, 404, or with ttlMs 202 {"buffered":true,"expiresAt"} and the message
// is delivered to the first instance that subscribes before it expires.
func (s *Service) correlate(c *fiber.Ctx) error {
	var b messageBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	switch {
	case b.Name == "":
		return BadRequest("field \"name\" is required: the message's name")
	case b.TTLMs < 0 || time.Duration(b.TTLMs)*time.Millisecond > MessageTTLMax:
		return BadRequest("field \"ttlMs\" is %d: use 0 (no buffering) up to %d", b.TTLMs, MessageTTLMax.Milliseconds())
	case b.TTLMs > 0 && b.InstanceID != "":
		return BadRequest("fields \"ttlMs\" and \"instanceId\" do not go together: a message for one instance is not buffered")
	}
	m := engine.Message{Name: b.Name, CorrelationKey: b.CorrelationKey, Variables: b.Variables, InstanceID: b.InstanceID}
	ctx, cancel := s.ctx(c)
	defer cancel()
	pub, err := s.eng.Publish(ctx, m, time.Duration(b.TTLMs)*time.Millisecond)
	if err != nil {
		return err
	}
	if pub.Buffered {
		return c.Status(http.StatusAccepted).JSON(fiber.Map{"buffered": true, "expiresAt": pub.Expires.UTC()})
	}
	return c.JSON(fiber.Map{"correlated": pub.Correlated})
}

// signal is POST /api/v1/signals: broadcast to every instance waiting for the
// signal, starting those whose definition has a signal start event;
// 200 {"received":N}, where 0 (nobody waits) is no error.
// startByConditions is POST /api/v1/conditions {"variables", "businessKey"}:
// starts every latest process whose conditional start event holds for the
// variables; answers how many started.
func (s *Service) startByConditions(c *fiber.Ctx) error {
	var b struct {
		Variables   map[string]any `json:"variables"`
		BusinessKey string         `json:"businessKey"`
	}
	if err := Decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	n, err := s.eng.StartByConditions(ctx, b.Variables, b.BusinessKey)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"started": n})
}

func (s *Service) signal(c *fiber.Ctx) error {
	var b struct {
		Name      string         `json:"name"`
		Variables map[string]any `json:"variables"`
	}
	if err := Decode(c, &b); err != nil {
		return err
	}
	if b.Name == "" {
		return BadRequest("field \"name\" is required: the signal's name")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	n, err := s.eng.Signal(ctx, b.Name, b.Variables)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"received": n})
}
