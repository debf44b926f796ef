package engine

import (
	"fmt"
	"strconv"

	"github.com/workflowpp/wfpp/engine/model"
)

// PendingTransition is a task transition waiting for its Camunda 8 job listeners:
// the token runs their jobs one after another (through the usual job path:
// external workers or handlers, retries, incidents, recovery) and the
// transition happens when the last one completes. A job's result may carry
// corrections ({"corrections":{"assignee","candidateUsers","candidateGroups",
// "priority"}}) and, for assigning and completing, a denial
// ({"denied":true,"deniedReason":"…"}), which cancels the transition.
type PendingTransition struct {
	Event      string      `json:"event" bson:"event"`
	Index      int         `json:"index" bson:"index"` // of the event's listeners, the one running
	Type       string      `json:"type" bson:"type"`
	TaskID     string      `json:"taskId" bson:"task_id"`
	Completion *Completion `json:"completion,omitempty" bson:"completion,omitempty"`
	Assignment *Assignment `json:"assignment,omitempty" bson:"assignment,omitempty"`
	Detached   bool        `json:"-" bson:"-"`
	// Exec marks an execution listener's job (exec_listener.go): Event is
	// start or end of the token's node, and there is no task.
	Exec bool `json:"exec,omitempty" bson:"exec,omitempty"`
}

func (l *PendingTransition) headers() map[string]string {
	if l.Exec {
		return map[string]string{"eventType": l.Event, "listenerIndex": strconv.Itoa(l.Index)}
	}
	return map[string]string{"eventType": l.Event, "taskId": l.TaskID, "listenerIndex": strconv.Itoa(l.Index)}
}

// jobListeners returns the job listeners of event on n.
func jobListeners(n *model.Node, event string) []model.JobListener {
	var out []model.JobListener
	for _, l := range n.Human.JobListeners {
		if l.Event == event {
			out = append(out, l)
		}
	}
	return out
}

// awaitListeners starts the job listeners of a transition: the token waits
// on the first listener's job, the task shows the transition as pending.
// It reports false when the event has none (the caller goes on at once).
func (x *instance) awaitListeners(t *token, task *Task, l *PendingTransition) bool {
	ls := jobListeners(t.node, l.Event)
	if len(ls) == 0 {
		return false
	}
	l.Index, l.Type, l.TaskID = 0, ls[0].Type, task.ID
	t.listener = l
	task.Pending = l.Event
	x.taskChanges = append(x.taskChanges, *task)
	x.startListenerJob(t)
	return true
}

func (x *instance) startListenerJob(t *token) {
	t.status, t.attempt = TokenJob, 1
	x.emit(EventJobCreated, t.node, t, map[string]any{"type": t.listener.Type, "attempt": t.attempt, "listener": t.listener.Event})
	x.dispatch(t)
}

// listenerDone takes one listener job's result: corrections, a denial, or
// the next listener; after the last, the transition itself.
func (x *instance) listenerDone(t *token, result map[string]any) {
	l := t.listener
	if l.Exec {
		x.execJobDone(t, result)
		return
	}
	task := x.tasks[l.TaskID]
	if task == nil {
		t.listener, t.status = nil, TokenTask
		return
	}
	if c, ok := result["corrections"].(map[string]any); ok {
		correct(task, c)
	}
	if denied, _ := result["denied"].(bool); denied && (l.Event == model.ListenAssign || l.Event == model.ListenComplete) {
		reason, _ := result["deniedReason"].(string)
		t.listener, t.status, task.Pending = nil, TokenTask, ""
		x.taskChanges = append(x.taskChanges, *task)
		x.emit(EventTaskDenied, t.node, t, TaskDetail{TaskID: task.ID, Event: l.Event, Reason: reason}.detail())
		return
	}
	ls := jobListeners(t.node, l.Event)
	if l.Index+1 < len(ls) {
		l.Index++
		l.Type = ls[l.Index].Type
		x.taskChanges = append(x.taskChanges, *task)
		x.startListenerJob(t)
		return
	}
	t.listener, t.status, task.Pending = nil, TokenTask, ""
	switch l.Event {
	case model.ListenAssign:
		a := l.Assignment
		x.applyAssignment(t, task, a, task.Assignee, a.To, nil)
	case model.ListenComplete:
		x.finishCompletion(t, task, l.Completion.By, l.Completion.Variables)
	default: // created
		x.taskChanges = append(x.taskChanges, *task)
	}
}

// correct applies a listener's corrections to a task.
func correct(task *Task, c map[string]any) {
	if v, ok := c["assignee"].(string); ok {
		task.Assignee = v
	}
	if v, ok := c["candidateUsers"]; ok {
		task.CandidateUsers = stringList(v)
	}
	if v, ok := c["candidateGroups"]; ok {
		task.CandidateGroups = stringList(v)
	}
	switch p := c["priority"].(type) {
	case float64:
		task.Priority = int(p)
	case int64:
		task.Priority = int(p)
	}
}

// notifyCancelled hands the cancelling listeners their jobs; nothing waits
// for them (the task is gone when they run).
func (x *instance) notifyCancelled(t *token, task *Task) {
	for _, l := range jobListeners(t.node, model.ListenCancel) {
		x.nextID++
		j := &jobRun{
			inst: x.id, token: t.id, job: x.nextID, attempt: 1, node: t.node, defKey: x.head.DefinitionKey,
			vars: x.sharedVars(t), listener: &PendingTransition{Event: model.ListenCancel, Type: l.Type, TaskID: task.ID, Detached: true},
		}
		x.p.effects.external = append(x.p.effects.external, j)
	}
}

// ErrTaskPending means the task waits for its listeners to finish a
// transition: try again when they are done.
var ErrTaskPending = fmt.Errorf("the task waits for its listener jobs to finish: try again in a moment: %w", ErrInvalidState)
