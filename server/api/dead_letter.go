package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// listDeadLetters is GET /api/v1/dead-letters?instance=&status=&limit=&cursor=,
// newest first. status is open, replayed or cancelled; a letter stays listed
// once settled, with the status its incident gave it.
func (s *Service) listDeadLetters(c *fiber.Ctx) error {
	if err := onlyParams(c, "instance", "status", "cursor", "limit"); err != nil {
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
	f := engine.DeadLetterFilter{InstanceID: c.Query("instance")}
	switch st := engine.DeadLetterStatus(c.Query("status")); st {
	case "", engine.DeadLetterOpen, engine.DeadLetterReplayed, engine.DeadLetterCancelled:
		f.Status = st
	default:
		return BadRequest("query parameter \"status\" is %q: use open, replayed or cancelled", st)
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
// resolves the dead letter's open incident, so its job runs again with fresh
// retries; the letter stays, as replayed. A settled letter is 409
// dead_letter_settled: replaying it would run the job twice.
func (s *Service) ReplayDeadLetter(c *fiber.Ctx) error {
	var b variablesBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	d, snap, err := s.eng.ReplayDeadLetter(ctx, c.Params("id"), b.Variables)
	if err != nil {
		return err
	}
	s.log.Info("dead letter replayed", "instance_id", d.InstanceID, "element_id", d.ElementID, "dead_letter_id", d.ID,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(fiber.Map{"replayed": true, "deadLetter": d, "instance": ViewOf(snap)})
}

// DeleteDeadLetter is DELETE /api/v1/dead-letters/:id: 204 for a settled
// letter, 409 dead_letter_open while its incident is open.
func (s *Service) DeleteDeadLetter(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.DeleteDeadLetter(ctx, c.Params("id")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
