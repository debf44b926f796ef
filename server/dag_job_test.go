package server_test

import (
	"net/http"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type jobWithParameters struct {
	Key        string         `json:"key"`
	InstanceID string         `json:"instanceId"`
	ElementID  string         `json:"elementId"`
	Parameters map[string]any `json:"parameters"`
}

// fetchOf polls fetch-and-lock for a job type until one of the instance
// comes back.
func (f *fixture) fetchOf(typ, instanceID string) jobWithParameters {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var p struct {
			Items []jobWithParameters `json:"items"`
		}
		resp := f.json(http.MethodPost, "/api/v1/jobs/fetch-and-lock", map[string]any{"type": typ, "worker": "w", "max": 10, "lockMs": 60_000}, &p)
		require.Equal(f.t, http.StatusOK, resp.StatusCode)
		for _, j := range p.Items {
			if j.InstanceID == instanceID {
				return j
			}
		}
		runtime.Gosched()
	}
	f.t.Fatalf("no %s job for instance %s after 10s", typ, instanceID)
	return jobWithParameters{}
}

// TestFetchAndLockRendersParameters: an external worker gets a JSON DAG
// node's parameters rendered over the read model: the trigger and what the
// nodes before gave back. A template that reads nothing fails the job
// instead (and, fail-fast, the instance).
func TestFetchAndLockRendersParameters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	resp := f.do(http.MethodPost, "/api/v1/definitions", "application/json", []byte(`{"id":"report","startNode":"fetch","nodes":[
		{"id":"fetch","actionType":"ext.fetch","parameters":{"boardId":"{{ trigger.boardId }}","url":"https://x/${boardId}"},
		 "edges":[{"targetNode":"post"}]},
		{"id":"post","actionType":"ext.post","parameters":{
		 "channelId":"{{ trigger.channelId }}","message":"Found {{ context.data['fetch'].items.length }} items."}}]}`), nil)
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	inst, resp := f.start(map[string]any{"definition": "report", "variables": map[string]any{"boardId": 42, "channelId": "C1"}})
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	fetch := f.fetchOf("ext.fetch", inst.ID)
	require.Equal(t, map[string]any{"boardId": float64(42), "url": "https://x/42"}, fetch.Parameters)
	resp = f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(fetch.Key)+"/complete",
		map[string]any{"worker": "w", "variables": map[string]any{"items": []any{"a", "b"}}}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	post := f.fetchOf("ext.post", inst.ID)
	require.Equal(t, map[string]any{"channelId": "C1", "message": "Found 2 items."}, post.Parameters)

	// Without channelId the post job cannot be rendered: it fails, and the instance with it.
	broken, _ := f.start(map[string]any{"definition": "report", "variables": map[string]any{"boardId": 7}})
	fetch = f.fetchOf("ext.fetch", broken.ID)
	f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(fetch.Key)+"/complete", map[string]any{"worker": "w", "variables": map[string]any{"items": []any{}}}, nil)
	deadline := time.Now().Add(10 * time.Second)
	for f.instanceStatus(broken.ID) != "failed" && time.Now().Before(deadline) {
		var p struct {
			Items []jobWithParameters `json:"items"`
		}
		f.json(http.MethodPost, "/api/v1/jobs/fetch-and-lock", map[string]any{"type": "ext.post", "worker": "w", "max": 10, "lockMs": 60_000}, &p)
		require.Empty(t, p.Items, "a job whose parameters do not render is not handed out")
		runtime.Gosched()
	}
	var failed map[string]any
	for _, ev := range f.waitStatus(broken.ID, "failed").History {
		if ev["type"] == "instance.failed" {
			failed, _ = ev["detail"].(map[string]any)
		}
	}
	require.Equal(t, "post", failed["elementId"])
	require.Contains(t, failed["message"], `parameter "channelId" of "post": {{ trigger.channelId }} is undefined`)
}

func (f *fixture) instanceStatus(id string) string {
	f.t.Helper()
	var inst instance
	f.json(http.MethodGet, "/api/v1/instances/"+id, nil, &inst)
	return inst.Status
}
