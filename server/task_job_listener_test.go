package server_test

import (
	"net/http"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type listenerJob struct {
	Key        string            `json:"key"`
	InstanceID string            `json:"instanceId"`
	Headers    map[string]string `json:"headers"`
}

// fetchType polls fetch-and-lock until a job of the type for the instance comes back.
func (f *fixture) fetchType(typ, instanceID string) listenerJob {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var p struct {
			Items []listenerJob `json:"items"`
		}
		f.json(http.MethodPost, "/api/v1/jobs/fetch-and-lock", map[string]any{"type": typ, "worker": "w", "max": 10, "lockMs": 60_000}, &p)
		for _, j := range p.Items {
			if j.InstanceID == instanceID {
				return j
			}
		}
		runtime.Gosched()
	}
	f.t.Fatalf("no %s job for instance %s after 10s", typ, instanceID)
	return listenerJob{}
}

func (f *fixture) completeJob(j listenerJob, result map[string]any) {
	f.t.Helper()
	resp := f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/complete", map[string]any{"worker": "w", "variables": result}, nil)
	require.Less(f.t, resp.StatusCode, 300)
}

// TestTaskJobListeners: Camunda 8 task listeners run as jobs that the
// task's creation, assignment and completion wait for; their results correct
// the task or deny the transition; cancelling notifies without waiting.
func TestTaskJobListeners(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/job_listeners.bpmn")
	dora := user("dora", "directors")
	inst, _ := f.start(map[string]any{"definition": "job_listeners", "variables": map[string]any{"amount": 5000}})
	tk := f.waitTask(inst.ID)
	path := "/api/v1/tasks/" + tk.ID

	// creating: the task waits for "route", which reroutes it
	route := f.fetchType("route", inst.ID)
	require.Equal(t, "create", route.Headers["eventType"])
	requireEnvelope(t, f.as(alice, http.MethodPost, path+"/claim", nil, nil), http.StatusConflict, "task_pending")
	f.completeJob(route, map[string]any{"corrections": map[string]any{"candidateGroups": []any{"directors"}, "priority": 90}})
	var view struct {
		Assignee        string   `json:"assignee"`
		CandidateGroups []string `json:"candidateGroups"`
		Priority        int      `json:"priority"`
		Pending         string   `json:"pending"`
		History         []struct{ Type string }
	}
	require.Eventually(t, func() bool {
		f.as(admin, http.MethodGet, path, nil, &view)
		return view.Pending == "" && view.Priority == 90
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"directors"}, view.CandidateGroups)

	// assigning: denied once, then accepted
	require.Equal(t, http.StatusOK, f.as(dora, http.MethodPost, path+"/claim", nil, nil).StatusCode)
	f.completeJob(f.fetchType("check-assignee", inst.ID), map[string]any{"denied": true, "deniedReason": "dora is on leave"})
	require.Eventually(t, func() bool {
		f.as(admin, http.MethodGet, path, nil, &view)
		return view.Pending == "" && len(view.History) > 0 && view.History[len(view.History)-1].Type == "denied"
	}, 10*time.Second, 10*time.Millisecond)
	require.Empty(t, view.Assignee, "the denied claim changed nothing")
	require.Equal(t, http.StatusOK, f.as(dora, http.MethodPost, path+"/claim", nil, nil).StatusCode)
	f.completeJob(f.fetchType("check-assignee", inst.ID), map[string]any{})
	require.Eventually(t, func() bool {
		f.as(admin, http.MethodGet, path, nil, &view)
		return view.Assignee == "dora" && view.Pending == ""
	}, 10*time.Second, 10*time.Millisecond)

	// completing: waits for "audit"
	require.Equal(t, http.StatusOK, f.as(dora, http.MethodPost, path+"/complete", map[string]any{"variables": map[string]any{"approved": true}}, nil).StatusCode)
	audit := f.fetchType("audit", inst.ID)
	require.Equal(t, "complete", audit.Headers["eventType"])
	var mid instance
	f.json(http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &mid)
	require.NotEqual(t, "completed", mid.Status, "the completion waits for its listener")
	f.completeJob(audit, map[string]any{})
	done := f.waitStatus(inst.ID, "completed")
	require.Equal(t, true, done.Variables["approved"])

	// canceling: notified, nothing waits
	other, _ := f.start(map[string]any{"definition": "job_listeners"})
	f.completeJob(f.fetchType("route", other.ID), map[string]any{})
	f.waitTask(other.ID)
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/instances/"+other.ID+"/cancel", nil, nil).StatusCode)
	notify := f.fetchType("notify", other.ID)
	require.Equal(t, "delete", notify.Headers["eventType"])
	f.completeJob(notify, map[string]any{})
	var p struct {
		Items []listenerJob `json:"items"`
	}
	f.json(http.MethodPost, "/api/v1/jobs/fetch-and-lock", map[string]any{"type": "notify", "worker": "w2", "max": 10, "lockMs": 60_000}, &p)
	require.Empty(t, p.Items, "a completed notification is gone")
}
