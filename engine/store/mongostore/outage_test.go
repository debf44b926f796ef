package mongostore_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

const outageBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="d" targetNamespace="x">
  <bpmn:process id="outage" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:userTask id="review" wf:assignee="ann"/>
    <bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="e"/>
  </bpmn:process>
</bpmn:definitions>`

// TestStoreOutage: while the database is down, engine operations fail with
// ErrUnavailable (the server's 503) and change nothing; when it is back the
// same engine carries on by itself, and the instance completes.
func TestStoreOutage(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	addr := freeAddr(t)
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: dir, Addr: addr})
	require.NoError(t, err)
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()).SetServerSelectionTimeout(time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Disconnect(context.WithoutCancel(ctx)) })
	st, err := mongostore.New(ctx, client.Database("outage"), mongostore.Config{SingleWriter: true})
	require.NoError(t, err)
	e, err := engine.New(engine.Config{Store: st})
	require.NoError(t, err)
	require.NoError(t, e.Run(ctx))
	t.Cleanup(e.Close)

	_, _, err = e.Deploy(ctx, engine.DeployRequest{Source: []byte(outageBPMN)})
	require.NoError(t, err)
	inst, _, err := e.Start(ctx, engine.StartRequest{Definition: "outage"})
	require.NoError(t, err)
	require.Len(t, inst.Tasks, 1)
	task := inst.Tasks[0].ID

	require.NoError(t, srv.Close(ctx)) // the database goes away
	_, err = e.CompleteTask(ctx, task, "ann", map[string]any{"ok": true})
	require.ErrorIs(t, err, engine.ErrUnavailable)
	_, _, err = e.Start(ctx, engine.StartRequest{Definition: "outage", RequestID: "during-outage"})
	require.ErrorIs(t, err, engine.ErrUnavailable)

	srv, err = embedded.Start(ctx, embedded.Config{DataDir: dir, Addr: addr}) // and comes back
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close(context.WithoutCancel(ctx)) })
	require.Eventually(t, func() bool {
		_, err := e.CompleteTask(ctx, task, "ann", map[string]any{"ok": true})
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "the engine carries on once the database answers again")
	require.Eventually(t, func() bool {
		got, err := e.Instance(ctx, inst.ID)
		return err == nil && got.Status == engine.StatusCompleted && got.Variables["ok"] == true
	}, 10*time.Second, 20*time.Millisecond)
	evs, err := st.Events(ctx, inst.ID, 0, 0)
	require.NoError(t, err)
	for i, ev := range evs {
		require.EqualValues(t, i+1, ev.Seq, "the log has no gap or repeat")
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}
