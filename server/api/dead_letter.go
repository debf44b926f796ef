package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// listDeadLetters is GET /api/v1/dead-letters?instance=&definition=&element=
// &jobType=&error=&createdFrom=&createdTo=&status=&limit=&cursor=, newest
// first (DeadLetterQuery).
func (s *Service) listDeadLetters(c *fiber.Ctx) error {
	if err := onlyParams(c, append(DeadLetterParams, "cursor", "limit")...); err != nil {
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
	f, err := DeadLetterQuery(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	all, err := s.eng.Queries().DeadLetters(ctx, f)
	if err != nil {
		return err
	}
	items, next := paginate(all, cursor, limit, func(d engine.DeadLetter) string { return d.ID }, descending)
	return c.JSON(newListPage(items, next))
}

// DeadLetterParams are the query parameters DeadLetterQuery reads.
var DeadLetterParams = []string{"instance", "definition", "element", "jobType", "error", "createdFrom", "createdTo", "status"}

// DeadLetterQuery reads a dead letter filter from the query: instance,
// definition (key), element, jobType, error (text one of its errors
// contains), createdFrom and createdTo (RFC 3339, or a form's
// 2006-01-02T15:04 in UTC; to is exclusive) and status, a comma-separated
// list of pending (open, its former name, too), replaying, replayed,
// discarded and cancelled. A letter stays listed once settled, for audit.
func DeadLetterQuery(c *fiber.Ctx) (engine.DeadLetterFilter, error) {
	sel := letterSelection{
		Instance: c.Query("instance"), Definition: c.Query("definition"), ElementID: c.Query("element"),
		JobType: c.Query("jobType"), Error: c.Query("error"),
	}
	if v := c.Query("status"); v != "" {
		sel.Status = strings.Split(v, ",")
	}
	for _, t := range []struct {
		param string
		to    **time.Time
	}{{"createdFrom", &sel.CreatedFrom}, {"createdTo", &sel.CreatedTo}} {
		v := c.Query(t.param)
		if v == "" {
			continue
		}
		at, err := time.Parse(time.RFC3339, v)
		if err != nil {
			at, err = time.Parse("2006-01-02T15:04", v)
		}
		if err != nil {
			return engine.DeadLetterFilter{}, BadRequest("query parameter %q is %q: write a time like 2026-01-31T09:00:00Z", t.param, v)
		}
		*t.to = &at
	}
	return sel.filter("query parameter \"status\"", nil)
}

// getDeadLetter is GET /api/v1/dead-letters/:id.
func (s *Service) getDeadLetter(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	d, err := s.eng.DeadLetter(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(d)
}

// ReplayDeadLetter is POST /api/v1/dead-letters/:id/replay {"variables"?}:
// resolves a pending dead letter's incident, so its job runs again with
// fresh retries; the letter is replaying until the job ends (replayed, or
// pending again). Any other letter is 409 dead_letter_settled.
func (s *Service) ReplayDeadLetter(c *fiber.Ctx) error {
	var b variablesBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	user := ActorOf(c).Name
	d, snap, err := s.eng.ReplayDeadLetter(ctx, c.Params("id"), user, b.Variables)
	if err != nil {
		return err
	}
	s.log.Info("dead letter replayed", "instance_id", d.InstanceID, "element_id", d.ElementID, "dead_letter_id", d.ID,
		"user", user, "correlation_id", CorrelationID(c))
	return c.JSON(fiber.Map{"replayed": true, "deadLetter": d, "instance": ViewOf(snap)})
}

// DiscardDeadLetter is POST /api/v1/dead-letters/:id/discard: the operator
// gives up on a pending letter. Its incident stays open, so the instance
// still shows what stopped it; cancel the instance, or retry the incident,
// as a decision of its own. Any other letter is 409 dead_letter_settled.
func (s *Service) DiscardDeadLetter(c *fiber.Ctx) error {
	if err := Decode(c, &struct{}{}); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	user := ActorOf(c).Name
	d, err := s.eng.DiscardDeadLetter(ctx, c.Params("id"), user)
	if err != nil {
		return err
	}
	s.log.Info("dead letter discarded", "instance_id", d.InstanceID, "element_id", d.ElementID, "dead_letter_id", d.ID,
		"user", user, "correlation_id", CorrelationID(c))
	return c.JSON(fiber.Map{"discarded": true, "deadLetter": d})
}

// DeleteDeadLetter is DELETE /api/v1/dead-letters/:id: 204 for a settled
// letter, 409 dead_letter_open while it is pending or replaying.
func (s *Service) DeleteDeadLetter(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.DeleteDeadLetter(ctx, c.Params("id")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
