package mongostore_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// cutLeases is a replica's way to the leases that can be cut, as when the
// replica dies: it no longer beats, renews or hands back.
type cutLeases struct {
	engine.LeaseStore
	cut atomic.Bool
}

var errCut = errors.New("replica is gone")

func (c *cutLeases) Heartbeat(ctx context.Context, r engine.Replica) error {
	if c.cut.Load() {
		return errCut
	}
	return c.LeaseStore.Heartbeat(ctx, r)
}

func (c *cutLeases) RenewPartition(ctx context.Context, l engine.PartitionLease, now time.Time, ttl time.Duration) (engine.PartitionLease, error) {
	if c.cut.Load() {
		return l, errCut
	}
	return c.LeaseStore.RenewPartition(ctx, l, now, ttl)
}

func (c *cutLeases) ReleasePartition(ctx context.Context, l engine.PartitionLease) error {
	if c.cut.Load() {
		return errCut
	}
	return c.LeaseStore.ReleasePartition(ctx, l)
}

func (c *cutLeases) RemoveReplica(ctx context.Context, id string) error {
	if c.cut.Load() {
		return errCut
	}
	return c.LeaseStore.RemoveReplica(ctx, id)
}

// replicaOn runs an engine as replica id on a store of its own over db, as
// a separate wfpp serve process would. Its leases last 2 s: a round of
// renewals on the embedded database of a busy machine takes a while.
func replicaOn(t *testing.T, db *mongo.Database, id string) (*engine.Engine, *cutLeases) {
	t.Helper()
	st, err := mongostore.New(t.Context(), db, mongostore.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close(context.Background())) })
	leases := &cutLeases{LeaseStore: st}
	e, err := engine.New(engine.Config{
		Store: st, Clock: engine.RealClock{}, NodeWorkers: 2,
		Cluster: &engine.ClusterConfig{ReplicaID: id, Address: id + ".local:8080", LeaseTTL: 2 * time.Second, Leases: leases},
	})
	require.NoError(t, err)
	require.NoError(t, e.Run(context.Background()))
	t.Cleanup(e.Close)
	return e, leases
}

func held(t *testing.T, e *engine.Engine) int {
	t.Helper()
	cs, err := e.ClusterState(context.Background())
	require.NoError(t, err)
	return len(cs.Held)
}

const clusterProcesses = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="waiter" isExecutable="true">
    <startEvent id="s"/><userTask id="wait"/><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process></definitions>`

const timerProcess = `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="timer" isExecutable="true">
    <startEvent id="s"/><intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration>PT3S</timeDuration></timerEventDefinition></intermediateCatchEvent><endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process></definitions>`

// Two replicas on one database share the partitions; a command on the
// other's instance names its owner; when one dies, the other takes its
// partitions over, fires its timers and applies its instances' commands.
func TestClusterReplicasShareOneDatabase(t *testing.T) {
	ctx := context.Background()
	db := embedded.NewTestDatabase(t)
	a, aLeases := replicaOn(t, db, "a")
	b, _ := replicaOn(t, db, "b")
	require.Eventually(t, func() bool { return held(t, a) == 16 && held(t, b) == 16 }, 15*time.Second, 10*time.Millisecond, "the partitions spread")

	for _, src := range []string{clusterProcesses, timerProcess} {
		_, _, err := a.Deploy(ctx, engine.DeployRequest{Source: []byte(src)})
		require.NoError(t, err)
	}
	waiting, _, err := a.Start(ctx, engine.StartRequest{Definition: "waiter"})
	require.NoError(t, err)
	timed, _, err := a.Start(ctx, engine.StartRequest{Definition: "timer"})
	require.NoError(t, err)
	tasks, _, err := b.Queries().Tasks(ctx, engine.TaskFilter{InstanceID: waiting.ID, Status: engine.TaskOpen})
	require.NoError(t, err)
	require.Len(t, tasks, 1)

	_, err = b.CompleteTask(ctx, tasks[0].ID, "ann", nil)
	var notOwner *engine.NotOwnerError
	require.ErrorAs(t, err, &notOwner)
	require.Equal(t, engine.NotOwnerError{Partition: waiting.Partition, Owner: "a", Address: "a.local:8080"}, *notOwner)

	aLeases.cut.Store(true)
	require.Eventually(t, func() bool { return held(t, b) == engine.ClusterPartitionsDefault }, 15*time.Second, 10*time.Millisecond, "b takes a's partitions")
	require.Eventually(t, func() bool {
		s, err := b.Instance(ctx, timed.ID)
		require.NoError(t, err)
		return s.Status == engine.StatusCompleted
	}, 15*time.Second, 10*time.Millisecond, "b fires a's timer")
	_, err = b.CompleteTask(ctx, tasks[0].ID, "ann", nil)
	require.NoError(t, err)
	_, err = a.Cancel(ctx, timed.ID)
	require.ErrorAs(t, err, &notOwner, "a dropped the partition")
	require.Equal(t, "b", notOwner.Owner)
}
