package page

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/tasks"
	"github.com/workflowpp/wfpp/web"
)

// inboxPage is GET /inbox.
func (s *Service) inboxPage(c *fiber.Ctx) error {
	d, err := s.inboxData(c)
	if err != nil {
		return err
	}
	if d.Processes, err = s.definitionKeys(c); err != nil {
		return err
	}
	if d.Saved, err = s.savedFilterLinks(c); err != nil {
		return err
	}
	p := s.layout(c, "Inbox", "inbox", "form-js/form-js.css")
	p.Module = "inbox.js"
	return renderPage(c, web.InboxPage(p, d))
}

// inboxFragment is GET /ui/inbox: the list alone, for live refresh.
func (s *Service) inboxFragment(c *fiber.Ctx) error {
	d, err := s.inboxData(c)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return renderPage(c, web.InboxList(d))
}

// inboxCount is GET /ui/inbox/count: how many open tasks the user holds
// (the navigation's badge).
func (s *Service) inboxCount(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"mine": s.inbox.Count(api.ActorOf(c).Task())})
}

// inboxQuery reads the inbox's query parameters.
func inboxQuery(c *fiber.Ctx, now time.Time) (tasks.InboxQuery, web.InboxData, error) {
	d := web.InboxData{
		Filter: c.Query("filter", "all"), Process: c.Query("process"), Name: c.Query("name"),
		Search: strings.TrimSpace(c.Query("q")), Sort: c.Query("sort", "priority"), DueBefore: c.Query("dueBefore"),
		CreatedAfter: c.Query("createdAfter"), CreatedBefore: c.Query("createdBefore"), Var: c.Query("var"),
	}
	q := tasks.InboxQuery{Process: d.Process, Name: d.Name, Search: d.Search, Limit: PageSizeDefault, Now: now}
	for k := range c.Queries() {
		if !slices.Contains(api.InboxParams, k) {
			return q, d, api.BadRequest("query parameter %q is unknown: the inbox takes %s", k, strings.Join(api.InboxParams, ", "))
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
		return q, d, api.BadRequest("filter %q is unknown: use all, mine, groups, unassigned or overdue", d.Filter)
	}
	switch s := tasks.Sort(d.Sort); s {
	case tasks.SortPriority, tasks.SortDue, tasks.SortCreated, tasks.SortFollowUp:
		q.Sort = s
	default:
		return q, d, api.BadRequest("sort %q is unknown: use priority, due, created or followUp", d.Sort)
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
			return q, d, api.BadRequest("%s is %q: give a date like 2026-12-31", f.name, f.v)
		}
	}
	if !q.CreatedBefore.IsZero() {
		q.CreatedBefore = q.CreatedBefore.AddDate(0, 0, 1) // the whole day counts
	}
	if d.Var != "" {
		name, value, ok := strings.Cut(d.Var, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return q, d, api.BadRequest("var is %q: write name=value", d.Var)
		}
		q.VarName, q.VarValue = strings.TrimSpace(name), strings.TrimSpace(value)
	}
	if o := c.Query("offset"); o != "" {
		if q.Offset, err = strconv.Atoi(o); err != nil || q.Offset < 0 {
			return q, d, api.BadRequest("offset is %q: give a whole number from 0", o)
		}
	}
	return q, d, nil
}

func (s *Service) inboxData(c *fiber.Ctx) (web.InboxData, error) {
	now := time.Now()
	q, d, err := inboxQuery(c, now)
	if err != nil {
		return d, err
	}
	a := api.ActorOf(c).Task()
	page := s.inbox.Query(a, q)
	for _, t := range page.Tasks {
		d.Tasks = append(d.Tasks, taskRow(t, a, now))
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

func taskRow(t engine.Task, a tasks.Actor, now time.Time) web.TaskRow {
	r := web.TaskRow{
		ID: t.ID, Name: or(t.Name, t.ElementID), Definition: t.DefinitionKey, InstanceID: t.InstanceID,
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

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// savedFilterLinks are the user's saved inbox filters, as links.
func (s *Service) savedFilterLinks(c *fiber.Ctx) ([]web.SavedFilter, error) {
	a := api.ActorOf(c)
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
