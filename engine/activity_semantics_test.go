package engine_test

import (
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/script"
)

func TestNestedSubProcessScopes(t *testing.T) {
	t.Parallel()
	h := setup(t)
	inst := h.run("subprocess_nested", nil)

	snap := h.requireStatus(inst.ID, engine.StatusWaiting)
	require.Len(t, snap.Scopes, 2)
	outer, inner := snap.Scopes[0], snap.Scopes[1]
	require.Equal(t, "outer", outer.ElementID)
	require.Equal(t, "inner", inner.ElementID)
	require.Zero(t, outer.Parent, "outer runs in the process scope")
	require.Equal(t, outer.ID, inner.Parent, "inner runs in outer's scope")
	byElement := map[string]engine.TokenState{}
	for _, tok := range snap.Tokens {
		byElement[tok.ElementID] = tok
	}
	require.Len(t, byElement, 3)
	require.Equal(t, inner.ID, byElement["inner_task"].Scope)
	require.Equal(t, engine.TokenScope, byElement["inner"].Status)
	require.Equal(t, outer.ID, byElement["inner"].Scope)
	require.Equal(t, engine.TokenScope, byElement["outer"].Status)
	require.Zero(t, byElement["outer"].Scope)

	h.complete(inst.ID, "inner_task", nil)

	snap = h.requireStatus(inst.ID, engine.StatusCompleted)
	require.Empty(t, snap.Scopes)
	require.Equal(t, []string{
		"start", "outer", "outer_start", "outer_task", "inner", "inner_start", "inner_task",
		"inner_end", "outer_end", "after", "end",
	}, h.activated(inst.ID))
	require.Equal(t, []string{
		"outer_start", "outer_task", "inner_start", "inner_task", "inner_end", "inner",
		"outer_end", "outer", "after", "end",
	}, h.elements(inst.ID, engine.EventElementCompleted)[1:])
	require.Equal(t, []string{"outer", "inner"}, h.elements(inst.ID, engine.EventSubProcessEntered))
	require.Equal(t, []string{"inner", "outer"}, h.elements(inst.ID, engine.EventSubProcessCompleted))
}

func TestTerminateEndEvent(t *testing.T) {
	t.Parallel()
	t.Run("inside a sub-process ends that scope only", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.run("terminate_subprocess", nil)

		snap := h.requireStatus(inst.ID, engine.StatusWaiting)
		require.Empty(t, snap.Scopes)
		require.Len(t, snap.Tokens, 1)
		require.Equal(t, "outer_task", snap.Tokens[0].ElementID)
		cancelled := h.tasks(inst.ID, engine.TaskCancelled)
		require.Len(t, cancelled, 1)
		require.Equal(t, "inner_task", cancelled[0].ElementID)
		h.openTask(inst.ID, "outer_task")
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, "inner_task"))
		require.Equal(t, 1, h.count(inst.ID, engine.EventSubProcessCompleted, "sp"))
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementActivated, "after_sp"))
		require.Zero(t, h.count(inst.ID, engine.EventElementActivated, "sp_end"))

		h.complete(inst.ID, "outer_task", nil)
		h.requireStatus(inst.ID, engine.StatusCompleted)
	})
	t.Run("at the top ends the instance", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.run("terminate_top", nil)

		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.Empty(t, snap.Tokens)
		require.Empty(t, snap.Subscriptions)
		require.Empty(t, h.tasks(inst.ID, engine.TaskOpen))
		cancelled := h.tasks(inst.ID, engine.TaskCancelled)
		require.Len(t, cancelled, 1)
		require.Equal(t, "review", cancelled[0].ElementID)
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, "review"))
		require.Equal(t, 1, h.count(inst.ID, engine.EventElementTerminated, "wait"))
		completed := h.eventsOf(inst.ID, engine.EventInstanceCompleted, "")
		require.Len(t, completed, 1)
		require.Equal(t, true, completed[0].Detail["terminated"])

		h.advance(2 * time.Hour)
		require.Zero(t, h.count(inst.ID, engine.EventTimerFired, ""))
		require.Zero(t, h.clock.Pending(), "no timer of the terminated instance stays armed")
	})
}

