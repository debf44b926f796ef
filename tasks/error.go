package tasks

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/workflowpp/wfpp/engine"
)

// Error is a refused task action, with the HTTP status and code that REST
// and pages both answer.
type Error struct {
	Status  int
	Code    string
	Message string
	Details any // per-field problems for invalid form values
}

func (e *Error) Error() string { return e.Message }

func notFound(id string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "not_found", Message: fmt.Sprintf("task %s: not found", id)}
}

func forbidden(format string, args ...any) *Error {
	return &Error{Status: http.StatusForbidden, Code: "forbidden", Message: fmt.Sprintf(format, args...)}
}

func claimedBy(id, holder string) *Error {
	return &Error{
		Status: http.StatusConflict, Code: "task_claimed",
		Message: fmt.Sprintf("task %s is assigned to %q: they, or an operator who delegates it, must act on it", id, holder),
	}
}

func notOpen(t Task) *Error {
	return &Error{
		Status: http.StatusConflict, Code: "task_not_open",
		Message: fmt.Sprintf("task %s is %s: only open tasks change", t.ID, t.Status),
	}
}

func paused(t Task) *Error {
	return &Error{
		Status: http.StatusConflict, Code: "instance_paused",
		Message: fmt.Sprintf("task %s: instance %s is paused: an operator must resume it first", t.ID, t.InstanceID),
	}
}

// fromEngine turns what the applier refused into the same answers the
// checks before it give, so a lost race reads like a refused check.
func fromEngine(t Task, err error) error {
	var held *engine.AssigneeError
	var denied *engine.ListenerDeniedError
	switch {
	case errors.As(err, &denied):
		code := "assignment_denied"
		if denied.Event == "complete" {
			code = "completion_denied"
		}
		return &Error{Status: http.StatusConflict, Code: code, Message: denied.Message}
	case errors.As(err, &held) && held.Assignee != "":
		return claimedBy(t.ID, held.Assignee)
	case errors.As(err, &held):
		return &Error{
			Status: http.StatusConflict, Code: "task_released",
			Message: fmt.Sprintf("task %s was released meanwhile: claim it again", t.ID),
		}
	case errors.Is(err, engine.ErrTaskPending):
		return &Error{
			Status: http.StatusConflict, Code: "task_pending",
			Message: fmt.Sprintf("task %s waits for its listener jobs to finish: try again in a moment", t.ID),
		}
	case errors.Is(err, engine.ErrInstancePaused):
		return paused(t)
	case errors.Is(err, engine.ErrTaskNotOpen), errors.Is(err, engine.ErrInstanceEnded):
		return &Error{Status: http.StatusConflict, Code: "task_not_open", Message: fmt.Sprintf("task %s is no longer open", t.ID)}
	}
	return err
}
