package tasks

import "github.com/workflowpp/wfpp/engine"

// Task is an inbox task as the engine keeps it.
type Task = engine.Task

// Action is something a person may do to a task.
type Action string

const (
	ActionClaim    Action = "claim"
	ActionRelease  Action = "release"
	ActionDelegate Action = "delegate"
	ActionComplete Action = "complete"
	ActionComment  Action = "comment"
)

// Allowed lists what a may do to t now; paused says whether t's instance is
// paused. The pages show exactly these buttons.
func Allowed(a Actor, t Task, paused bool) []Action {
	if t.Status != engine.TaskOpen || !a.Sees(t) {
		return []Action{}
	}
	var out []Action
	if !paused && t.Pending == "" { // a pending transition waits for its listener jobs
		switch {
		case t.Assignee == "":
			if a.mayClaim(t) {
				out = append(out, ActionClaim, ActionComplete)
			}
			if a.Overseer {
				out = append(out, ActionDelegate)
			}
		case a.holds(t) && a.Worker:
			out = append(out, ActionRelease, ActionDelegate, ActionComplete)
		case a.holds(t):
			out = append(out, ActionRelease, ActionDelegate)
		case a.Overseer:
			out = append(out, ActionRelease, ActionDelegate)
		}
	}
	return append(out, ActionComment)
}
