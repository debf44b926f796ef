package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/api"
)

// bulkModel has one external job, tried once: failing it opens an incident
// and a pending dead letter.
const bulkModel = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <process id="bulk" isExecutable="true">
    <startEvent id="s"/>
    <serviceTask id="work"><extensionElements><zeebe:taskDefinition type="bulk.work" retries="1"/></extensionElements></serviceTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="work"/><sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
  </process></definitions>`

// TestReplicasBulk: two `wfpp serve` replicas share a `wfpp store serve`
// and each holds half the partitions. Jobs fail into incidents in the
// partitions of both; one bulk incident retry through r1, then one bulk
// dead-letter replay through r2, act on all of them, each item on its
// partition's owner, and answer as one server does: done is the number
// matched, nothing failed.
func TestReplicasBulk(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a store server and two wfpp serve children")
	}
	bin := buildWfpp(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	store := startStoreServer(ctx, t, bin, filepath.Join(t.TempDir(), "store"))
	rs := make([]*child, 2)
	for i := range rs {
		addr := freeAddr(t)
		r := startChild(t, bin, t.TempDir())
		r.name = fmt.Sprintf("replica r%d (%s)", i+1, addr)
		r.addr = addr
		r.env = []string{
			"WFPP_MONGO_URI=" + store.uri, fmt.Sprintf("WFPP_REPLICA_ID=r%d", i+1), "WFPP_ADVERTISE_ADDR=" + addr,
			"WFPP_LEASE_TTL=3s", "WFPP_CLUSTER_SECRET=bulk-test",
		}
		require.NoError(t, r.restart(ctx, t))
		rs[i] = r
	}
	view := waitHalves(ctx, t, rs[0])
	status, body, err := rs[0].do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", []byte(bulkModel))
	require.NoError(t, err)
	require.Containsf(t, []int{http.StatusCreated, http.StatusOK}, status, "deploying: %s", body)

	disk := failBulkJobs(ctx, t, rs, 3, "disk full")
	requireOwners(t, view, disk)
	var res struct {
		Matched, Done int
		Failed        []struct{ ID, Code, Error string }
	}
	require.NoError(t, rs[0].call(ctx, http.MethodPost, "/api/v1/incidents/retry", []byte(`{"definition":"bulk"}`), &res, http.StatusOK))
	require.Empty(t, res.Failed)
	require.Equal(t, 6, res.Matched)
	require.Equal(t, 6, res.Done)
	require.Zero(t, openBulkIncidents(ctx, t, rs[1], disk), "each incident was retried by its owner")

	quota := failBulkJobs(ctx, t, rs, 3, "quota exceeded")
	requireOwners(t, view, quota)
	require.NoError(t, rs[1].call(ctx, http.MethodPost, "/api/v1/dead-letters/replay", []byte(`{"error":"quota"}`), &res, http.StatusOK))
	require.Empty(t, res.Failed)
	require.Equal(t, 6, res.Matched)
	require.Equal(t, 6, res.Done)
	require.Zero(t, openBulkIncidents(ctx, t, rs[0], quota), "each letter was replayed by its owner")
}

// waitHalves waits until r sees each of the two replicas hold half the
// partitions, its fair share (no lease moves after that), and returns
// that view.
func waitHalves(ctx context.Context, t *testing.T, r *child) api.ClusterView {
	t.Helper()
	for attempt := 0; ; attempt++ {
		var v api.ClusterView
		require.NoError(t, r.call(ctx, http.MethodGet, "/api/v1/cluster", nil, &v, http.StatusOK))
		if len(v.Replicas) == 2 && len(v.Replicas[0].Partitions) == v.Partitions/2 && len(v.Replicas[1].Partitions) == v.Partitions/2 {
			return v
		}
		require.NoError(t, ctx.Err(), "the partitions did not spread over both replicas: %+v", v.Replicas)
		backoff(ctx, attempt)
	}
}

// requireOwners requires that the instances ids lie in partitions of both
// replicas, as view has them: what makes a bulk operation on them span
// replicas.
func requireOwners(t *testing.T, view api.ClusterView, ids []string) {
	t.Helper()
	owners := map[string]int{}
	for _, id := range ids {
		owners[view.Leases[engine.PartitionOf(id, view.Partitions)].Owner]++
	}
	require.Equal(t, map[string]int{"r1": len(ids) / 2, "r2": len(ids) / 2}, owners, "instances started on a replica land in its partitions")
}

// failBulkJobs starts n instances of bulkModel through each replica and
// fails each one's job with msg, through r1 (which fetches its peer's jobs
// and forwards their failures), until every instance has an incident.
func failBulkJobs(ctx context.Context, t *testing.T, rs []*child, n int, msg string) []string {
	t.Helper()
	var ids []string
	left := map[string]bool{}
	for _, r := range rs {
		for range n {
			var inst struct{ ID string }
			require.NoError(t, r.call(ctx, http.MethodPost, "/api/v1/instances", []byte(`{"definition":"bulk"}`), &inst, http.StatusCreated))
			ids = append(ids, inst.ID)
			left[inst.ID] = true
		}
	}
	fail, _ := json.Marshal(map[string]string{"worker": "w1", "message": msg})
	for attempt := 0; len(left) > 0; attempt++ {
		var page struct{ Items []engine.ExternalJob }
		require.NoError(t, rs[0].call(ctx, http.MethodPost, "/api/v1/jobs/fetch-and-lock",
			[]byte(`{"type":"bulk.work","worker":"w1","max":20,"lockMs":60000}`), &page, http.StatusOK))
		for _, j := range page.Items {
			if left[j.InstanceID] {
				require.NoError(t, rs[0].call(ctx, http.MethodPost, "/api/v1/jobs/"+url.PathEscape(j.Key)+"/fail", fail, nil, http.StatusOK))
				delete(left, j.InstanceID)
			}
		}
		require.NoError(t, ctx.Err(), "jobs of %d instances not fetched", len(left))
		backoff(ctx, attempt)
	}
	for attempt := 0; openBulkIncidents(ctx, t, rs[1], ids) < len(ids); attempt++ {
		require.NoError(t, ctx.Err(), "not every instance has its incident")
		backoff(ctx, attempt)
	}
	return ids
}

// openBulkIncidents counts the open incidents of the instances ids, read
// through r.
func openBulkIncidents(ctx context.Context, t *testing.T, r *child, ids []string) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		var page struct{ Items []engine.Incident }
		require.NoError(t, r.call(ctx, http.MethodGet, "/api/v1/incidents?open=true&instance="+id, nil, &page, http.StatusOK))
		n += len(page.Items)
	}
	return n
}
