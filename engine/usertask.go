package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/workflowpp/wfpp/engine/model"
)

// createTask opens the inbox task of a user task and waits for it.
func (x *instance) createTask(t *token) {
	n := t.node
	if !x.takeInputs(t) {
		return
	}
	task, err := x.newTask(t, n)
	if err != nil {
		x.incidentAt(t, "expression", err.Error(), phaseEnter)
		return
	}
	if err := x.listenOnCreate(t, task); err != nil {
		x.incidentAt(t, "listener", err.Error(), phaseEnter)
		return
	}
	t.status, t.taskID = TokenTask, task.ID
	x.addTask(task)
	x.taskChanges = append(x.taskChanges, *task)
	x.emit(EventTaskCreated, n, t, TaskDetail{TaskID: task.ID, Assignee: task.Assignee}.detail())
	if t.outer == 0 {
		x.armBoundaries(t)
	}
	x.awaitListeners(t, task, &PendingTransition{Event: model.ListenCreate})
}

func (x *instance) newTask(t *token, n *model.Node) (*Task, error) {
	vars := x.evalVars(t)
	h := n.Human
	task := &Task{
		ID: newID(), InstanceID: x.id, DefinitionKey: x.head.DefinitionKey, ElementID: n.ID, TokenID: t.id,
		Name: n.Label(), FormKey: h.FormKey, Form: h.Form, FormID: h.FormID, FormBinding: h.FormBinding, FormVersionTag: h.FormVersionTag,
		Status: TaskOpen, Created: x.now, BusinessKey: x.head.BusinessKey,
		CandidateUsers: []string{}, CandidateGroups: []string{},
	}
	var err error
	if strings.Contains(n.Name, "${") { // a name with placeholders: "Review ${loopCounter}"
		if task.Name, err = x.evalString(vars, n.Name); err != nil {
			return nil, fmt.Errorf("name of %q: %w", n.ID, err)
		}
	}
	if task.Assignee, err = x.evalString(vars, h.Assignee); err != nil {
		return nil, fmt.Errorf("assignee of %q: %w", n.ID, err)
	}
	if task.CandidateUsers, err = x.evalList(vars, h.CandidateUsers); err != nil {
		return nil, fmt.Errorf("candidate users of %q: %w", n.ID, err)
	}
	if task.CandidateGroups, err = x.evalList(vars, h.CandidateGroups); err != nil {
		return nil, fmt.Errorf("candidate groups of %q: %w", n.ID, err)
	}
	if h.Priority != "" {
		p, err := x.evalString(vars, h.Priority)
		if err != nil {
			return nil, fmt.Errorf("priority of %q: %w", n.ID, err)
		}
		if task.Priority, err = strconv.Atoi(strings.TrimSpace(p)); err != nil {
			return nil, fmt.Errorf("priority of %q is %q: give a whole number", n.ID, p)
		}
	}
	if h.DueDate != "" {
		due, err := x.evalTime(vars, h.DueDate)
		if err != nil {
			return nil, fmt.Errorf("due date of %q: %w", n.ID, err)
		}
		task.Due = &due
	}
	if h.FollowUpDate != "" {
		at, err := x.evalTime(vars, h.FollowUpDate)
		if err != nil {
			return nil, fmt.Errorf("follow-up date of %q: %w", n.ID, err)
		}
		task.FollowUp = &at
	}
	for _, name := range h.InboxVariables {
		if v, ok := vars[name]; ok {
			if task.InboxVariables == nil {
				task.InboxVariables = map[string]any{}
			}
			task.InboxVariables[name] = v
		}
	}
	return task, nil
}

// completeTask finishes a user task with the variables its form produced,
// once its listeners agree: scripts at once, job listeners when their jobs
// complete (the task shows the completion as pending meanwhile).
func (x *instance) completeTask(id string, c *Completion) error {
	task, t, err := x.openTask(id)
	if err != nil {
		return err
	}
	if c.Guard && task.Assignee != c.Expect {
		return &AssigneeError{TaskID: id, Expected: c.Expect, Assignee: task.Assignee}
	}
	vars := c.Variables
	if len(t.node.Human.Listeners) > 0 {
		check := *task
		set, err := x.listen(t, &check, model.ListenComplete, c.Variables)
		if err != nil {
			return err // refused: nothing changed
		}
		vars = mergedVars(vars, set)
	}
	if task.Assignee == "" {
		task.Assignee = c.By // claimed and completed in one action
	}
	done := *c
	done.Variables = vars
	if x.awaitListeners(t, task, &PendingTransition{Event: model.ListenComplete, Completion: &done}) {
		return nil
	}
	x.finishCompletion(t, task, c.By, vars)
	return nil
}

