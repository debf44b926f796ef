package server_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// failWith starts an external instance and fails its only attempt with msg.
func (f *fixture) failWith(msg string) (instanceID string) {
	f.t.Helper()
	inst, _ := f.start(map[string]any{"definition": "external"})
	j := f.fetch(inst.ID, "w1")
	resp := f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/fail", map[string]any{"worker": "w1", "message": msg}, nil)
	require.Equal(f.t, http.StatusOK, resp.StatusCode)
	f.waitStatus(inst.ID, "incident")
	return inst.ID
}

type letterPage struct {
	Items []struct {
		deadLetter
		History []struct {
			Status string    `json:"status"`
			At     time.Time `json:"at"`
			By     string    `json:"by"`
		} `json:"history"`
	} `json:"items"`
}

// letters lists the dead letters a query selects and returns their ids.
func (f *fixture) letters(query string) []string {
	f.t.Helper()
	var p letterPage
	resp := f.json(http.MethodGet, "/api/v1/dead-letters?"+query, nil, &p)
	require.Equal(f.t, http.StatusOK, resp.StatusCode, query)
	ids := []string{}
	for _, d := range p.Items {
		ids = append(ids, d.ID)
	}
	return ids
}

type bulkAnswer struct {
	DryRun  bool     `json:"dryRun"`
	Matched int      `json:"matched"`
	Done    int      `json:"done"`
	IDs     []string `json:"ids"`
	Failed  []struct{ ID, Code, Error string }
}

// TestDeadLetterFilters: the list selects by error text (any case),
// creation time, status (open still names pending), definition, element
// and job type, and says what is wrong with a bad filter.
func TestDeadLetterFilters(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/external.bpmn")
	before := time.Now().UTC().Add(-time.Second).Format(time.RFC3339)
	f.failWith("disk full on /var")
	f.failWith("Disk full on /tmp")
	f.failWith("quota exceeded")

	require.Len(t, f.letters(""), 3)
	require.Len(t, f.letters("error=DISK+FULL"), 2)
	require.Len(t, f.letters("error=quota&status=pending"), 1)
	require.Len(t, f.letters("status=open"), 3, "open is pending's former name")
	require.Len(t, f.letters("status=replayed,discarded"), 0)
	require.Len(t, f.letters("definition=external&element=work&jobType=ext.work"), 3)
	require.Empty(t, f.letters("definition=other"))
	require.Empty(t, f.letters("element=other"))
	require.Empty(t, f.letters("jobType=other"))
	require.Len(t, f.letters("createdFrom="+url.QueryEscape(before)), 3)
	require.Empty(t, f.letters("createdTo="+url.QueryEscape(before)))

	for _, q := range []string{"status=gone", "createdFrom=yesterday", "kind=job"} {
		requireEnvelope(t, f.json(http.MethodGet, "/api/v1/dead-letters?"+q, nil, nil), http.StatusBadRequest, "invalid_input")
	}
}

