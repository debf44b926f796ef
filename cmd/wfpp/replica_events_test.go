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

// TestServeReplicasShareEvents: two wfpp serve processes on one store and
// one Redis; a WebSocket client of the second sees every event of an
// instance the first runs, in order, up to its completion.
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
		r.env = []string{"WFPP_REDIS_URL=" + redis.URL(), "WFPP_MONGO_URI=" + db.URI(), "WFPP_MONGO_DB=replicas"}
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

	var inst struct{ ID string }
	require.NoError(t, a.call(ctx, http.MethodPost, "/api/v1/instances", []byte(`{"definition":"fanned"}`), &inst, http.StatusCreated))
	var seqs []uint64
	for {
		require.NoError(t, ws.ReadJSON(&msg), "events so far: %v", seqs)
		require.Equal(t, "event", msg.Type)
		require.Equal(t, inst.ID, msg.Event.InstanceID)
		seqs = append(seqs, msg.Event.Seq)
		if msg.Event.Type == "instance.completed" {
			break
		}
	}
	var got struct{ Seq uint64 }
	require.NoError(t, b.call(ctx, http.MethodGet, "/api/v1/instances/"+inst.ID, nil, &got, http.StatusOK))
	want := make([]uint64, got.Seq)
	for i := range want {
		want[i] = uint64(i + 1)
	}
	require.Equal(t, want, seqs, "every event of the log once, in order")
}
