package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/tasks"
	"github.com/workflowpp/wfpp/web"
)

// inboxPage is GET /inbox.
func (s *Server) inboxPage(c *fiber.Ctx) error {
	d, err := s.pageInboxData(c)
	if err != nil {
		return err
	}
	if d.Processes, err = s.definitionKeys(c); err != nil {
		return err
	}
	if d.Saved, err = s.savedFilterLinks(c); err != nil {
		return err
	}
	p := s.pageInfo(c, "Inbox", "inbox", "form-js/form-js.css")
	p.Module = "inbox.js"
	return renderPage(c, web.InboxPage(p, d))
}

// inboxFragment is GET /ui/inbox: the list alone, for live refresh.
func (s *Server) inboxFragment(c *fiber.Ctx) error {
	d, err := s.pageInboxData(c)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return renderPage(c, web.InboxList(d))
}

// inboxCount is GET /ui/inbox/count: how many open tasks the user holds
// (the navigation's badge).
func (s *Server) inboxCount(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"mine": s.inbox.Count(actorOf(c).task())})
}

// inboxParams are the inbox's query parameters; others are refused.
var inboxParams = []string{"filter", "process", "name", "q", "sort", "dueBefore", "createdAfter", "createdBefore", "var", "offset"}

// inboxQuery reads the inbox's query parameters.
func inboxQuery(c *fiber.Ctx, now time.Time) (tasks.InboxQuery, web.InboxData, error) {
	d := web.InboxData{
		Filter: c.Query("filter", "all"), Process: c.Query("process"), Name: c.Query("name"),
		Search: strings.TrimSpace(c.Query("q")), Sort: c.Query("sort", "priority"), DueBefore: c.Query("dueBefore"),
		CreatedAfter: c.Query("createdAfter"), CreatedBefore: c.Query("createdBefore"), Var: c.Query("var"),
	}
	q := tasks.InboxQuery{Process: d.Process, Name: d.Name, Search: d.Search, Limit: PageSizeDefault, Now: now}
	for k := range c.Queries() {
		if !slices.Contains(inboxParams, k) {
			return q, d, badRequest("query parameter %q is unknown: the inbox takes %s", k, strings.Join(inboxParams, ", "))
		}
	}
	switch d.Filter {
	case "all":
		q.Scope, d.Description = tasks.ScopeAll, "Every open task you may see."
	case "mine":
		q.Scope, d.Description = tasks.ScopeMine, "Tasks assigned to you."
	case "groups":
		q.Scope, d.Description = tasks.ScopeGroups, "Unassigned tasks for your groups."
	case "unassigned":
		q.Scope, d.Description = tasks.ScopeUnassigned, "Unassigned tasks you may take."
	case "overdue":
		q.Scope, q.Overdue, d.Description = tasks.ScopeAll, true, "Open tasks past their due date."
	default:
		return q, d, badRequest("filter %q is unknown: use all, mine, groups, unassigned or overdue", d.Filter)
	}
	switch s := tasks.Sort(d.Sort); s {
	case tasks.SortPriority, tasks.SortDue, tasks.SortCreated, tasks.SortFollowUp:
		q.Sort = s
	default:
		return q, d, badRequest("sort %q is unknown: use priority, due, created or followUp", d.Sort)
	}
	var err error
	for _, f := range []struct {
		name, v string
		dst     *time.Time
	}{{"dueBefore", d.DueBefore, &q.DueBefore}, {"createdAfter", d.CreatedAfter, &q.CreatedAfter}, {"createdBefore", d.CreatedBefore, &q.CreatedBefore}} {
		if f.v == "" {
			continue
		}
		if *f.dst, err = time.ParseInLocation(time.DateOnly, f.v, time.Local); err != nil {
			return q, d, badRequest("%s is %q: give a date like 2026-12-31", f.name, f.v)
		}
	}
	if !q.CreatedBefore.IsZero() {
		q.CreatedBefore = q.CreatedBefore.AddDate(0, 0, 1) // the whole day counts
	}
	if d.Var != "" {
		name, value, ok := strings.Cut(d.Var, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return q, d, badRequest("var is %q: write name=value", d.Var)
		}
		q.VarName, q.VarValue = strings.TrimSpace(name), strings.TrimSpace(value)
	}
	if o := c.Query("offset"); o != "" {
		if q.Offset, err = strconv.Atoi(o); err != nil || q.Offset < 0 {
			return q, d, badRequest("offset is %q: give a whole number from 0", o)
		}
	}
	return q, d, nil
}

