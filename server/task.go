package server

import (
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/tasks"
)

// listTasks is GET /api/v1/tasks?instance=&assignee=&user=&group=&status=&limit=&cursor=,
// by priority then due date, with the visibility rules of tasks.Service.List.
func (s *Server) listTasks(c *fiber.Ctx) error {
	if err := onlyParams(c, "instance", "assignee", "user", "group", "status", "cursor", "limit"); err != nil {
		return err
	}
	f := engine.TaskFilter{
		InstanceID: c.Query("instance"),
		Assignee:   c.Query("assignee"),
		User:       c.Query("user"),
	}
	var err error
	if f.Cursor, err = cursorIn(c); err != nil {
		return err
	}
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
	ctx, cancel := s.ctx(c)
	defer cancel()
	items, next, err := s.tasks.List(ctx, actorOf(c).task(), f)
	if err != nil {
		return err
	}
	return c.JSON(newListPage(items, next))
}

func forbiddenf(format string, args ...any) *Error {
	return forbidden(sprintf(format, args...))
}

// taskView is a task with its form and what the acting user may do: the
// inline form-js schema or the key of a deployed form.
type taskView struct {
	tasks.View
	Form *taskForm `json:"form,omitempty"`
}

type taskForm struct {
	Schema  json.RawMessage `json:"schema,omitempty"`
	FormKey string          `json:"formKey,omitempty"`
}

func viewOfTask(v tasks.View) taskView {
	tv := taskView{View: v}
	t := v.Task
	switch {
	case t.Form != "" && json.Valid([]byte(t.Form)):
		tv.Form = &taskForm{Schema: json.RawMessage(t.Form), FormKey: t.FormKey}
	case t.Form != "":
		// not JSON: pass it on as a string for the client to report
		raw, _ := json.Marshal(t.Form)
		tv.Form = &taskForm{Schema: raw, FormKey: t.FormKey}
	case t.FormKey != "":
		tv.Form = &taskForm{FormKey: t.FormKey}
	}
	return tv
}

// getTask is GET /api/v1/tasks/:id: the task, its form, the actions the
// acting user may take and its history.
func (s *Server) getTask(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.tasks.View(ctx, actorOf(c).task(), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(viewOfTask(v))
}

type claimBody struct {
	Assignee string `json:"assignee"` // claim for someone else: a delegation (operators)
}

// claimTask is POST /api/v1/tasks/:id/claim: assigns the task to the acting
// user. Naming another assignee delegates it (see tasks.Service.Delegate).
func (s *Server) claimTask(c *fiber.Ctx) error {
	var b claimBody
	if err := decode(c, &b); err != nil {
		return err
	}
	a := actorOf(c).task()
	if b.Assignee != "" && b.Assignee != a.Name {
		return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
			return s.tasks.Delegate(ctx, a, c.Params("id"), b.Assignee)
		})
	}
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) { return s.tasks.Claim(ctx, a, c.Params("id")) })
}

// releaseTask is POST /api/v1/tasks/:id/release.
func (s *Server) releaseTask(c *fiber.Ctx) error {
	a := actorOf(c).task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) { return s.tasks.Release(ctx, a, c.Params("id")) })
}

type delegateBody struct {
	Assignee string `json:"assignee"`
}

// delegateTask is POST /api/v1/tasks/:id/delegate {"assignee"}.
func (s *Server) delegateTask(c *fiber.Ctx) error {
	var b delegateBody
	if err := decode(c, &b); err != nil {
		return err
	}
	a := actorOf(c).task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
		return s.tasks.Delegate(ctx, a, c.Params("id"), b.Assignee)
	})
}

type completeBody struct {
	Variables map[string]any `json:"variables"`
}

// completeTask is POST /api/v1/tasks/:id/complete {"variables"}; see the
// claim policy in package tasks.
func (s *Server) completeTask(c *fiber.Ctx) error {
	var b completeBody
	if err := decode(c, &b); err != nil {
		return err
	}
	a := actorOf(c).task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
		return s.tasks.Complete(ctx, a, c.Params("id"), b.Variables)
	})
}

type commentBody struct {
	Text string `json:"text"`
}

// commentTask is POST /api/v1/tasks/:id/comments {"text"}.
func (s *Server) commentTask(c *fiber.Ctx) error {
	var b commentBody
	if err := decode(c, &b); err != nil {
		return err
	}
	a := actorOf(c).task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
		return s.tasks.Comment(ctx, a, c.Params("id"), b.Text)
	})
}

// taskAction runs one task action with the request's deadline and answers
// the task as it is afterwards.
func (s *Server) taskAction(c *fiber.Ctx, do func(ctx context.Context) (engine.Task, error)) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	t, err := do(ctx)
	if err != nil {
		return err
	}
	return c.JSON(t)
}
