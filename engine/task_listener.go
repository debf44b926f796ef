package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/workflowpp/wfpp/engine/model"
	"github.com/workflowpp/wfpp/engine/script"
)

// ErrListenerDenied means a task listener refused an assignment or a
// completion; *ListenerDeniedError has its message for the user.
var ErrListenerDenied = errors.New("a task listener refused")

// ListenerDeniedError is a task listener's refusal, with what it said.
type ListenerDeniedError struct {
	TaskID  string
	Event   string // assignment or complete
	Message string
}

func (e *ListenerDeniedError) Error() string {
	return fmt.Sprintf("task %s: the %s listener refused: %s", e.TaskID, e.Event, e.Message)
}

func (e *ListenerDeniedError) Unwrap() error { return ErrListenerDenied }

// listenerRun is what a listener script changed.
type listenerRun struct {
	Assignee        string
	CandidateUsers  []string
	CandidateGroups []string
	Priority        int
	Denied          string
	Set             map[string]any
}

// listenerPrelude gives a Camunda 7 style API over a copy of the task: the
// script reads and changes `task` (assignee, candidateUsers,
// candidateGroups, priority; setAssignee, deny(message)), and reads and sets
// variables through `execution` (getVariable, setVariable). Throwing denies
// too, with the error's message.
const listenerPrelude = `
var __denied = null, __set = {};
var execution = {
  getVariable: function (n) { return n in __set ? __set[n] : variables[n]; },
  setVariable: function (n, v) { __set[n] = v; },
};
task.setAssignee = function (a) { task.assignee = a == null ? "" : String(a); };
task.getAssignee = function () { return task.assignee; };
task.deny = function (m) { __denied = String(m || "refused by a task listener"); };
task.getVariable = execution.getVariable;
task.setVariable = execution.setVariable;
try {
  (function () {
`

const listenerPostlude = `
  })();
} catch (e) {
  __denied = String(e && e.message ? e.message : e);
}
return { assignee: task.assignee || "", candidateUsers: task.candidateUsers || [], candidateGroups: task.candidateGroups || [],
  priority: task.priority || 0, denied: __denied, set: __set };
`

// runListeners runs the task's listeners for event in order, on a copy of
// task, and returns what they changed. A listener that throws or denies
// stops the others.
func (x *instance) runListeners(t *token, task *Task, event string, extra map[string]any) (*listenerRun, error) {
	var out *listenerRun
	for _, l := range t.node.Human.Listeners {
		if l.Event != event {
			continue
		}
		prog, err := script.CompileScript(listenerPrelude + l.Script + listenerPostlude)
		if err != nil {
			return nil, fmt.Errorf("%s listener of %q: %w", event, t.node.ID, err)
		}
		vars := x.evalVars(t)
		if len(extra) > 0 {
			vars = mergedVars(vars, extra)
		}
		cur := *task
		if out != nil {
			cur.Assignee, cur.CandidateUsers, cur.CandidateGroups, cur.Priority = out.Assignee, out.CandidateUsers, out.CandidateGroups, out.Priority
		}
		vars = mergedVars(vars, map[string]any{"task": map[string]any{
			"id": cur.ID, "name": cur.Name, "eventName": event, "assignee": cur.Assignee,
			"candidateUsers": anyList(cur.CandidateUsers), "candidateGroups": anyList(cur.CandidateGroups), "priority": cur.Priority,
		}})
		res, err := x.e.eval.RunScript(x.ctx, prog, vars)
		if err != nil { // a timeout or a budget: the listener could not decide
			return nil, &ListenerDeniedError{TaskID: task.ID, Event: event, Message: "the listener failed: " + err.Error()}
		}
		run := decodeListenerRun(res)
		if out != nil {
			for k, v := range out.Set {
				if _, ok := run.Set[k]; !ok {
					run.Set[k] = v
				}
			}
		}
		out = run
		if out.Denied != "" {
			return out, &ListenerDeniedError{TaskID: task.ID, Event: event, Message: out.Denied}
		}
	}
	return out, nil
}

// apply copies what listeners changed onto the task.
func (r *listenerRun) apply(task *Task) {
	if r == nil {
		return
	}
	task.Assignee, task.CandidateUsers, task.CandidateGroups, task.Priority = r.Assignee, r.CandidateUsers, r.CandidateGroups, r.Priority
}

func decodeListenerRun(v any) *listenerRun {
	m, _ := v.(map[string]any)
	r := &listenerRun{Set: map[string]any{}}
	r.Assignee, _ = m["assignee"].(string)
	r.Denied, _ = m["denied"].(string)
	r.CandidateUsers, r.CandidateGroups = stringList(m["candidateUsers"]), stringList(m["candidateGroups"])
	switch p := m["priority"].(type) {
	case int64:
		r.Priority = int(p)
	case float64:
		r.Priority = int(p)
	}
	if set, ok := m["set"].(map[string]any); ok {
		r.Set = set
	}
	return r
}

func stringList(v any) []string {
	out := []string{}
	list, _ := v.([]any)
	for _, e := range list {
		if s, ok := e.(string); ok && s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func mergedVars(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// listen runs the listeners of event and applies what they changed to
// task and to the instance's variables; it returns a refusal as an error.
func (x *instance) listen(t *token, task *Task, event string, extra map[string]any) (map[string]any, error) {
	if len(t.node.Human.Listeners) == 0 {
		return nil, nil
	}
	run, err := x.runListeners(t, task, event, extra)
	if err != nil || run == nil {
		return nil, err
	}
	run.apply(task)
	return run.Set, nil
}

// listenOnCreate runs the create listeners, then the assignment ones when
// the task starts assigned (as Camunda 7 does).
func (x *instance) listenOnCreate(t *token, task *Task) error {
	set, err := x.listen(t, task, model.ListenCreate, nil)
	if err == nil && task.Assignee != "" {
		var more map[string]any
		more, err = x.listen(t, task, model.ListenAssign, nil)
		set = mergedVars(set, more)
	}
	if len(set) > 0 {
		x.setVars(set)
		x.emit(EventVariablesChanged, t.node, t, map[string]any{"variables": keys(set), "by": "task listener"})
	}
	return err
}
