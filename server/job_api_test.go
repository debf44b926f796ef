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
	Definition string     `json:"definition"`
	ElementID  string     `json:"elementId"`
	Resolved   *time.Time `json:"resolvedAt"`
	Resolution string     `json:"resolution"`
}

type deadLetter struct {
	ID         string     `json:"id"`
	InstanceID string     `json:"instanceId"`
	Definition string     `json:"definition"`
	IncidentID string     `json:"incidentId"`
	JobType    string     `json:"jobType"`
	LastError  string     `json:"lastError"`
	Status     string     `json:"status"`
	Settled    *time.Time `json:"settledAt"`
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

	// its dead letter followed the incident and the job: listed as replayed, no second replay
	var firstDL deadLetter
	resp = f.json(http.MethodGet, "/api/v1/dead-letters/"+firstInc.ID, nil, &firstDL)
	require.Equal(t, http.StatusOK, resp.StatusCode, "a job incident's dead letter has its id")
	require.Equal(t, "replayed", firstDL.Status)
	require.NotNil(t, firstDL.Settled)
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/dead-letters/"+firstDL.ID+"/replay", nil, nil), http.StatusConflict, "dead_letter_settled")

	// the second's letter is open: it cannot be deleted out of step with its incident
	requireEnvelope(t, f.json(http.MethodDelete, "/api/v1/dead-letters/"+secondDL.ID, nil, nil), http.StatusConflict, "dead_letter_open")
	// replaying it resolves the incident: the job runs again, the letter stays as replayed
	var replay struct {
		Replayed   bool       `json:"replayed"`
		DeadLetter deadLetter `json:"deadLetter"`
	}
	resp = f.json(http.MethodPost, "/api/v1/dead-letters/"+secondDL.ID+"/replay", nil, &replay)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, replay.Replayed)
	require.Equal(t, "replaying", replay.DeadLetter.Status, "replaying until its job ends")
	var inc incident
	f.json(http.MethodGet, "/api/v1/incidents?instance="+second, nil, &incs)
	require.Len(t, incs.Items, 1)
	inc = incs.Items[0]
	require.NotNil(t, inc.Resolved, "replaying the letter resolved its incident")
	require.Equal(t, "resolved", inc.Resolution)
	j = f.fetch(second, "w1")
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/complete", map[string]any{"worker": "w1"}, nil).StatusCode)
	f.waitStatus(second, "completed")

	f.json(http.MethodGet, "/api/v1/incidents?open=true", nil, &incs)
	require.Empty(t, incs.Items)
	dls.Items = nil
	f.json(http.MethodGet, "/api/v1/dead-letters?status=open", nil, &dls)
	require.Empty(t, dls.Items)
	f.json(http.MethodGet, "/api/v1/dead-letters?status=replayed", nil, &dls)
	require.Len(t, dls.Items, 2, "settled letters stay listed")
	// settled letters may be deleted
	require.Equal(t, http.StatusNoContent, f.json(http.MethodDelete, "/api/v1/dead-letters/"+firstDL.ID, nil, nil).StatusCode)
	requireEnvelope(t, f.json(http.MethodDelete, "/api/v1/dead-letters/"+firstDL.ID, nil, nil), http.StatusNotFound, "not_found")

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
		{http.MethodGet, "/api/v1/dead-letters?status=gone", http.StatusBadRequest, "invalid_input"},
		{http.MethodPost, "/api/v1/incidents/retry", http.StatusBadRequest, "invalid_input"}, // body below
	} {
		if tc.path == "/api/v1/incidents/retry" {
			requireEnvelope(t, f.json(tc.method, tc.path, map[string]any{"jobType": "x"}, nil), tc.status, tc.code)
			continue
		}
		requireEnvelope(t, f.json(tc.method, tc.path, nil, nil), tc.status, tc.code)
	}
}

// TestBulkRetryAndReplay: bulk operations select by filter, count first with
// dryRun, and keep incidents and dead letters in step; a cancelled
// instance's letter is settled as cancelled.
func TestBulkRetryAndReplay(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/external.bpmn")
	ids := []string{f.failToIncident(), f.failToIncident(), f.failToIncident(), f.failToIncident()}

	var res struct {
		DryRun  bool `json:"dryRun"`
		Matched int  `json:"matched"`
		Done    int  `json:"done"`
		Failed  []struct{ ID, Code, Error string }
	}
	resp := f.json(http.MethodPost, "/api/v1/dead-letters/replay", map[string]any{"definition": "external", "dryRun": true}, &res)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, 4, res.Matched)
	require.Zero(t, res.Done)
	f.json(http.MethodPost, "/api/v1/dead-letters/replay", map[string]any{"definition": "other", "dryRun": true}, &res)
	require.Zero(t, res.Matched)

	// cancelling an instance settles its letter as cancelled
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/instances/"+ids[0]+"/cancel", nil, nil).StatusCode)
	var dl deadLetter
	var dls struct{ Items []deadLetter }
	f.json(http.MethodGet, "/api/v1/dead-letters?instance="+ids[0], nil, &dls)
	require.Len(t, dls.Items, 1)
	dl = dls.Items[0]
	require.Equal(t, "cancelled", dl.Status)
	require.Equal(t, "external", dl.Definition)

	// retry the incidents of one instance through the incidents view ...
	f.json(http.MethodPost, "/api/v1/incidents/retry", map[string]any{"instance": ids[1]}, &res)
	require.Equal(t, 1, res.Matched)
	require.Equal(t, 1, res.Done)
	f.json(http.MethodGet, "/api/v1/dead-letters?instance="+ids[1], nil, &dls)
	require.Equal(t, "replaying", dls.Items[0].Status, "the dead letters view agrees: its job runs again")

	// ... and replay the rest through the dead letters view
	f.json(http.MethodPost, "/api/v1/dead-letters/replay", map[string]any{"jobType": "ext.work"}, &res)
	require.Equal(t, 2, res.Matched)
	require.Equal(t, 2, res.Done)
	require.Empty(t, res.Failed)
	var incs struct{ Items []incident }
	f.json(http.MethodGet, "/api/v1/incidents?open=true", nil, &incs)
	require.Empty(t, incs.Items, "the incidents view agrees")
	f.json(http.MethodPost, "/api/v1/dead-letters/replay", map[string]any{"dryRun": true}, &res)
	require.Zero(t, res.Matched, "nothing open is left")

	f.json(http.MethodGet, "/api/v1/incidents", nil, &incs)
	resolutions := map[string]int{}
	for _, i := range incs.Items {
		resolutions[i.Resolution]++
	}
	require.Equal(t, map[string]int{"resolved": 3, "cancelled": 1}, resolutions)
}
