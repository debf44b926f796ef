package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// WebhookLink is a URL a webhook catch of an instance waits at.
type WebhookLink struct {
	ElementID string    `json:"elementId"`
	URL       string    `json:"url"` // relative to the server: /api/v1/hooks/{token}
	MultiUse  bool      `json:"multiUse"`
	CreatedAt time.Time `json:"createdAt"`
}

// hookPath is where a webhook's POSTs go.
const hookPath = "/api/v1/hooks/"

// webhookLinks lists the open webhooks of s.
func webhookLinks(s *engine.Snapshot) []WebhookLink {
	links := []WebhookLink{}
	for _, sub := range s.Subscriptions {
		if w := sub.Webhook; w != nil {
			links = append(links, WebhookLink{ElementID: sub.ElementID, URL: hookPath + w.Token, MultiUse: w.MultiUse, CreatedAt: w.Created.UTC()})
		}
	}
	return links
}

// HookRoutes registers POST /api/v1/hooks/{token} on app. The token is the
// credential: the route needs no session and no CSRF token (the caller is
// another system), so package server mounts it before authentication; the
// rate limit and the variables cap still apply.
func (s *Service) HookRoutes(app fiber.Router) {
	app.Post(hookPath+":token", s.CapVariables, s.deliverWebhook)
}

// deliverWebhook is POST /api/v1/hooks/{token} with a JSON object: 200
// {"delivered":true} when it moved the waiting element; 404 when no element
// waits at the token (unknown, or its wait ended); 422 webhook_rejected when
// the payload fails the element's filter, which changes nothing; 400 for a
// body that is no JSON object.
func (s *Service) deliverWebhook(c *fiber.Ctx) error {
	var body any
	if err := Decode(c, &body); err != nil {
		return err
	}
	payload, ok := body.(map[string]any)
	if !ok && body != nil {
		return BadRequest("request body is no JSON object: send the payload as {\"name\": value, ...}")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if _, err := s.eng.DeliverWebhook(ctx, c.Params("token"), payload); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"delivered": true})
}
