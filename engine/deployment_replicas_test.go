package engine_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

// TestCallActivitySeesAnotherReplicasDeploy: a call activity bound to the
// latest version finds a process another engine on the same store deployed
// after this one looked for it, without a restart.
func TestCallActivitySeesAnotherReplicasDeploy(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	a, b := engineOn(t, st), engineOn(t, st)
	ctx := t.Context()
	_, _, err := a.Deploy(ctx, engine.DeployRequest{Source: callBPMN(callerDoubling)})
	require.NoError(t, err)

	// settled waits until the instance completed or has an incident.
	settled := func(id string) *engine.Snapshot {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			snap, err := st.Instance(ctx, id)
			require.NoError(t, err)
			if snap.Status == engine.StatusCompleted || len(snap.Incidents) > 0 {
				return snap
			}
			require.True(t, time.Now().Before(deadline), "instance %s neither completed nor has an incident", id)
			time.Sleep(5 * time.Millisecond) // polls the store; the engines are real
		}
	}
	snap, _, err := b.Start(ctx, engine.StartRequest{Definition: "caller", Variables: map[string]any{"amount": 2}})
	require.NoError(t, err)
	snap = settled(snap.ID)
	require.NotEmpty(t, snap.Incidents, "nothing holds doubler yet")
	require.Contains(t, snap.Incidents[0].Message, `no deployed definition holds process "doubler"`)

	_, _, err = a.Deploy(ctx, engine.DeployRequest{Source: callBPMN(doubler)})
	require.NoError(t, err)
	snap, _, err = b.Start(ctx, engine.StartRequest{Definition: "caller", Variables: map[string]any{"amount": 2}})
	require.NoError(t, err)
	snap = settled(snap.ID)
	require.Empty(t, snap.Incidents, "b sees the deploy of a")
	require.Equal(t, engine.StatusCompleted, snap.Status)
	require.EqualValues(t, 4, snap.Variables["doubled"])
}

// TestCallActivitySeesAnotherReplicasNewerHolder: in cluster mode, a call
// activity bound to the latest moves to a definition another replica
// deployed that now holds the called process (here: one it is the main
// process of), although this replica already resolved it elsewhere.
func TestCallActivitySeesAnotherReplicasNewerHolder(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	a := engineOn(t, st)
	b, err := engine.New(engine.Config{Store: st, Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2, Cluster: &engine.ClusterConfig{ReplicaID: "b"}})
	require.NoError(t, err)
	require.NoError(t, b.Run(t.Context()))
	t.Cleanup(b.Close)
	ctx := t.Context()
	_, _, err = a.Deploy(ctx, engine.DeployRequest{Source: callBPMN(callerDoubling)})
	require.NoError(t, err)
	lib, _, err := a.Deploy(ctx, engine.DeployRequest{Source: callBPMN(waiter, doubler)})
	require.NoError(t, err)
	require.NotEqual(t, "doubler", lib.Key, "doubler is not the main process of the first holder")

	run := func() *engine.Snapshot {
		t.Helper()
		snap, _, err := b.Start(ctx, engine.StartRequest{Definition: "caller", Variables: map[string]any{"amount": 2}})
		require.NoError(t, err)
		deadline := time.Now().Add(10 * time.Second)
		for {
			snap, err := st.Instance(ctx, snap.ID)
			require.NoError(t, err)
			if snap.Status.Done() || len(snap.Incidents) > 0 {
				require.Empty(t, snap.Incidents)
				return snap
			}
			require.True(t, time.Now().Before(deadline), "instance %s did not end", snap.ID)
			time.Sleep(5 * time.Millisecond) // polls the store; the engines are real
		}
	}
	require.EqualValues(t, 4, run().Variables["doubled"], "doubler of %s", lib.Key)

	tripler := `<process id="doubler" isExecutable="true">
    <startEvent id="s"/><scriptTask id="double" scriptFormat="javascript"><script>return {doubled: amount * 3}</script></scriptTask><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="double"/><sequenceFlow id="f2" sourceRef="double" targetRef="e"/></process>`
	own, _, err := a.Deploy(ctx, engine.DeployRequest{Source: callBPMN(tripler)})
	require.NoError(t, err)
	require.Equal(t, "doubler", own.Key)
	require.EqualValues(t, 6, run().Variables["doubled"], "b calls the definition doubler is the main process of, which a deployed")
}