// finishCompletion completes the task and moves its token on.
func (x *instance) finishCompletion(t *token, task *Task, by string, vars map[string]any) {
	now := x.now
	task.Status, task.Ended, task.CompletedBy = TaskCompleted, &now, by
	delete(x.tasks, task.ID)
	x.taskChanges = append(x.taskChanges, *task)
	x.emit(EventTaskDone, t.node, t, TaskDetail{TaskID: task.ID, By: by, Variables: vars}.detail())
	x.finishActivity(t, vars)
}

// assignTask changes who holds an open task when it is held by a.Expect
// (compare-and-set: of two racing claims the second finds the first's user).
func (x *instance) assignTask(id string, a *Assignment) error {
	task, t, err := x.openTask(id)
	if err != nil {
		return err
	}
	if task.Assignee != a.Expect {
		return &AssigneeError{TaskID: id, Expected: a.Expect, Assignee: task.Assignee}
	}
	next := *task
	next.Assignee = a.To
	set, err := x.listen(t, &next, model.ListenAssign, nil)
	if err != nil {
		return err // refused: nothing changed
	}
	task.CandidateUsers, task.CandidateGroups, task.Priority = next.CandidateUsers, next.CandidateGroups, next.Priority
	pending := *a
	pending.To = next.Assignee
	if x.awaitListeners(t, task, &PendingTransition{Event: model.ListenAssign, Assignment: &pending}) {
		return nil
	}
	x.applyAssignment(t, task, a, a.Expect, next.Assignee, set)
	return nil
}

// applyAssignment gives the task to its new assignee and records why.
func (x *instance) applyAssignment(t *token, task *Task, a *Assignment, previous, to string, set map[string]any) {
	typ := EventTaskClaimed
	switch a.Reason {
	case AssignRelease:
		typ = EventTaskReleased
	case AssignDelegate:
		typ = EventTaskDelegated
	}
	task.Assignee = to
	x.taskChanges = append(x.taskChanges, *task)
	x.emit(typ, t.node, t, TaskDetail{TaskID: task.ID, Assignee: to, By: a.By, Previous: previous}.detail())
	if len(set) > 0 {
		x.setVars(set)
		x.emit(EventVariablesChanged, t.node, t, map[string]any{"variables": keys(set), "by": "task listener"})
	}
}

// commentTask keeps a person's note on an open task and in the history.
func (x *instance) commentTask(id string, c *Comment) error {
	task, t, err := x.openTask(id)
	if err != nil {
		return err
	}
	task.Comments = append(task.Comments, TaskComment{User: c.By, Time: x.now, Text: c.Text})
	x.taskChanges = append(x.taskChanges, *task)
	x.emit(EventTaskCommented, t.node, t, TaskDetail{TaskID: task.ID, By: c.By, Text: c.Text}.detail())
	return nil
}

func (x *instance) openTask(id string) (*Task, *token, error) {
	task := x.tasks[id]
	if task == nil {
		return nil, nil, fmt.Errorf("task %s: %w", id, ErrTaskNotOpen)
	}
	t := x.token(task.TokenID)
	if t == nil || t.taskID != id {
		return nil, nil, fmt.Errorf("task %s: %w", id, ErrTaskNotOpen)
	}
	if t.listener != nil {
		return nil, nil, fmt.Errorf("task %s (%s): %w", id, t.listener.Event, ErrTaskPending)
	}
	return task, t, nil
}

// cancelTask closes the token's task without completing it.
func (x *instance) cancelTask(t *token) {
	task := x.tasks[t.taskID]
	if task == nil {
		return
	}
	_, _ = x.listen(t, task, model.ListenCancel, nil) // the task goes whatever the listener says
	x.notifyCancelled(t, task)
	t.listener = nil
	now := x.now
	task.Status, task.Ended = TaskCancelled, &now
	delete(x.tasks, task.ID)
	x.taskChanges = append(x.taskChanges, *task)
	x.emit(EventTaskCanceled, t.node, t, TaskDetail{TaskID: task.ID}.detail())
}

func (x *instance) evalTime(vars map[string]any, text string) (time.Time, error) {
	v, err := x.evalString(vars, text)
	if err != nil {
		return time.Time{}, err
	}
	return parseDateOrDuration(v, x.now)
}