func TestUserTaskAssignment(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	for _, file := range []string{"user_task", "user_task_zeebe"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			inst := h.run(file, map[string]any{
				"owner": "anna", "groups": []any{"sales", "ops"}, "reviewers": []any{"bob", "carol"},
				"prio": 4, "due": due.Format(time.RFC3339),
			})

			h.requireStatus(inst.ID, engine.StatusWaiting)
			task := h.openTask(inst.ID, "approve")
			require.Equal(t, "Approve order", task.Name)
			require.Equal(t, "anna", task.Assignee)
			require.Equal(t, []string{"sales", "ops"}, task.CandidateGroups)
			require.Equal(t, []string{"bob", "carol"}, task.CandidateUsers)
			require.Equal(t, 8, task.Priority)
			require.NotNil(t, task.Due)
			require.True(t, due.Equal(*task.Due), "due %v", task.Due)

			claimed, err := h.e.ClaimTask(h.ctx, task.ID, "dave")
			require.NoError(t, err)
			require.Equal(t, "dave", claimed.Assignee)
			require.Equal(t, "dave", h.task(task.ID).Assignee)
			released, err := h.e.ClaimTask(h.ctx, task.ID, "")
			require.NoError(t, err)
			require.Empty(t, released.Assignee)
			require.Empty(t, h.task(task.ID).Assignee)
			require.Equal(t, 1, h.count(inst.ID, engine.EventTaskClaimed, "approve"))
			require.Equal(t, 1, h.count(inst.ID, engine.EventTaskReleased, "approve"))

			done, err := h.e.CompleteTask(h.ctx, task.ID, "dave", map[string]any{"approved": true})
			require.NoError(t, err)
			require.Equal(t, engine.TaskCompleted, done.Status)
			_, err = h.e.CompleteTask(h.ctx, task.ID, "erin", map[string]any{"approved": false})
			require.ErrorIs(t, err, engine.ErrTaskNotOpen)
			h.idle()

			snap := h.requireStatus(inst.ID, engine.StatusCompleted)
			require.Equal(t, true, snap.Variables["approved"])
			stored := h.task(task.ID)
			require.Equal(t, engine.TaskCompleted, stored.Status)
			require.Equal(t, "dave", stored.CompletedBy)
			require.Equal(t, 1, h.count(inst.ID, engine.EventTaskDone, "approve"))
		})
	}
}

func TestIOMappings(t *testing.T) {
	t.Parallel()
	h := setup(t)
	var mu sync.Mutex
	seen := map[string]map[string]any{}
	record := func(j *engine.Job) {
		mu.Lock()
		defer mu.Unlock()
		seen[j.ElementID] = maps.Clone(j.Variables)
	}
	h.e.RegisterHandler("fee", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		record(j)
		amount, rate := toFloat(j.Variables["amount"]), toFloat(j.Variables["rate"])
		return map[string]any{"fee": amount * rate / 100, "junk": "not written back"}, nil
	}))
	h.e.RegisterHandler("tag", handlerFunc(func(_ context.Context, j *engine.Job) (map[string]any, error) {
		record(j)
		return map[string]any{"tagged": true, "feeSeen": j.Variables["feeIn"]}, nil
	}))
	inst := h.run("io_mapping", map[string]any{"order": map[string]any{"total": 250.0, "id": "o-7"}})

	snap := h.requireStatus(inst.ID, engine.StatusCompleted)
	mu.Lock()
	defer mu.Unlock()
	require.EqualValues(t, 250, seen["fee"]["amount"], "inputs are visible to the job")
	require.EqualValues(t, 10, seen["fee"]["rate"])
	require.Contains(t, seen["fee"], "order", "the job sees the instance's variables too")

	vars := snap.Variables
	for _, local := range []string{"amount", "rate", "fee", "junk", "feeIn"} {
		require.NotContains(t, vars, local, "%s must not leak into the instance", local)
	}
	order, ok := vars["order"].(map[string]any)
	require.True(t, ok, "order is %T", vars["order"])
	require.EqualValues(t, 25, order["fee"], "the output mapping writes order.fee")
	require.EqualValues(t, 250, order["total"], "the rest of order is kept")
	require.Equal(t, "o-7", order["id"])
	require.Equal(t, true, vars["tagged"], "without output mappings the whole result is merged")
	require.EqualValues(t, 25, vars["feeSeen"])
}

