package server_test

import (
	"net/http"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type job struct {
	Key        string `json:"key"`
	InstanceID string `json:"instanceId"`
	ElementID  string `json:"elementId"`
	Type       string `json:"type"`
	Attempt    int    `json:"attempt"`
}

// fetch polls fetch-and-lock until a job of the instance comes back.
func (f *fixture) fetch(instanceID, worker string) job {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var p struct {
			Items []job `json:"items"`
		}
		resp := f.json(http.MethodPost, "/api/v1/jobs/fetch-and-lock", map[string]any{"type": "ext.work", "worker": worker, "max": 10, "lockMs": 60_000}, &p)
		require.Equal(f.t, http.StatusOK, resp.StatusCode)
		for _, j := range p.Items {
			if j.InstanceID == instanceID {
				return j
			}
		}
		runtime.Gosched()
	}
	f.t.Fatalf("no external job for instance %s after 10s", instanceID)
	return job{}
}

func TestExternalJobs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/external.bpmn")
	inst, _ := f.start(map[string]any{"definition": "external"})
	j := f.fetch(inst.ID, "w1")
	require.Equal(t, "work", j.ElementID)
	require.Equal(t, "ext.work", j.Type)
	key := url.PathEscape(j.Key)

	// locked by w1: another fetch does not return it
	var p struct {
		Items []job `json:"items"`
	}
	f.json(http.MethodPost, "/api/v1/jobs/fetch-and-lock", map[string]any{"type": "ext.work", "worker": "w2", "lockMs": 1000}, &p)
	require.Empty(t, p.Items)

	var ext map[string]any
	resp := f.json(http.MethodPost, "/api/v1/jobs/"+key+"/extend-lock", map[string]any{"worker": "w1", "lockMs": 120_000}, &ext)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotEmpty(t, ext["lockedUntil"])

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		code   string
	}{
		{"fetch without type", "/api/v1/jobs/fetch-and-lock", map[string]any{"worker": "w", "lockMs": 10}, http.StatusBadRequest, "invalid_input"},
		{"fetch without worker", "/api/v1/jobs/fetch-and-lock", map[string]any{"type": "t", "lockMs": 10}, http.StatusBadRequest, "invalid_input"},
		{"fetch without lock", "/api/v1/jobs/fetch-and-lock", map[string]any{"type": "t", "worker": "w"}, http.StatusBadRequest, "invalid_input"},
		{"fetch too many", "/api/v1/jobs/fetch-and-lock", map[string]any{"type": "t", "worker": "w", "lockMs": 10, "max": 1000}, http.StatusBadRequest, "invalid_input"},
		{"complete by another worker", "/api/v1/jobs/" + key + "/complete", map[string]any{"worker": "w2"}, http.StatusConflict, "conflict"},
		{"complete without worker", "/api/v1/jobs/" + key + "/complete", map[string]any{}, http.StatusBadRequest, "invalid_input"},
		{"fail without message", "/api/v1/jobs/" + key + "/fail", map[string]any{"worker": "w1"}, http.StatusBadRequest, "invalid_input"},
		{"fail with negative retry", "/api/v1/jobs/" + key + "/fail", map[string]any{"worker": "w1", "message": "x", "retryAfterMs": -1}, http.StatusBadRequest, "invalid_input"},
		{"extend by another worker", "/api/v1/jobs/" + key + "/extend-lock", map[string]any{"worker": "w2", "lockMs": 10}, http.StatusConflict, "conflict"},
		{"extend without lock", "/api/v1/jobs/" + key + "/extend-lock", map[string]any{"worker": "w1"}, http.StatusBadRequest, "invalid_input"},
		{"complete unknown job", "/api/v1/jobs/nope:1/complete", map[string]any{"worker": "w1"}, http.StatusNotFound, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireEnvelope(t, f.json(http.MethodPost, tc.path, tc.body, nil), tc.status, tc.code)
		})
	}

	resp = f.json(http.MethodPost, "/api/v1/jobs/"+key+"/complete", map[string]any{"worker": "w1", "variables": map[string]any{"result": 42}}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	final := f.waitStatus(inst.ID, "completed")
	require.Equal(t, 42.0, final.Variables["result"])
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/jobs/"+key+"/complete", map[string]any{"worker": "w1"}, nil), http.StatusNotFound, "not_found")
}

type incident struct {
	ID         string     `json:"id"`
	InstanceID string     `json:"instanceId"`
	ElementID  string     `json:"elementId"`
	Resolved   *time.Time `json:"resolvedAt"`
}

type deadLetter struct {
	ID         string `json:"id"`
	InstanceID string `json:"instanceId"`
	IncidentID string `json:"incidentId"`
	JobType    string `json:"jobType"`
	LastError  string `json:"lastError"`
}

