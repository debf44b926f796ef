package page

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// incidentsPage is GET /incidents[?cursor=].
func (s *Service) incidentsPage(c *fiber.Ctx) error {
	if u := identity.CurrentUser(c); !api.ReadsAll(u) {
		return api.Forbidden("incidents and dead letters are for operators and designers")
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	st := s.eng.Queries()
	incs, err := st.Incidents(ctx, engine.IncidentFilter{Open: true})
	if err != nil {
		return err
	}
	var d web.IncidentsData
	d.PendingLetters, err = st.CountDeadLetters(ctx, engine.DeadLetterFilter{Status: []engine.DeadLetterStatus{engine.DeadLetterPending}})
	if err != nil {
		return err
	}
	lo, hi, next := offsetPage(c, len(incs), PageSizeDefault)
	for _, i := range incs[lo:hi] {
		d.Incidents = append(d.Incidents, web.IncidentRow{
			ID: i.ID, InstanceID: i.InstanceID, ElementID: i.ElementID,
			Kind: i.Kind, Message: i.Message, Attempts: i.Attempts, Created: i.Created,
		})
	}
	d.IncidentsPager = pager(c, "/incidents", url.Values{}, next, hi-lo)

	p := s.layout(c, "Incidents", "incidents")
	p.Module = "incidents.js"
	return renderPage(c, web.IncidentsPage(p, d))
}

// retry is POST /ui/instances/:id/incidents/:incident/retry.
func (s *Service) retry(c *fiber.Ctx) error {
	var b struct {
		Variables map[string]any `json:"variables"`
	}
	if err := api.Decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	snap, err := s.eng.ResolveIncident(ctx, c.Params("id"), c.Params("incident"), b.Variables)
	if err != nil {
		return err
	}
	return c.JSON(api.ViewOf(snap))
}
