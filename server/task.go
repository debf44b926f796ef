package server

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

const (
	TaskPageDefault = 50
	TaskPageMax     = 500
)

type taskPage struct {
	Items []engine.Task `json:"items"`
	Next  string        `json:"next,omitempty"`
}

// listTasks is GET /api/v1/tasks?instance=&assignee=&group=&status=&limit=&cursor=.
func (s *Server) listTasks(c *fiber.Ctx) error {
	f := engine.TaskFilter{
		InstanceID: c.Query("instance"),
		Assignee:   c.Query("assignee"),
		User:       c.Query("user"),
		Cursor:     c.Query("cursor"),
		Limit:      TaskPageDefault,
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
	if l := c.Query("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > TaskPageMax {
			return badRequest("query parameter \"limit\" is %q: use a number from 1 to %d", l, TaskPageMax)
		}
		f.Limit = n
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	items, next, err := s.eng.Store().Tasks(ctx, f)
	if err != nil {
		return err
	}
	if items == nil {
		items = []engine.Task{}
	}
	return c.JSON(taskPage{Items: items, Next: next})
}

type completeBody struct {
	Variables map[string]any `json:"variables"`
}

// completeTask is POST /api/v1/tasks/:id/complete; a task already completed
// is 409.
func (s *Server) completeTask(c *fiber.Ctx) error {
	var b completeBody
	if err := decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	task, err := s.eng.CompleteTask(ctx, c.Params("id"), c.Get("X-User"), b.Variables)
	if err != nil {
		return err
	}
	return c.JSON(task)
}
