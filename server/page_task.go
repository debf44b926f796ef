package server

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// The inbox page's task actions. They answer like the REST task routes
// (same statuses and codes): both only translate, package tasks decides.

// uiTask is GET /ui/tasks/:id: the task the inbox opens, with the actions
// the user may take, its history and the instance's variables for the form.
func (s *Server) uiTask(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.tasks.View(ctx, actorOf(c).task(), c.Params("id"))
	if err != nil {
		return err
	}
	if v.Variables == nil && v.Status == engine.TaskOpen {
		// The engine keeps no copy with the task: the form starts from the
		// instance's variables as they are now.
		if snap, err := s.eng.Instance(ctx, v.InstanceID); err == nil {
			v.Variables = snap.Variables
		}
	}
	if v.CandidateUsers == nil {
		v.CandidateUsers = []string{}
	}
	if v.CandidateGroups == nil {
		v.CandidateGroups = []string{}
	}
	return c.JSON(v)
}

func (s *Server) uiClaim(c *fiber.Ctx) error {
	a := actorOf(c).task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) { return s.tasks.Claim(ctx, a, c.Params("id")) })
}

func (s *Server) uiRelease(c *fiber.Ctx) error {
	a := actorOf(c).task()
	return s.taskAction(c, func(ctx context.Context) (engine.Task, error) { return s.tasks.Release(ctx, a, c.Params("id")) })
}

// uiDelegate is POST /ui/tasks/:id/delegate {"assignee"}.
func (s *Server) uiDelegate(c *fiber.Ctx) error { return s.delegateTask(c) }

// uiComplete is POST /ui/tasks/:id/complete {"variables"}: on an unassigned
// task it claims and completes in one action (the claim policy).
func (s *Server) uiComplete(c *fiber.Ctx) error { return s.completeTask(c) }

// uiComment is POST /ui/tasks/:id/comments {"text"}.
func (s *Server) uiComment(c *fiber.Ctx) error { return s.commentTask(c) }
