package engine

import (
	"context"
	"errors"
	"fmt"
)

// Task command errors. The applier checks guards, so they hold however many
// callers race: a claim or completion that lost the race gets one of these.
var (
	// ErrTaskAssignee means the task's assignee is not the one the command
	// expected; *AssigneeError says who holds it.
	ErrTaskAssignee = errors.New("task is held by someone else")
	// ErrInstancePaused means the instance is paused: people's work on its
	// tasks waits until an operator resumes it.
	ErrInstancePaused = errors.New("instance is paused: an operator must resume it first")
)

// AssigneeError says who holds a task when a guarded command expected
// someone else. It unwraps to ErrTaskAssignee.
type AssigneeError struct {
	TaskID   string
	Expected string
	Assignee string // "" when nobody holds it
}

func (e *AssigneeError) Error() string {
	if e.Assignee == "" {
		return fmt.Sprintf("task %s is not assigned to anyone (expected %q)", e.TaskID, e.Expected)
	}
	return fmt.Sprintf("task %s is assigned to %q", e.TaskID, e.Assignee)
}

func (e *AssigneeError) Unwrap() error { return ErrTaskAssignee }

// AssignReason says why a task's assignee changes; it names the event.
type AssignReason string

const (
	AssignClaim    AssignReason = "claim"    // a user takes the task
	AssignRelease  AssignReason = "release"  // back to the candidates
	AssignDelegate AssignReason = "delegate" // handed to a named user
)

// Assignment changes who holds an open task. The applier compares the
// task's assignee with Expect first (compare-and-set): a claim expects "",
// a release or delegation the current holder.
type Assignment struct {
	TaskID string
	By     string // who acts
	Expect string // the assignee the task must have now
	To     string // the new assignee; "" releases
	Reason AssignReason
}

// Completion finishes an open task with the values of its form. With Guard
// set, the task must be assigned to Expect when the applier reaches it.
type Completion struct {
	TaskID    string
	By        string
	Guard     bool
	Expect    string
	Variables map[string]any
}

// Comment is a note a person leaves on a task; it stays on the task and in
// the instance's history.
type Comment struct {
	TaskID string
	By     string
	Text   string
}

// taskCommand is the payload of the task command kinds: exactly one of its
// fields is set, matching the command's kind.
type taskCommand struct {
	assign   *Assignment
	complete *Completion
	comment  *Comment
}

// Assign changes a task's assignee if it is still Expect.
func (e *Engine) Assign(ctx context.Context, a Assignment) (*Task, error) {
	return e.taskCall(ctx, a.TaskID, command{kind: cmdAssignTask, task: &taskCommand{assign: &a}})
}

// Complete finishes a task; see Completion for the guard.
func (e *Engine) Complete(ctx context.Context, c Completion) (*Task, error) {
	return e.taskCall(ctx, c.TaskID, command{kind: cmdCompleteTask, task: &taskCommand{complete: &c}})
}

// CommentOn adds a comment to an open or finished task's instance history and
// to the task.
func (e *Engine) CommentOn(ctx context.Context, c Comment) (*Task, error) {
	return e.taskCall(ctx, c.TaskID, command{kind: cmdCommentTask, task: &taskCommand{comment: &c}})
}

// CompleteTask completes an open user task as user with the form's variables,
// whoever holds it. A task completes once: a second completion gets ErrTaskNotOpen.
func (e *Engine) CompleteTask(ctx context.Context, taskID, user string, vars map[string]any) (*Task, error) {
	return e.Complete(ctx, Completion{TaskID: taskID, By: user, Variables: vars})
}

// ClaimTask assigns an open task to user, whoever holds it; an empty user
// releases it. People's claims go through Assign, which is guarded.
func (e *Engine) ClaimTask(ctx context.Context, taskID, user string) (*Task, error) {
	task, err := e.store.Task(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", taskID, err)
	}
	reason := AssignClaim
	if user == "" {
		reason = AssignRelease
	}
	return e.Assign(ctx, Assignment{TaskID: taskID, By: user, Expect: task.Assignee, To: user, Reason: reason})
}

// taskCall sends a task command to the applier of the task's instance.
func (e *Engine) taskCall(ctx context.Context, taskID string, c command) (*Task, error) {
	task, err := e.store.Task(ctx, taskID)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", taskID, err)
	}
	if task.Status != TaskOpen && c.kind != cmdCommentTask {
		return nil, fmt.Errorf("task %s is %s: %w", taskID, task.Status, ErrTaskNotOpen)
	}
	c.inst, c.taskID = task.InstanceID, taskID
	r, err := e.call(ctx, c)
	if err != nil {
		return nil, err
	}
	return r.task, nil
}
