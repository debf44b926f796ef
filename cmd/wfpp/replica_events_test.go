package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine/cache/redistest"
	"github.com/workflowpp/wfpp/engine/store/embedded"
)

// TestServeReplicasShareEvents: two wfpp serve processes on one MongoDB
// store and one Redis; a WebSocket client of the second sees every event of
// an instance the first runs, in order, up to its completion; with Redis
// stopped, /health/ready says degraded and the events still come, from the
// store's log.
func TestServeReplicasShareEvents(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	redis := redistest.Start(t)
	db, err := embedded.Start(ctx, embedded.Config{DataDir: t.TempDir(), Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close(context.Background())) })
	bin := buildWfpp(t)
	var replicas []*child
	for range 2 {
		r := startChild(t, bin, t.TempDir())
		r.addr = freeAddr(t) // a replica tells the others where it answers
		r.env = []string{"WFPP_REDIS_URL=" + redis.URL(), "WFPP_MONGO_URI=" + db.URI(), "WFPP_MONGO_DB=replicas", "WFPP_ADVERTISE_ADDR=" + r.addr}
		require.NoError(t, r.restart(ctx, t))
		defer r.stop(t)
		replicas = append(replicas, r)
	}
	a, b := replicas[0], replicas[1]

	status, body, err := a.do(ctx, http.MethodPost, "/api/v1/definitions", "application/xml", []byte(`<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="fanned" isExecutable="true">
    <startEvent id="start"/>
    <scriptTask id="work" scriptFormat="javascript"><script>return {done: true}</script></scriptTask>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
  </process>
</definitions>`))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, status, "%s", body)

	ws, resp, err := websocket.DefaultDialer.DialContext(ctx, "ws"+strings.TrimPrefix(b.base, "http")+"/ws", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	defer ws.Close()
	require.NoError(t, ws.WriteJSON(map[string]any{"type": "subscribe", "definition": "fanned"}))
	var msg struct {
		Type  string `json:"type"`
		Event *struct {
			InstanceID string `json:"instanceId"`
			Seq        uint64 `json:"seq"`
			Type       string `json:"type"`
		} `json:"event"`
	}
	require.NoError(t, ws.SetReadDeadline(time.Now().Add(30*time.Second)))
	require.NoError(t, ws.ReadJSON(&msg))
	require.Equal(t, "subscribed", msg.Type)

	// follow starts an instance on a and returns the sequences of its
	// events b's client got, up to its completion, and its log's.
	follow := func() (got, want []uint64) {
		var inst struct{ ID string }
		require.NoError(t, a.call(ctx, http.MethodPost, "/api/v1/instances", []byte(`{"definition":"fanned"}`), &inst, http.StatusCreated))
		require.NoError(t, ws.SetReadDeadline(time.Now().Add(30*time.Second)))
		for {
			require.NoError(t, ws.ReadJSON(&msg), "events so far: %v", got)
			require.Equal(t, "event", msg.Type)
			require.Equal(t, inst.ID, msg.Event.InstanceID)
			got = append(got, msg.Event.Seq)
			if msg.Event.Type == "instance.completed" {
				break
			}
		}
		var snap struct{ Seq uint64 }
		require.NoError(t, b.call(ctx, http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &snap, http.StatusOK))
		for i := range snap.Seq {
			want = append(want, i+1)
		}
		return got, want
	}
	got, want := follow()
	require.Equal(t, want, got, "every event of the log once, in order")

	// Redis down: both replicas say degraded, and b's client still gets
	// a's events, from the store's log.
	redis.Stop()
	for _, r := range replicas {
		require.Eventually(t, func() bool {
			var ready struct{ Status string }
			return r.call(ctx, http.MethodGet, "/health/ready", nil, &ready, http.StatusOK) == nil && ready.Status == "degraded"
		}, 30*time.Second, 20*time.Millisecond)
	}
	got, want = follow()
	require.Equal(t, want, got, "every event of the log once, in order, without Redis")
}
