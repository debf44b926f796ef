package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/server/cluster"
	"github.com/workflowpp/wfpp/server/identity"
)

// twoReplicas starts replicas a and b, which know each other from their
// heartbeats in a lease store, and a third, c, whose heartbeat is older
// than the lease TTL and whose address answers nothing: asking it would
// fail the calls. Each replica's engine has a store of its own.
func twoReplicas(t *testing.T, secret string) (a, b *replica) {
	t.Helper()
	leases := memstore.New()
	lnA, lnB := listen(t), listen(t)
	gone := listen(t)
	now := time.Now()
	for _, r := range []engine.Replica{
		{ID: "a", Address: lnA.Addr().String(), Heartbeat: now.Add(time.Hour)},
		{ID: "b", Address: lnB.Addr().String(), Heartbeat: now.Add(time.Hour)},
		{ID: "c", Address: gone.Addr().String(), Heartbeat: now.Add(-time.Minute)},
	} {
		require.NoError(t, leases.Heartbeat(context.Background(), r))
	}
	require.NoError(t, gone.Close())
	return startReplica(t, "a", lnA, leases, secret, nil), startReplica(t, "b", lnB, leases, secret, nil)
}

func (r *replica) deploy(t *testing.T, path string) {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	_, _, err = r.eng.Deploy(context.Background(), engine.DeployRequest{Source: src})
	require.NoError(t, err)
}

func (r *replica) start(t *testing.T, key string, vars map[string]any) string {
	t.Helper()
	snap, _, err := r.eng.Start(context.Background(), engine.StartRequest{Definition: key, Variables: vars})
	require.NoError(t, err)
	return snap.ID
}

func (r *replica) waitStatus(t *testing.T, id string, want engine.Status) {
	t.Helper()
	require.Eventually(t, func() bool {
		snap, err := r.eng.Instance(context.Background(), id)
		return err == nil && snap.Status == want
	}, 10*time.Second, 5*time.Millisecond)
}

// waitSubscribed waits until instance id waits for a message or signal.
func (r *replica) waitSubscribed(t *testing.T, id string) {
	t.Helper()
	require.Eventually(t, func() bool {
		snap, err := r.eng.Instance(context.Background(), id)
		return err == nil && len(snap.Subscriptions) > 0
	}, 10*time.Second, 5*time.Millisecond)
}

