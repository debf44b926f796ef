package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// failJobs starts n instances of external on r and fails each one's only
// attempt with msg: n open incidents and pending dead letters in the
// partitions r holds.
func (r *replica) failJobs(t *testing.T, n int, msg string) []string {
	t.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	left := map[string]bool{}
	for i := range ids {
		ids[i] = r.start(t, "external", nil)
		left[ids[i]] = true
	}
	for deadline := time.Now().Add(10 * time.Second); len(left) > 0 && time.Now().Before(deadline); {
		jobs, err := r.eng.FetchAndLock(ctx, "ext.work", "w1", 10, time.Minute)
		require.NoError(t, err)
		for _, j := range jobs {
			if left[j.InstanceID] {
				require.NoError(t, r.eng.FailJob(ctx, j.Key, "w1", msg, "", 0))
				delete(left, j.InstanceID)
			}
		}
	}
	require.Empty(t, left, "their jobs were fetched and failed on %s", r.id)
	for _, id := range ids {
		r.waitStatus(t, id, engine.StatusIncident)
	}
	return ids
}

// bulkResult is the answer of a bulk route.
type bulkResult struct {
	Matched int `json:"matched"`
	Done    int `json:"done"`
	Failed  []struct{ ID, Code, Error string }
}

// bulkOn posts a bulk route to r and decodes its 200 answer.
func (r *replica) bulkOn(t *testing.T, path, body string) bulkResult {
	t.Helper()
	resp, data := send(t, "http://"+r.addr+path, body, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	var res bulkResult
	require.NoError(t, json.Unmarshal(data, &res))
	return res
}

// requireAllDone requires that n items matched and all n were done.
func (r bulkResult) requireAllDone(t *testing.T, n int) {
	t.Helper()
	require.Empty(t, r.Failed)
	require.Equal(t, n, r.Matched)
	require.Equal(t, n, r.Done)
}

// openIncidents counts the open incidents of the instances ids.
func openIncidents(t *testing.T, q engine.Queries, ids []string) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		open, err := q.Incidents(context.Background(), engine.IncidentFilter{InstanceID: id, Open: true})
		require.NoError(t, err)
		n += len(open)
	}
	return n
}

// TestClusterBulkAcrossPartitions: a bulk incident retry, a bulk
// dead-letter replay and a bulk discard sent to one replica act on the
// items of both, each on its partition's owner, and answer as one server does: every item
// done, none failed. A part a peer sends whose partition is not held
// where it arrives fails each item with a clear message (one hop only).
func TestClusterBulkAcrossPartitions(t *testing.T) {
	t.Parallel()
	shared := memstore.New()
	a, b := spreadReplicas(t, shared)
	a.deploy(t, "testdata/external.bpmn")
	failed := append(a.failJobs(t, 2, "disk full"), b.failJobs(t, 3, "disk full")...)

	res := a.bulkOn(t, "/api/v1/incidents/retry", `{"definition":"external"}`)
	res.requireAllDone(t, 5)
	require.Zero(t, openIncidents(t, shared, failed), "each incident was retried by its owner")

	quota := append(b.failJobs(t, 2, "quota exceeded"), a.failJobs(t, 2, "quota exceeded")...)
	res = b.bulkOn(t, "/api/v1/dead-letters/replay", `{"error":"quota","dryRun":true}`)
	require.Equal(t, 4, res.Matched, "a dry run counts across the cluster")
	require.Zero(t, res.Done)
	res = b.bulkOn(t, "/api/v1/dead-letters/replay", `{"error":"quota"}`)
	res.requireAllDone(t, 4)
	require.Zero(t, openIncidents(t, shared, quota), "each letter was replayed by its owner")
	for _, id := range quota {
		letters, err := shared.DeadLetters(context.Background(), engine.DeadLetterFilter{InstanceID: id})
		require.NoError(t, err)
		require.Len(t, letters, 1)
		require.Equal(t, engine.DeadLetterReplaying, letters[0].Status)
		require.Equal(t, "olga", letters[0].History[len(letters[0].History)-1].By, "who replayed it is kept on the owner")
	}

	lost := append(a.failJobs(t, 1, "lost"), b.failJobs(t, 1, "lost")...)
	res = a.bulkOn(t, "/api/v1/dead-letters/discard", `{"error":"lost"}`)
	res.requireAllDone(t, 2)
	for _, id := range lost {
		letters, err := shared.DeadLetters(context.Background(), engine.DeadLetterFilter{InstanceID: id})
		require.NoError(t, err)
		require.Len(t, letters, 1)
		require.Equal(t, engine.DeadLetterDiscarded, letters[0].Status, "each letter was discarded by its owner")
	}

	// A part sent to a replica that does not hold its items goes no
	// further: the partition moved on after the sender looked.
	onB := b.failJobs(t, 1, "moved")
	open, err := shared.Incidents(context.Background(), engine.IncidentFilter{InstanceID: onB[0], Open: true})
	require.NoError(t, err)
	require.Len(t, open, 1)
	resp, data := send(t, "http://"+a.addr+"/internal/v1/bulk",
		`{"action":"retry-incidents","from":"c","items":[{"id":"`+open[0].ID+`","instance":"`+onB[0]+`"}]}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	require.NoError(t, json.Unmarshal(data, &res))
	require.Zero(t, res.Done)
	require.Len(t, res.Failed, 1)
	require.Equal(t, open[0].ID, res.Failed[0].ID)
	require.Equal(t, "partition_moving", res.Failed[0].Code)
	require.Contains(t, res.Failed[0].Error, "replica c sent it here, to its partition's owner, but the partition moved on: try again")
	require.Equal(t, 1, openIncidents(t, shared, onB), "nothing was done to it")
}

// TestClusterBulkOwnerUnreachable: when the owner of some items does not
// answer, those items come back failed with a message saying to retry,
// the others are done, and nothing is lost: the owner retries its own
// items when asked directly.
func TestClusterBulkOwnerUnreachable(t *testing.T) {
	t.Parallel()
	shared := memstore.New()
	gone := listen(t)
	goneAddr := gone.Addr().String()
	require.NoError(t, gone.Close())
	a, b := spreadReplicasAdvertising(t, shared, goneAddr)
	a.deploy(t, "testdata/external.bpmn")
	onA := a.failJobs(t, 2, "disk full")
	onB := b.failJobs(t, 2, "disk full")

	res := a.bulkOn(t, "/api/v1/incidents/retry", `{"definition":"external"}`)
	require.Equal(t, 4, res.Matched)
	require.Equal(t, 2, res.Done)
	require.Len(t, res.Failed, 2)
	var failedIDs []string
	for _, f := range res.Failed {
		require.Equal(t, "unavailable", f.Code)
		require.Contains(t, f.Error, "sending it to its partition's owner: replica b at "+goneAddr+" did not answer")
		require.Contains(t, f.Error, "try again later")
		failedIDs = append(failedIDs, f.ID)
	}
	require.Zero(t, openIncidents(t, shared, onA))
	require.Equal(t, 2, openIncidents(t, shared, onB), "b's incidents wait, untouched")
	var onBIncidents []string
	for _, id := range onB {
		open, err := shared.Incidents(context.Background(), engine.IncidentFilter{InstanceID: id, Open: true})
		require.NoError(t, err)
		onBIncidents = append(onBIncidents, open[0].ID)
	}
	require.ElementsMatch(t, onBIncidents, failedIDs, "the failed ones are b's")

	res = b.bulkOn(t, "/api/v1/incidents/retry", `{"definition":"external"}`)
	res.requireAllDone(t, 2)
	require.Zero(t, openIncidents(t, shared, onB))
}
