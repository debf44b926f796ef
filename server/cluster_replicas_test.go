package server_test

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server/api"
)

// TestClusterReplicasAnswerForEachOther: two replicas in cluster mode on one
// store share its partitions; a command sent to the replica that does not
// hold the instance is forwarded to the one that does and answered as
// there, a message without instance id reaches the other replica's
// instance through the peers, so does a fetch-and-lock for its job, and GET /api/v1/cluster shows both replicas
// live with the partitions each holds.
func TestClusterReplicasAnswerForEachOther(t *testing.T) {
	t.Parallel()
	shared := memstore.New()
	a, b := spreadReplicas(t, shared)
	ctx := context.Background()

	a.deploy(t, "testdata/message_correlation.bpmn")
	byID := a.start(t, "message_correlation", map[string]any{"orderId": "o-1"})
	byKey := a.start(t, "message_correlation", map[string]any{"orderId": "o-2"})
	a.waitSubscribed(t, byID)
	a.waitSubscribed(t, byKey)
	waiting := 0
	for _, l := range b.cluster(t).Leases {
		require.True(t, l.Unfinished == 0 || l.Owner == "a", "partition %d: only a's instances wait", l.Partition)
		waiting += l.Unfinished
	}
	require.Equal(t, 2, waiting, "the cluster view counts the instances that wait")

	// b holds neither instance: the message for one by id is forwarded to a.
	_, err := b.eng.CorrelateHere(ctx, engine.Message{Name: "payment", CorrelationKey: "o-1", InstanceID: byID})
	var notOwner *engine.NotOwnerError
	require.ErrorAs(t, err, &notOwner, "b does not hold the instance")
	resp, body := send(t, "http://"+b.addr+"/api/v1/messages", `{"name":"payment","correlationKey":"o-1","instanceId":"`+byID+`"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.JSONEq(t, `{"correlated":1}`, string(body))
	a.waitStatus(t, byID, engine.StatusCompleted)

	// Without instance id, b asks its peers.
	resp, body = send(t, "http://"+b.addr+"/api/v1/messages", `{"name":"payment","correlationKey":"o-2"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.JSONEq(t, `{"correlated":1}`, string(body))
	a.waitStatus(t, byKey, engine.StatusCompleted)

	// A command b forwards is answered as a answers it: a's 409 for an
	// instance that ended.
	resp, body = send(t, "http://"+b.addr+"/api/v1/instances/"+byID+"/cancel", ``, nil)
	require.Equal(t, http.StatusConflict, resp.StatusCode, string(body))

	// a's external job: fetched through b from its peer, completed through
	// b by forwarding.
	a.deploy(t, "testdata/external.bpmn")
	ext := a.start(t, "external", nil)
	var page struct{ Items []engine.ExternalJob }
	require.Eventually(t, func() bool {
		resp, body := send(t, "http://"+b.addr+"/api/v1/jobs/fetch-and-lock", `{"type":"ext.work","worker":"w1","max":5,"lockMs":60000}`, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		require.NoError(t, json.Unmarshal(body, &page))
		return len(page.Items) == 1
	}, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, ext, page.Items[0].InstanceID)
	resp, body = send(t, "http://"+b.addr+"/api/v1/jobs/"+url.PathEscape(page.Items[0].Key)+"/complete", `{"worker":"w1"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	a.waitStatus(t, ext, engine.StatusCompleted)

	// a's webhook, posted to b: its token names its partition, so b
	// forwards the POST to a.
	_, _, err = a.eng.Deploy(ctx, engine.DeployRequest{Source: []byte(webhookBPMN)})
	require.NoError(t, err)
	hooked := a.start(t, "hooked", nil)
	a.waitSubscribed(t, hooked)
	var hv webhookView
	resp, body = getJSON(t, "http://"+a.addr+"/api/v1/instances/"+hooked)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	require.NoError(t, json.Unmarshal(body, &hv))
	require.Len(t, hv.Webhooks, 1)
	resp, body = send(t, "http://"+b.addr+hv.Webhooks[0].URL, `{"status":"paid"}`, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	a.waitStatus(t, hooked, engine.StatusCompleted)

	v := b.cluster(t)
	require.Equal(t, "b", v.Self)
	require.Len(t, v.Replicas, 2)
	for _, r := range v.Replicas {
		require.True(t, r.Live, r.ID)
		require.Len(t, r.Partitions, 4, r.ID)
		require.Equal(t, r.ID == "b", r.Self)
		require.Equal(t, int64(250), r.EventLagMs, "%s's heartbeat says how late its live events are", r.ID)
	}
	for _, l := range v.Leases {
		require.Equal(t, slices.Contains(v.Held, l.Partition), l.Here, "partition %d", l.Partition)
		require.Equal(t, l.Here, l.Owner == "b", "partition %d", l.Partition)
		require.Contains(t, []string{"a", "b"}, l.Owner, "partition %d", l.Partition)
	}
}

// spreadReplicas starts replicas a and b in cluster mode on shared, with 8
// partitions, and waits until each holds 4. Each heartbeat says its event
// lag is 250 ms.
func spreadReplicas(t *testing.T, shared *memstore.Store) (a, b *replica) {
	t.Helper()
	return spreadReplicasAdvertising(t, shared, "")
}

// spreadReplicasAdvertising is spreadReplicas with b telling the others it
// answers at addrB (its listen address when "").
func spreadReplicasAdvertising(t *testing.T, shared *memstore.Store, addrB string) (a, b *replica) {
	t.Helper()
	lnA, lnB := listen(t), listen(t)
	inCluster := func(id, addr string) func(*engine.Config) {
		return func(c *engine.Config) {
			c.Store = shared
			c.Cluster = &engine.ClusterConfig{
				ReplicaID: id, Address: addr, Partitions: 8, LeaseTTL: 3 * time.Second,
				EventLag: func() time.Duration { return 250 * time.Millisecond },
			}
		}
	}
	a = startReplica(t, "a", lnA, shared, "", nil, inCluster("a", lnA.Addr().String()))
	b = startReplica(t, "b", lnB, shared, "", nil, inCluster("b", cmp.Or(addrB, lnB.Addr().String())))
	require.Eventually(t, func() bool {
		return len(a.cluster(t).Held) == 4 && len(b.cluster(t).Held) == 4
	}, 20*time.Second, 20*time.Millisecond, "the partitions spread over both replicas")
	return a, b
}

// cluster is GET /api/v1/cluster of r.
func (r *replica) cluster(t *testing.T) api.ClusterView {
	t.Helper()
	resp, body := getJSON(t, "http://"+r.addr+"/api/v1/cluster")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var v api.ClusterView
	require.NoError(t, json.Unmarshal(body, &v))
	return v
}

// TestClusterConcurrentCompletesOnce: fifty completions of one task, sent at
// once and spread over both replicas, are answered as one server answers
// them: exactly one 2xx and a 409 for each of the others, and the task is
// completed once.
func TestClusterConcurrentCompletesOnce(t *testing.T) {
	t.Parallel()
	shared := memstore.New()
	a, b := spreadReplicas(t, shared)

	_, _, err := a.eng.Deploy(context.Background(), engine.DeployRequest{Source: []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <process id="approve" isExecutable="true">
    <startEvent id="s"/><userTask id="ok" camunda:assignee="olga"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="ok"/><sequenceFlow id="f2" sourceRef="ok" targetRef="e"/>
  </process></definitions>`)})
	require.NoError(t, err)
	id := a.start(t, "approve", nil)
	var task engine.Task
	require.Eventually(t, func() bool {
		snap, err := shared.Instance(context.Background(), id)
		if err != nil || len(snap.Tasks) != 1 {
			return false
		}
		task = snap.Tasks[0]
		return true
	}, 10*time.Second, 5*time.Millisecond, "the task opens")

	const callers = 50
	statuses := make([]int, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			via := []*replica{a, b}[i%2]
			resp, _ := send(t, "http://"+via.addr+"/api/v1/tasks/"+url.PathEscape(task.ID)+"/complete", `{"variables":{"by":`+strconv.Itoa(i)+`}}`, nil)
			statuses[i] = resp.StatusCode
		})
	}
	wg.Wait()
	ok, conflicts := 0, 0
	for _, s := range statuses {
		switch {
		case s >= 200 && s < 300:
			ok++
		case s == http.StatusConflict:
			conflicts++
		}
	}
	require.Equal(t, 1, ok, "one completion wins: %v", statuses)
	require.Equal(t, callers-1, conflicts, "the others are told it is done: %v", statuses)
	a.waitStatus(t, id, engine.StatusCompleted)
	evs, err := shared.Events(context.Background(), id, 0, 0)
	require.NoError(t, err)
	completed := 0
	for _, ev := range evs {
		if ev.Type == engine.EventTaskDone {
			completed++
		}
	}
	require.Equal(t, 1, completed, "the task completed once")
}