func (s *Server) pageInboxData(c *fiber.Ctx) (web.InboxData, error) {
	now := time.Now()
	q, d, err := inboxQuery(c, now)
	if err != nil {
		return d, err
	}
	a := actorOf(c).task()
	page := s.inbox.Query(a, q)
	for _, t := range page.Tasks {
		d.Tasks = append(d.Tasks, pageTaskRow(t, a, now))
	}
	d.Total = page.Total
	if page.Total > 0 {
		d.From, d.To = page.Offset+1, page.Offset+len(page.Tasks)
	}
	link := func(offset int) string {
		v := url.Values{}
		for k, val := range c.Queries() {
			if k != "offset" && val != "" {
				v.Set(k, val)
			}
		}
		if offset > 0 {
			v.Set("offset", strconv.Itoa(offset))
		}
		return "/inbox?" + v.Encode()
	}
	if page.Offset > 0 {
		d.PrevURL = link(max(page.Offset-q.Limit, 0))
	}
	if d.To < page.Total {
		d.NextURL = link(d.To)
	}
	return d, nil
}

func pageTaskRow(t engine.Task, a tasks.Actor, now time.Time) web.TaskRow {
	r := web.TaskRow{
		ID: t.ID, Name: pageOr(t.Name, t.ElementID), Definition: t.DefinitionKey, InstanceID: t.InstanceID,
		ElementID: t.ElementID, BusinessKey: t.BusinessKey, Assignee: t.Assignee, Priority: t.Priority,
		Due: t.Due, FollowUp: t.FollowUp, Overdue: t.Due != nil && t.Due.Before(now),
		Created: t.Created, CreatedAgo: ago(now.Sub(t.Created)), Mine: t.Assignee != "" && t.Assignee == a.Name,
		Candidates: strings.Join(slices.Concat(t.CandidateUsers, t.CandidateGroups), ", "),
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range t.InboxVariables {
			if !yield(k) {
				return
			}
		}
	}) {
		r.Vars = append(r.Vars, fmt.Sprintf("%s: %v", k, t.InboxVariables[k]))
	}
	return r
}

// ago says how long ago something happened, as people say it.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	case d < 48*time.Hour:
		return "yesterday"
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

func pageOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// savedFilterLinks are the user's saved inbox filters, as links.
func (s *Server) savedFilterLinks(c *fiber.Ctx) ([]web.SavedFilter, error) {
	a := actorOf(c)
	if a.Name == "" {
		return nil, nil
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	fs, err := s.eng.Queries().Filters(ctx, a.Name)
	if err != nil {
		return nil, err
	}
	out := make([]web.SavedFilter, len(fs))
	for i, f := range fs {
		out[i] = web.SavedFilter{Name: f.Name, URL: "/inbox?" + f.Query}
	}
	return out, nil
}

// listFilters is GET /api/v1/filters (and /ui/filters): the user's saved
// inbox filters.
func (s *Server) listFilters(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	fs, err := s.eng.Queries().Filters(ctx, actorOf(c).Name)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"items": fs})
}

type filterBody struct {
	Name  string `json:"name"`
	Query string `json:"query"`
}

// saveFilter is POST /api/v1/filters {"name","query"}: keeps an inbox query
// under a name for the acting user, replacing one of the same name.
func (s *Server) saveFilter(c *fiber.Ctx) error {
	var b filterBody
	if err := decode(c, &b); err != nil {
		return err
	}
	b.Name = strings.TrimSpace(b.Name)
	a := actorOf(c)
	switch {
	case a.Name == "":
		return forbiddenf("saved filters belong to a user: sign in")
	case b.Name == "" || len(b.Name) > 80:
		return badRequest("field \"name\" must have 1 to 80 characters")
	}
	vals, err := url.ParseQuery(strings.TrimPrefix(b.Query, "?"))
	if err != nil {
		return badRequest("field \"query\" is not a query string: %v", err)
	}
	for k := range vals {
		if !slices.Contains(inboxParams, k) || k == "offset" {
			return badRequest("field \"query\" has %q, which the inbox does not take", k)
		}
	}
	f := engine.SavedFilter{User: a.Name, Name: b.Name, Query: vals.Encode(), Created: time.Now().UTC()}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.SaveFilter(ctx, f); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(f)
}

// deleteFilter is DELETE /api/v1/filters/:name.
func (s *Server) deleteFilter(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.DeleteFilter(ctx, actorOf(c).Name, c.Params("name")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
