package server

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// listDeadLetters is GET /api/v1/dead-letters?instance=&limit=&cursor=, newest first.
func (s *Server) listDeadLetters(c *fiber.Ctx) error {
	if err := onlyParams(c, "instance", "cursor", "limit"); err != nil {
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
	all, err := s.eng.Store().DeadLetters(ctx, engine.DeadLetterFilter{InstanceID: c.Query("instance")})
	if err != nil {
		return err
	}
	items, next := paginate(all, cursor, limit, func(d engine.DeadLetter) string { return d.ID }, descending)
	return c.JSON(newListPage(items, next))
}

// getDeadLetter is GET /api/v1/dead-letters/:id.
func (s *Server) getDeadLetter(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	d, err := s.eng.DeadLetter(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(d)
}

// replayDeadLetter is POST /api/v1/dead-letters/:id/replay {"variables"?}:
// resolves the dead letter's open incident, so its job runs again with fresh
// retries, then deletes the dead letter. When the incident is closed already
// the job's token has moved on and replaying would run the job twice: 409.
func (s *Server) replayDeadLetter(c *fiber.Ctx) error {
	var b variablesBody
	if err := decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	d, err := s.eng.DeadLetter(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	inc, err := s.eng.Incident(ctx, d.IncidentID)
	if err != nil {
		return err
	}
	if inc.Resolved != nil {
		return &Error{Status: http.StatusConflict, Code: "incident_resolved",
			Message: sprintf("dead letter %s: its incident %s is resolved already, so the job ran again or its token moved on; delete the dead letter instead", d.ID, inc.ID)}
	}
	snap, err := s.eng.ResolveIncident(ctx, d.InstanceID, inc.ID, b.Variables)
	if err != nil {
		return err
	}
	if err := s.eng.Store().DeleteDeadLetter(ctx, d.ID); err != nil {
		return err
	}
	s.log.Info("dead letter replayed", "instance_id", d.InstanceID, "element_id", d.ElementID, "dead_letter_id", d.ID,
		"user", actorOf(c).Name, "correlation_id", correlationID(c))
	return c.JSON(fiber.Map{"replayed": true, "deadLetter": d, "instance": viewOf(snap)})
}

// deleteDeadLetter is DELETE /api/v1/dead-letters/:id: 204.
func (s *Server) deleteDeadLetter(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.Store().DeleteDeadLetter(ctx, c.Params("id")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