func TestScriptTasks(t *testing.T) {
	t.Parallel()
	t.Run("result object and result variable", func(t *testing.T) {
		t.Parallel()
		h := setup(t)
		inst := h.run("script_tasks", map[string]any{"a": 2, "b": 3})

		snap := h.requireStatus(inst.ID, engine.StatusCompleted)
		require.EqualValues(t, 5, snap.Variables["sum"])
		require.Equal(t, "sum=5", snap.Variables["label"])
		require.EqualValues(t, 10, snap.Variables["doubled"])
		require.Equal(t, []string{"start", "totals", "double", "end"}, h.activated(inst.ID))
	})
	t.Run("endless script times out", func(t *testing.T) {
		t.Parallel()
		h := setup(t, withConfig(func(c *engine.Config) {
			// Time, not memory, is what this case is about: the memory budget
			// is measured on the heap this test process shares with others.
			c.Script = script.Config{ScriptTimeout: 100 * time.Millisecond, MaxMemory: 1 << 40}
		}))
		inst := h.run("script_endless", nil)

		h.requireStatus(inst.ID, engine.StatusIncident)
		incs := h.openIncidents(inst.ID)
		require.Len(t, incs, 1)
		require.Equal(t, "spin", incs[0].ElementID)
		require.Equal(t, "job", incs[0].Kind)
		require.Contains(t, incs[0].Message, "time budget exceeded")
		require.Zero(t, h.count(inst.ID, engine.EventJobRetrying, ""), "wf:retries=0")
	})
}

func toFloat(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return -1
}

// TestHungryScriptIncident: a script that keeps doubling an array ends as an
// incident saying it exceeded its memory budget (a doubling string ends at
// MaxStringLen first: package script's TestSizeLimits). Not parallel: the budget is
// measured on the process heap, which other tests' scripts share.
func TestHungryScriptIncident(t *testing.T) {
	h := setup(t, withConfig(func(c *engine.Config) {
		c.Script = script.Config{ScriptTimeout: time.Minute} // memory, not time, stops it
	}))
	inst := h.run("script_hungry", nil)

	h.requireStatus(inst.ID, engine.StatusIncident)
	incs := h.openIncidents(inst.ID)
	require.Len(t, incs, 1)
	require.Equal(t, "spin", incs[0].ElementID)
	require.Contains(t, incs[0].Message, "memory budget exceeded")
}

// TestImmediateBackoffAndDoNotRetryOn: wf:backoff="immediate" retries at
// once (no timer to wait for); a code listed in wf:doNotRetryOn is never
// retried, whatever retries are left.
func TestImmediateBackoffAndDoNotRetryOn(t *testing.T) {
	t.Parallel()
	h := setup(t)
	var calls atomic.Int32
	h.e.RegisterHandler("flaky", engine.HandlerFunc(func(_ context.Context, job *engine.Job) (map[string]any, error) {
		n := calls.Add(1)
		if job.Variables["code"] == "BAD" {
			return nil, &engine.CodedError{Code: "BAD", Err: errors.New("refused")}
		}
		if n < 3 {
			return nil, errors.New("try again")
		}
		return map[string]any{"done": true}, nil
	}))
	h.deploySource(callBPMN(`<process id="p" isExecutable="true" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
    <startEvent id="s"/><serviceTask id="work" wf:type="flaky" wf:retries="5" wf:backoff="immediate" wf:doNotRetryOn="BAD"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process>`))
	inst := h.start("p", nil)
	h.idle()
	snap := h.requireStatus(inst.ID, engine.StatusCompleted) // the clock never moved: the retries waited for nothing
	require.Equal(t, true, snap.Variables["done"])
	require.EqualValues(t, 3, calls.Load())

	calls.Store(0)
	bad := h.start("p", map[string]any{"code": "BAD"})
	h.idle()
	h.requireStatus(bad.ID, engine.StatusIncident)
	require.EqualValues(t, 1, calls.Load(), "BAD is never retried")
}
