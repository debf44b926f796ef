package page

import (
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// DeadLettersPageMax bounds how many dead letters the incidents page reads.
const DeadLettersPageMax = 5000

// incidentsPage is GET /incidents[?cursor=&dcursor=].
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
	dls, err := st.DeadLetters(ctx, engine.DeadLetterFilter{Limit: DeadLettersPageMax})
	if err != nil {
		return err
	}
	var d web.IncidentsData
	lo, hi, next := offsetPage(c, len(incs), PageSizeDefault)
	for _, i := range incs[lo:hi] {
		d.Incidents = append(d.Incidents, web.IncidentRow{
			ID: i.ID, InstanceID: i.InstanceID, ElementID: i.ElementID,
			Kind: i.Kind, Message: i.Message, Attempts: i.Attempts, Created: i.Created,
		})
	}
	d.IncidentsPager = pager(c, "/incidents", url.Values{}, next, hi-lo)

	dlo := min(max(c.QueryInt("dcursor"), 0), len(dls))
	dhi := min(dlo+PageSizeDefault, len(dls))
	for _, l := range dls[dlo:dhi] {
		d.DeadLetters = append(d.DeadLetters, web.DeadLetterRow{
			ID: l.ID, InstanceID: l.InstanceID, ElementID: l.ElementID,
			IncidentID: l.IncidentID, JobType: l.JobType, Attempts: l.Attempts, LastError: l.LastError, Errors: l.Errors, Created: l.Created, Status: string(l.Status),
		})
	}
	d.DeadPager = web.Pager{Path: "/incidents", Query: url.Values{}, Prev: dlo > 0, Shown: dhi - dlo, Param: "dcursor"}
	if dhi < len(dls) {
		d.DeadPager.Next = strconv.Itoa(dhi)
	}
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

// replay is POST /ui/deadletters/:id/replay: resolves the incident the
// dead letter raised, which runs the job again; the letter stays, replayed.
func (s *Service) replay(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	d, _, err := s.eng.ReplayDeadLetter(ctx, c.Params("id"), nil)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"replayed": d.ID})
}
