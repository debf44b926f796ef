package server

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// listTasks is GET /api/v1/tasks?instance=&assignee=&user=&group=&status=&limit=&cursor=,
// by priority then due date. A non-admin sees only tasks assigned to them or
// unassigned with them or one of their groups among the candidates.
func (s *Server) listTasks(c *fiber.Ctx) error {
	f := engine.TaskFilter{
		InstanceID: c.Query("instance"),
		Assignee:   c.Query("assignee"),
		User:       c.Query("user"),
		Cursor:     c.Query("cursor"),
	}
	var err error
	if f.Limit, err = limitOf(c); err != nil {
		return err
	}
	if g := c.Query("group"); g != "" {
		f.Groups = []string{g}
	}
	switch st := engine.TaskStatus(c.Query("status")); st {
	case "", engine.TaskOpen, engine.TaskCompleted, engine.TaskCancelled:
		f.Status = st
	default:
		return badRequest("query parameter \"status\" is %q: use open, completed or cancelled", st)
	}
	if a := actorOf(c); !a.Admin {
		if f.User != "" && f.User != a.Name {
			return forbiddenf("only admins list the tasks of another user (query parameter \"user\")")
		}
		f.User = a.Name
		switch {
		case len(f.Groups) == 0:
			f.Groups = a.Groups
		case !slices.Contains(a.Groups, f.Groups[0]):
			return forbiddenf("you are not in group %q: only admins list the tasks of other groups", f.Groups[0])
		}
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	items, next, err := s.eng.Store().Tasks(ctx, f)
	if err != nil {
		return err
	}
	return c.JSON(newListPage(items, next))
}

func forbiddenf(format string, args ...any) *Error {
	return forbidden(sprintf(format, args...))
}

// canSee reports whether a may see task t by its id: admins, the assignee,
// and its candidate users and groups, claimed or not (so a candidate learns
// who claimed it). Lists are narrower: there a claimed task shows only to
// its assignee.
func (a actor) canSee(t engine.Task) bool {
	switch {
	case a.Admin || t.Assignee == a.Name:
		return true
	case slices.Contains(t.CandidateUsers, a.Name):
		return true
	}
	for _, g := range a.Groups {
		if slices.Contains(t.CandidateGroups, g) {
			return true
		}
	}
	return false
}

// visibleTask loads task :id and checks a may see it; a task a may not see
// is reported as not found, so its existence does not leak.
func (s *Server) visibleTask(c *fiber.Ctx, a actor) (engine.Task, error) {
	ctx, cancel := s.ctx(c)
	defer cancel()
	t, err := s.eng.Store().Task(ctx, c.Params("id"))
	if err != nil {
		return t, err
	}
	if !a.canSee(t) {
		return t, &Error{Status: http.StatusNotFound, Code: "not_found", Message: sprintf("task %s: not found", t.ID)}
	}
	return t, nil
}

// taskView is a task with its form: the inline form-js schema or the key
// of a deployed form.
type taskView struct {
	engine.Task
	Form *taskForm `json:"form,omitempty"`
}

type taskForm struct {
	Schema  json.RawMessage `json:"schema,omitempty"`
	FormKey string          `json:"formKey,omitempty"`
}

func viewOfTask(t engine.Task) taskView {
	v := taskView{Task: t}
	switch {
	case t.Form != "" && json.Valid([]byte(t.Form)):
		v.Form = &taskForm{Schema: json.RawMessage(t.Form), FormKey: t.FormKey}
	case t.Form != "":
		// not JSON: pass it on as a string for the client to report
		raw, _ := json.Marshal(t.Form)
		v.Form = &taskForm{Schema: raw, FormKey: t.FormKey}
	case t.FormKey != "":
		v.Form = &taskForm{FormKey: t.FormKey}
	}
	return v
}

// getTask is GET /api/v1/tasks/:id.
func (s *Server) getTask(c *fiber.Ctx) error {
	t, err := s.visibleTask(c, actorOf(c))
	if err != nil {
		return err
	}
	return c.JSON(viewOfTask(t))
}

type claimBody struct {
	Assignee string `json:"assignee"` // admins only: claim for someone else
}

// claimTask is POST /api/v1/tasks/:id/claim: assigns the task to the acting
// user (admins may name another). A task claimed by someone else is 409.
func (s *Server) claimTask(c *fiber.Ctx) error {
	var b claimBody
	if err := decode(c, &b); err != nil {
		return err
	}
	a := actorOf(c)
	user := a.Name
	if b.Assignee != "" {
		if !a.Admin && b.Assignee != a.Name {
			return forbiddenf("only admins claim a task for someone else")
		}
		user = b.Assignee
	}
	if user == "" {
		return badRequest("no user to claim the task for: send the %s header or field \"assignee\"", UserHeader)
	}
	defer tasksLocked.lock(c.Params("id"))()
	t, err := s.visibleTask(c, a)
	if err != nil {
		return err
	}
	switch {
	case t.Status != engine.TaskOpen:
		return &Error{Status: http.StatusConflict, Code: "task_not_open", Message: sprintf("task %s is %s: only open tasks are claimed", t.ID, t.Status)}
	case t.Assignee == user:
		return c.JSON(viewOfTask(t))
	case t.Assignee != "" && !a.Admin:
		return &Error{Status: http.StatusConflict, Code: "task_claimed", Message: sprintf("task %s is claimed by %q: they or an admin must release it first", t.ID, t.Assignee)}
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	got, err := s.eng.ClaimTask(ctx, t.ID, user)
	if err != nil {
		return err
	}
	return c.JSON(viewOfTask(*got))
}

// releaseTask is POST /api/v1/tasks/:id/release: unassigns the task; only its
// assignee or an admin may.
func (s *Server) releaseTask(c *fiber.Ctx) error {
	a := actorOf(c)
	defer tasksLocked.lock(c.Params("id"))()
	t, err := s.visibleTask(c, a)
	if err != nil {
		return err
	}
	switch {
	case t.Status != engine.TaskOpen:
		return &Error{Status: http.StatusConflict, Code: "task_not_open", Message: sprintf("task %s is %s: only open tasks are released", t.ID, t.Status)}
	case t.Assignee == "":
		return c.JSON(viewOfTask(t))
	case t.Assignee != a.Name && !a.Admin:
		return forbiddenf("task %s is claimed by %q: only they or an admin release it", t.ID, t.Assignee)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	got, err := s.eng.ClaimTask(ctx, t.ID, "")
	if err != nil {
		return err
	}
	return c.JSON(viewOfTask(*got))
}

type completeBody struct {
	Variables map[string]any `json:"variables"`
}

// completeTask is POST /api/v1/tasks/:id/complete; a task already completed
// is 409, one claimed by someone else 403 (admins excepted).
func (s *Server) completeTask(c *fiber.Ctx) error {
	var b completeBody
	if err := decode(c, &b); err != nil {
		return err
	}
	a := actorOf(c)
	defer tasksLocked.lock(c.Params("id"))()
	t, err := s.visibleTask(c, a)
	if err != nil {
		return err
	}
	if t.Status == engine.TaskOpen && t.Assignee != "" && t.Assignee != a.Name && !a.Admin {
		return forbiddenf("task %s is claimed by %q: only they or an admin complete it", t.ID, t.Assignee)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	task, err := s.eng.CompleteTask(ctx, t.ID, a.Name, b.Variables)
	if err != nil {
		return err
	}
	return c.JSON(task)
}
