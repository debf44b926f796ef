package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// listIncidents is GET /api/v1/incidents?instance=&open=true&limit=&cursor=, newest first.
func (s *Service) listIncidents(c *fiber.Ctx) error {
	if err := onlyParams(c, "instance", "open", "cursor", "limit"); err != nil {
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
	f := engine.IncidentFilter{InstanceID: c.Query("instance")}
	switch o := c.Query("open"); o {
	case "", "false":
	case "true":
		f.Open = true
	default:
		return BadRequest("query parameter \"open\" is %q: use true or false", o)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	all, err := s.eng.Queries().Incidents(ctx, f)
	if err != nil {
		return err
	}
	items, next := paginate(all, cursor, limit, func(i engine.Incident) string { return i.ID }, descending)
	return c.JSON(newListPage(items, next))
}

// resolveIncident is POST /api/v1/incidents/:id/resolve {"variables"}: merges
// the variables (the fix) and retries what the incident stopped.
func (s *Service) resolveIncident(c *fiber.Ctx) error {
	var b variablesBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	inc, err := s.eng.Incident(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	if inc.Resolved != nil {
		return &Error{Status: fiber.StatusConflict, Code: "incident_resolved", Message: sprintf("incident %s was resolved at %s", inc.ID, inc.Resolved.UTC().Format("2006-01-02T15:04:05Z"))}
	}
	snap, err := s.eng.ResolveIncident(ctx, inc.InstanceID, inc.ID, b.Variables)
	if err != nil {
		return err
	}
	s.log.Info("incident resolved", "instance_id", inc.InstanceID, "incident_id", inc.ID, "element_id", inc.ElementID,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(ViewOf(snap))
}