// TestPeersCorrelateAndSignal: a message and a signal sent to replica a
// reach the instance that waits on replica b (its CorrelateHere and
// SignalHere over the internal routes); the replica whose heartbeat is
// stale is not asked.
func TestPeersCorrelateAndSignal(t *testing.T) {
	t.Parallel()
	a, b := twoReplicas(t, "s3cret")
	b.deploy(t, "testdata/message_correlation.bpmn")
	b.deploy(t, "testdata/signal_catch.bpmn")
	a.deploy(t, "testdata/message_correlation.bpmn")
	onB := b.start(t, "message_correlation", map[string]any{"orderId": "o-1"})
	waiting := b.start(t, "signal_catch", nil)
	b.waitSubscribed(t, onB)

	resp, body := send(t, "http://"+a.addr+"/api/v1/messages", `{"name":"payment","correlationKey":"o-1"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.JSONEq(t, `{"correlated":1}`, string(body))
	b.waitStatus(t, onB, engine.StatusCompleted)

	resp, body = send(t, "http://"+a.addr+"/api/v1/messages", `{"name":"payment","correlationKey":"o-1"}`, nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "nobody waits any more: %s", body)

	b.waitSubscribed(t, waiting)
	resp, body = send(t, "http://"+a.addr+"/api/v1/signals", `{"name":"go"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.JSONEq(t, `{"received":1}`, string(body))
}

// TestPeersFetchAndLock: fetch-and-lock on replica a hands out a's jobs
// first, then b's for the rest, each locked once: a second fetch finds
// none.
func TestPeersFetchAndLock(t *testing.T) {
	t.Parallel()
	a, b := twoReplicas(t, "")
	a.deploy(t, "testdata/external.bpmn")
	b.deploy(t, "testdata/external.bpmn")
	onA := a.start(t, "external", nil)
	onB := []string{b.start(t, "external", nil), b.start(t, "external", nil)}
	fetch := func(max int) []engine.ExternalJob {
		t.Helper()
		var page struct{ Items []engine.ExternalJob }
		resp, body := send(t, "http://"+a.addr+"/api/v1/jobs/fetch-and-lock",
			`{"type":"ext.work","worker":"w1","max":`+strconv.Itoa(max)+`,"lockMs":60000}`, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		require.NoError(t, json.Unmarshal(body, &page))
		return page.Items
	}
	var jobs []engine.ExternalJob
	require.Eventually(t, func() bool {
		jobs = append(jobs, fetch(3-len(jobs))...)
		return len(jobs) == 3
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, onA, jobs[0].InstanceID, "this replica's jobs first")
	require.ElementsMatch(t, onB, []string{jobs[1].InstanceID, jobs[2].InstanceID})
	require.Empty(t, fetch(3), "every job is locked once")
}

// TestClusterInternalRoutesNeedSecret: with a cluster secret, the peers'
// routes refuse a call without it or with another one, even from loopback.
func TestClusterInternalRoutesNeedSecret(t *testing.T) {
	t.Parallel()
	a, _ := twoReplicas(t, "s3cret")
	for _, path := range []string{"/internal/v1/correlate", "/internal/v1/signal", "/internal/v1/fetch-and-lock", "/internal/v1/bulk"} {
		for _, secret := range []string{"", "wrong"} {
			resp, body := send(t, "http://"+a.addr+path, `{}`, map[string]string{cluster.SecretHeader: secret})
			require.Equal(t, http.StatusForbidden, resp.StatusCode, "%s with secret %q: %s", path, secret, body)
		}
		resp, body := send(t, "http://"+a.addr+path, `{}`, map[string]string{cluster.SecretHeader: "s3cret"})
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: the secret lets it in, to an empty body: %s", path, body)
	}
}

// TestClusterAPIAlone: GET /api/v1/cluster of a server that runs alone
// shows no replica and every partition held here; it and the Cluster page
// are for operators.
func TestClusterAPIAlone(t *testing.T) {
	t.Parallel()
	f := setupLive(t, func(c *server.Config) { c.Identity = identity.Config{JWTSecret: testJWTSecret} })
	getPath := func(path, who string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, "http://"+f.addr+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", who)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, b
	}
	get := func(who string) (*http.Response, []byte) { return getPath("/api/v1/cluster", who) }
	resp, body := get(operatorBearer(t))
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var v api.ClusterView
	require.NoError(t, json.Unmarshal(body, &v))
	require.Empty(t, v.Self)
	require.Empty(t, v.Replicas)
	require.Equal(t, engine.ClusterPartitionsDefault, v.Partitions)
	require.Len(t, v.Leases, engine.ClusterPartitionsDefault)
	require.Len(t, v.Held, engine.ClusterPartitionsDefault)
	for _, l := range v.Leases {
		require.True(t, l.Here, "partition %d", l.Partition)
	}
	resp, _ = get(bearerFor(t, "alice"))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "a worker")

	resp, body = getPath("/cluster", operatorBearer(t))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), `href="/cluster"`, "the nav shows the page to operators")
	resp, body = getPath("/cluster", bearerFor(t, "alice"))
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "a worker")
	require.NotContains(t, string(body), `href="/cluster"`, "the nav hides it from workers")
}

// TestClusterInternalRoutesWithoutSecret: without a cluster secret the
// peers' routes answer loopback callers, but not what a proxy on the same
// machine relays.
func TestClusterInternalRoutesWithoutSecret(t *testing.T) {
	t.Parallel()
	a, _ := twoReplicas(t, "")
	resp, body := send(t, "http://"+a.addr+"/internal/v1/signal", `{"name":"nobody-waits"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.JSONEq(t, `{"count":0}`, string(body))
	for _, h := range []string{"X-Forwarded-For", "Forwarded"} {
		resp, body = send(t, "http://"+a.addr+"/internal/v1/signal", `{"name":"nobody-waits"}`, map[string]string{h: "for=203.0.113.9"})
		require.Equal(t, http.StatusForbidden, resp.StatusCode, "relayed with %s: %s", h, body)
	}
}