// TestDeadLetterBulkDiscardAndPurge: a dry run counts and names what a bulk
// discard or purge would change and changes nothing; the discard settles
// the letters by who asked and leaves their incidents open; purge removes
// settled letters by age, never pending ones.
func TestDeadLetterBulkDiscardAndPurge(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/external.bpmn")
	f.failWith("disk full")
	f.failWith("disk full again")
	quota := f.failWith("quota exceeded")
	olga := map[string]string{"X-User": "olga"}

	var res bulkAnswer
	resp := f.as(olga, http.MethodPost, "/api/v1/dead-letters/discard", map[string]any{"error": "disk", "dryRun": true}, &res)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, res.DryRun)
	require.Equal(t, 2, res.Matched)
	require.Zero(t, res.Done)
	require.ElementsMatch(t, f.letters("error=disk"), res.IDs, "the dry run names them")
	require.Len(t, f.letters("status=pending"), 3, "a dry run changes nothing")

	f.as(olga, http.MethodPost, "/api/v1/dead-letters/discard", map[string]any{"error": "disk"}, &res)
	require.Equal(t, 2, res.Matched)
	require.Equal(t, 2, res.Done)
	require.Empty(t, res.Failed)
	var discarded letterPage
	f.json(http.MethodGet, "/api/v1/dead-letters?status=discarded", nil, &discarded)
	require.Len(t, discarded.Items, 2)
	for _, d := range discarded.Items {
		require.NotNil(t, d.Settled)
		require.Len(t, d.History, 2)
		require.Equal(t, "discarded", d.History[1].Status)
		require.Equal(t, "olga", d.History[1].By, "who discarded it is kept")
	}
	var incs struct{ Items []incident }
	f.json(http.MethodGet, "/api/v1/incidents?open=true", nil, &incs)
	require.Len(t, incs.Items, 3, "discarding resolves nothing")

	// replay and discard act on pending letters only
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/dead-letters/replay", map[string]any{"status": "discarded"}, nil), http.StatusBadRequest, "invalid_input")
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/dead-letters/"+discarded.Items[0].ID+"/replay", nil, nil), http.StatusConflict, "dead_letter_settled")
	requireEnvelope(t, f.json(http.MethodPost, "/api/v1/dead-letters/"+discarded.Items[0].ID+"/discard", nil, nil), http.StatusConflict, "dead_letter_settled")
	f.json(http.MethodPost, "/api/v1/dead-letters/discard", map[string]any{"error": "disk", "dryRun": true}, &res)
	require.Zero(t, res.Matched, "no pending letter left with that error")

	// purge: settled ones, by age; a dry run deletes nothing
	var purged struct {
		DryRun  bool     `json:"dryRun"`
		Matched int      `json:"matched"`
		IDs     []string `json:"ids"`
	}
	resp = f.json(http.MethodPost, "/api/v1/dead-letters/purge", map[string]any{"olderThan": "P30D", "dryRun": true}, &purged)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Zero(t, purged.Matched, "none settled a month ago")
	f.json(http.MethodPost, "/api/v1/dead-letters/purge", map[string]any{"olderThan": "0s", "dryRun": true}, &purged)
	require.Equal(t, 2, purged.Matched)
	require.Len(t, purged.IDs, 2)
	require.Len(t, f.letters(""), 3, "a dry run deletes nothing")
	for _, body := range []map[string]any{
		{},
		{"olderThan": "a month"},
		{"olderThan": "-1h"},
		{"olderThan": "0s", "status": "pending"},
		{"olderThan": "0s", "status": []string{"replayed", "replaying"}},
	} {
		requireEnvelope(t, f.json(http.MethodPost, "/api/v1/dead-letters/purge", body, nil), http.StatusBadRequest, "invalid_input")
	}
	f.json(http.MethodPost, "/api/v1/dead-letters/purge", map[string]any{"olderThan": "PT0S", "status": []string{"discarded"}}, &purged)
	require.False(t, purged.DryRun)
	require.Equal(t, 2, purged.Matched)
	left := f.letters("")
	require.Len(t, left, 1, "the pending letter stays")

	// one letter: discard, then delete it
	var one struct {
		Discarded  bool       `json:"discarded"`
		DeadLetter deadLetter `json:"deadLetter"`
	}
	resp = f.as(olga, http.MethodPost, "/api/v1/dead-letters/"+left[0]+"/discard", nil, &one)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, one.Discarded)
	require.Equal(t, "discarded", one.DeadLetter.Status)
	require.Equal(t, quota, one.DeadLetter.InstanceID)
	f.waitStatus(quota, "incident") // the instance still waits on its incident
	require.Equal(t, http.StatusNoContent, f.json(http.MethodDelete, "/api/v1/dead-letters/"+left[0], nil, nil).StatusCode)
	require.Empty(t, f.letters(""))
}

// TestDeadLetterReplayFailsAgain: a replayed letter whose job fails again
// is pending again with both errors, then replayed once the job succeeds.
func TestDeadLetterReplayFailsAgain(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.deploy("testdata/external.bpmn")
	inst := f.failWith("disk full")
	ids := f.letters("")
	require.Len(t, ids, 1)

	var res bulkAnswer
	f.json(http.MethodPost, "/api/v1/dead-letters/replay", map[string]any{"jobType": "ext.work", "error": "DISK"}, &res)
	require.Equal(t, 1, res.Done)
	require.Equal(t, []string{ids[0]}, f.letters("status=replaying"))
	j := f.fetch(inst, "w1")
	resp := f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/fail", map[string]any{"worker": "w1", "message": "still full"}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	f.waitStatus(inst, "incident")

	var d deadLetter
	f.json(http.MethodGet, "/api/v1/dead-letters/"+ids[0], nil, &d)
	require.Equal(t, "pending", d.Status)
	require.Contains(t, d.LastError, "still full")
	require.Equal(t, []string{ids[0]}, f.letters("error=disk+full"), "its first error is still searched")

	f.json(http.MethodPost, "/api/v1/dead-letters/"+ids[0]+"/replay", nil, nil)
	j = f.fetch(inst, "w1")
	require.Equal(t, http.StatusOK, f.json(http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/complete", map[string]any{"worker": "w1"}, nil).StatusCode)
	f.waitStatus(inst, "completed")
	require.Equal(t, []string{ids[0]}, f.letters("status=replayed"))
}
