package page

import (
	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
)

// task is GET /ui/tasks/:id: the task the inbox opens, with the actions
// the user may take, its history and the instance's variables for the form.
func (s *Service) task(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	v, err := s.tasks.View(ctx, api.ActorOf(c).Task(), c.Params("id"))
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
