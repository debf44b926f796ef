package server

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/web"
)

// inboxScanPage is how many tasks one store call reads while a filter the
// store does not know (process, overdue) picks a page's rows.
const inboxScanPage = 200

// inboxPage is GET /inbox.
func (s *Server) inboxPage(c *fiber.Ctx) error {
	d, err := s.pageInboxData(c)
	if err != nil {
		return err
	}
	if d.Processes, err = s.definitionKeys(c); err != nil {
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

func (s *Server) pageInboxData(c *fiber.Ctx) (web.InboxData, error) {
	u, _, _ := pageUser(c)
	d := web.InboxData{Filter: c.Query("filter", "all"), Process: c.Query("process"), Sort: c.Query("sort", "priority")}
	f := engine.TaskFilter{Status: engine.TaskOpen, Cursor: c.Query("cursor"), Limit: inboxScanPage, ByDue: d.Sort == "due"}
	switch d.Filter {
	case "mine":
		f.Assignee = u.Name
		d.Description = "Tasks assigned to you."
	case "groups":
		f.Groups = u.Groups
		d.Description = "Unassigned tasks for your groups (" + strings.Join(u.Groups, ", ") + ")."
	case "all", "overdue":
		if !pageIsAdmin(u) {
			f.User, f.Groups = u.Name, u.Groups
		}
		d.Description = "Every open task you may see."
		if d.Filter == "overdue" {
			d.Description = "Open tasks past their due date."
		}
	default:
		return d, badRequest("filter %q is unknown: use mine, groups, all or overdue", d.Filter)
	}
	now := time.Now()
	ctx, cancel := s.ctx(c)
	defer cancel()
	var next string
scan:
	for {
		page, more, err := s.eng.Store().Tasks(ctx, f)
		if err != nil {
			return d, err
		}
		for _, t := range page {
			if len(d.Tasks) == PageSizeDefault {
				next = d.Tasks[len(d.Tasks)-1].ID
				break scan
			}
			overdue := t.Due != nil && t.Due.Before(now)
			if (d.Process != "" && t.DefinitionKey != d.Process) || (d.Filter == "overdue" && !overdue) {
				continue
			}
			d.Tasks = append(d.Tasks, pageTaskRow(t, u, overdue))
		}
		if more == "" {
			break
		}
		f.Cursor = more
	}
	q := url.Values{"filter": {d.Filter}, "sort": {d.Sort}}
	if d.Process != "" {
		q.Set("process", d.Process)
	}
	d.Pager = pagePager(c, "/inbox", q, next, len(d.Tasks))
	return d, nil
}

func pageTaskRow(t engine.Task, u web.User, overdue bool) web.TaskRow {
	return web.TaskRow{
		ID: t.ID, Name: pageOr(t.Name, t.ElementID), Definition: t.DefinitionKey, InstanceID: t.InstanceID,
		ElementID: t.ElementID, Assignee: t.Assignee, Priority: t.Priority, Due: t.Due, Overdue: overdue,
		Created: t.Created, Mine: t.Assignee != "" && t.Assignee == u.Name,
		Candidates: strings.Join(slices.Concat(t.CandidateUsers, t.CandidateGroups), ", "),
	}
}

func pageOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
