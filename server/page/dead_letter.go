package page

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// DeadLettersPageMax bounds how many dead letters the page reads.
const DeadLettersPageMax = 5000

// deadLettersPage is GET /dead-letters?definition=&element=&jobType=&error=
// &createdFrom=&createdTo=&status=&instance=&cursor=: the letters the filter
// selects, newest first (api.DeadLetterQuery reads it).
func (s *Service) deadLettersPage(c *fiber.Ctx) error {
	if u := identity.CurrentUser(c); !api.ReadsAll(u) {
		return api.Forbidden("dead letters are for operators and designers")
	}
	f, err := api.DeadLetterQuery(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	st := s.eng.Queries()
	f.Limit = DeadLettersPageMax // the count says how many match in all
	letters, err := st.DeadLetters(ctx, f)
	if err != nil {
		return err
	}
	f.Limit = 0
	d := web.DeadLettersData{
		Instance: c.Query("instance"), Definition: c.Query("definition"), ElementID: c.Query("element"), JobType: c.Query("jobType"),
		Error: c.Query("error"), CreatedFrom: c.Query("createdFrom"), CreatedTo: c.Query("createdTo"), Status: c.Query("status"),
	}
	if d.Matched, err = st.CountDeadLetters(ctx, f); err != nil {
		return err
	}
	if d.Definitions, err = s.definitionKeys(c); err != nil {
		return err
	}
	lo, hi, next := offsetPage(c, len(letters), PageSizeDefault)
	for _, l := range letters[lo:hi] {
		d.Rows = append(d.Rows, letterRow(l))
	}
	q := url.Values{}
	for _, k := range api.DeadLetterParams {
		if v := c.Query(k); v != "" {
			q.Set(k, v)
		}
	}
	d.Pager = pager(c, "/dead-letters", q, next, hi-lo)
	p := s.layout(c, "Dead letters", "deadletters")
	p.Module = "dead_letters.js"
	return renderPage(c, web.DeadLettersPage(p, d))
}

func letterRow(l engine.DeadLetter) web.DeadLetterRow {
	r := web.DeadLetterRow{
		ID: l.ID, InstanceID: l.InstanceID, Definition: l.Definition, ElementID: l.ElementID, IncidentID: l.IncidentID,
		JobType: l.JobType, Attempts: l.Attempts, LastError: l.LastError, Created: l.Created, Status: string(l.Status),
	}
	for _, h := range l.History {
		r.History = append(r.History, web.DeadLetterStep{Status: string(h.Status), At: h.At, By: h.By, Error: h.Error})
	}
	if len(r.History) == 0 { // stored before letters kept a history
		r.History = []web.DeadLetterStep{{Status: string(l.Status), At: l.Created, Error: l.LastError}}
	}
	return r
}