// failToIncident starts an external instance and fails its only attempt.
func (f *fixture) failToIncident() (instanceID string) {
	f.t.Helper()
	inst, _ := f.start(map[string]any{"definition": "external"})
	j := f.fetch(inst.ID, "w1")
	resp := f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/fail", map[string]any{"worker": "w1", "message": "disk full"}, nil)
	require.Equal(f.t, http.StatusOK, resp.StatusCode)
	f.waitStatus(inst.ID, "incident")
	return inst.ID
}

func TestIncidentsAndDeadLetters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/external.bpmn")
	first := f.failToIncident()
	second := f.failToIncident()

	var incs struct {
		Items []incident `json:"items"`
		Next  string     `json:"next"`
	}
	f.json(http.MethodGet, "/api/v1/incidents?open=true", nil, &incs)
	require.Len(t, incs.Items, 2)
	f.json(http.MethodGet, "/api/v1/incidents?open=true&instance="+first, nil, &incs)
	require.Len(t, incs.Items, 1)
	firstInc := incs.Items[0]
	require.Equal(t, "work", firstInc.ElementID)
	f.json(http.MethodGet, "/api/v1/incidents?limit=1", nil, &incs)
	require.Len(t, incs.Items, 1)
	require.NotEmpty(t, incs.Next)

	var dls struct {
		Items []deadLetter `json:"items"`
		Next  string       `json:"next"`
	}
	f.json(http.MethodGet, "/api/v1/dead-letters", nil, &dls)
	require.Len(t, dls.Items, 2)
	var secondDL deadLetter
	for _, d := range dls.Items {
		if d.InstanceID == second {
			secondDL = d
		}
	}
	require.Equal(t, "ext.work", secondDL.JobType)
	require.Contains(t, secondDL.LastError, "disk full")
	var one deadLetter
	resp := f.json(http.MethodGet, "/api/v1/dead-letters/"+secondDL.ID, nil, &one)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, secondDL, one)

	// resolve the first instance's incident: the job runs again
	resp = f.json(http.MethodPost, "/api/v1/incidents/"+firstInc.ID+"/resolve", map[string]any{"variables": map[string]any{"fixed": true}}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/incidents/"+firstInc.ID+"/resolve", nil, nil), http.StatusConflict, "incident_resolved")
	j := f.fetch(first, "w1")
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/complete", map[string]any{"worker": "w1"}, nil).StatusCode)
	f.waitStatus(first, "completed")

	// its dead letter cannot be replayed any more: the incident is closed
	for _, d := range dls.Items {
		if d.InstanceID == first {
			requireEnvelope(t, f.json(http.MethodPost, "/api/v1/dead-letters/"+d.ID+"/replay", nil, nil), http.StatusConflict, "incident_resolved")
			resp = f.json(http.MethodDelete, "/api/v1/dead-letters/"+d.ID, nil, nil)
			require.Equal(t, http.StatusNoContent, resp.StatusCode)
			requireEnvelope(t, f.json(http.MethodDelete, "/api/v1/dead-letters/"+d.ID, nil, nil), http.StatusNotFound, "not_found")
		}
	}

	// replay the second's dead letter: the job runs again, the letter is gone
	var replay struct {
		Replayed bool `json:"replayed"`
	}
	resp = f.json(http.MethodPost, "/api/v1/dead-letters/"+secondDL.ID+"/replay", nil, &replay)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, replay.Replayed)
	requireEnvelope(t, f.json(http.MethodGet, "/api/v1/dead-letters/"+secondDL.ID, nil, nil), http.StatusNotFound, "not_found")
	j = f.fetch(second, "w1")
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/complete", map[string]any{"worker": "w1"}, nil).StatusCode)
	f.waitStatus(second, "completed")

	f.json(http.MethodGet, "/api/v1/incidents?open=true", nil, &incs)
	require.Empty(t, incs.Items)
	dls.Items = nil
	f.json(http.MethodGet, "/api/v1/dead-letters", nil, &dls)
	require.Empty(t, dls.Items)

	for _, tc := range []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodPost, "/api/v1/incidents/nope/resolve", http.StatusNotFound, "not_found"},
		{http.MethodGet, "/api/v1/incidents?open=maybe", http.StatusBadRequest, "invalid_input"},
		{http.MethodGet, "/api/v1/dead-letters/nope", http.StatusNotFound, "not_found"},
		{http.MethodPost, "/api/v1/dead-letters/nope/replay", http.StatusNotFound, "not_found"},
		{http.MethodGet, "/api/v1/dead-letters?limit=x", http.StatusBadRequest, "invalid_input"},
	} {
		requireEnvelope(t, f.json(tc.method, tc.path, nil, nil), tc.status, tc.code)
	}
}
