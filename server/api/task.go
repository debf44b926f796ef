package api

import (
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/tasks"
)

// listTasks is GET /api/v1/tasks?instance=&assignee=&user=&group=&status=&limit=&cursor=,
// by priority then due date, with the visibility rules of tasks.Service.List.
func (s *Service) listTasks(c *fiber.Ctx) error {
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
		return BadRequest("query parameter \"status\" is %q: use open, completed or cancelled", st)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	items, next, err := s.tasks.List(ctx, ActorOf(c).Task(), f)
	if err != nil {
		return err
	}
	return c.JSON(newListPage(items, next))
}

func forbiddenf(format string, args ...any) *Error {
	return Forbidden(sprintf(format, args...))
}

// taskView is a task with its form and what the acting user may do: the
// inline form-js schema or the key of a deployed form.
type taskView struct {
	tasks.View
	Form *TaskForm `json:"form,omitempty"`
}

type TaskForm struct {
	Schema  json.RawMessage `json:"schema,omitempty"`
	FormKey string          `json:"formKey,omitempty"`
}

func viewOfTask(v tasks.View) taskView {
	tv := taskView{View: v}
	t := v.Task
	switch {
	case t.Form != "" && json.Valid([]byte(t.Form)):
		tv.Form = &TaskForm{Schema: json.RawMessage(t.Form), FormKey: t.FormKey}
	case t.Form != "":
		// not JSON: pass it on as a string for the client to report
		raw, _ := json.Marshal(t.Form)
		tv.Form = &TaskForm{Schema: raw, FormKey: t.FormKey}
	case t.FormKey != "":
		tv.Form = &TaskForm{FormKey: t.FormKey}
	}
	return tv
}

// getTask is GET /api/v1/tasks/:id: the task, its form, the actions the
// acting user may take and its history.
func (s *Service) getTask(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.tasks.View(ctx, ActorOf(c).Task(), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(viewOfTask(v))
}

type claimBody struct {
	Assignee string `json:"assignee"` // claim for someone else: a delegation (operators)
}

// ClaimTask is POST /api/v1/tasks/:id/claim: assigns the task to the acting
// user. Naming another assignee delegates it (see tasks.Service.Delegate).
func (s *Service) ClaimTask(c *fiber.Ctx) error {
	var b claimBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	a := ActorOf(c).Task()
	if b.Assignee != "" && b.Assignee != a.Name {
		return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
			return s.tasks.Delegate(ctx, a, c.Params("id"), b.Assignee)
		})
	}
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) { return s.tasks.Claim(ctx, a, c.Params("id")) })
}

// ReleaseTask is POST /api/v1/tasks/:id/release.
func (s *Service) ReleaseTask(c *fiber.Ctx) error {
	a := ActorOf(c).Task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) { return s.tasks.Release(ctx, a, c.Params("id")) })
}

type delegateBody struct {
	Assignee string `json:"assignee"`
}

// DelegateTask is POST /api/v1/tasks/:id/delegate {"assignee"}.
func (s *Service) DelegateTask(c *fiber.Ctx) error {
	var b delegateBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	a := ActorOf(c).Task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
		return s.tasks.Delegate(ctx, a, c.Params("id"), b.Assignee)
	})
}

type completeBody struct {
	Variables map[string]any `json:"variables"`
}

// CompleteTask is POST /api/v1/tasks/:id/complete {"variables"}; see the
// claim policy in package tasks.
func (s *Service) CompleteTask(c *fiber.Ctx) error {
	var b completeBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	a := ActorOf(c).Task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
		return s.tasks.Complete(ctx, a, c.Params("id"), b.Variables)
	})
}

type commentBody struct {
	Text string `json:"text"`
}

// CommentTask is POST /api/v1/tasks/:id/comments {"text"}.
func (s *Service) CommentTask(c *fiber.Ctx) error {
	var b commentBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	a := ActorOf(c).Task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) {
		return s.tasks.Comment(ctx, a, c.Params("id"), b.Text)
	})
}

// taskAction runs one task action with the request's deadline and answers
// the task as it is afterwards.
func (s *Service) taskAction(c *fiber.Ctx, do func(ctx context.Context) (engine.Task, error)) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	t, err := do(ctx)
	if err != nil {
		return err
	}
	return c.JSON(t)
}
