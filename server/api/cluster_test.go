package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestClusterView: a replica is live while its heartbeat is younger than
// the lease TTL, holds the partitions whose leases run, and every partition
// shows its lease, expired ones as not leased.
func TestClusterView(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	st := engine.ClusterState{
		Self: "a", Partitions: 4, Held: []int{0, 2},
		Replicas: []engine.Replica{
			{ID: "a", Address: "10.0.0.1:8080", Heartbeat: now.Add(-2 * time.Second)},
			{ID: "b", Address: "10.0.0.2:8080", Heartbeat: now.Add(-11 * time.Second)},
		},
		Leases: []engine.PartitionLease{
			{Partition: 0, Owner: "a", Epoch: 3, Expires: now.Add(5 * time.Second)},
			{Partition: 1, Owner: "b", Epoch: 2, Expires: now.Add(-time.Second)},
			{Partition: 2, Owner: "a", Epoch: 1, Expires: now.Add(9 * time.Second)},
		},
	}
	v := NewClusterView(st, 10*time.Second, now)
	require.Equal(t, "a", v.Self)
	require.Equal(t, int64(10000), v.LeaseTTLMs)
	require.Len(t, v.Replicas, 2)
	require.True(t, v.Replicas[0].Live)
	require.True(t, v.Replicas[0].Self)
	require.Equal(t, []int{0, 2}, v.Replicas[0].Partitions)
	require.False(t, v.Replicas[1].Live, "its heartbeat is 11 s old, the TTL 10 s")
	require.Equal(t, int64(11000), v.Replicas[1].HeartbeatAgeMs)
	require.Empty(t, v.Replicas[1].Partitions, "its lease expired")

	require.Len(t, v.Leases, 4)
	require.Equal(t, PartitionView{Partition: 0, Owner: "a", Epoch: 3, Expires: ptr(now.Add(5 * time.Second)), Leased: true, Here: true}, v.Leases[0])
	require.Equal(t, PartitionView{Partition: 1, Owner: "b", Epoch: 2, Expires: ptr(now.Add(-time.Second))}, v.Leases[1])
	require.True(t, v.Leases[2].Here)
	require.Equal(t, PartitionView{Partition: 3}, v.Leases[3], "never leased")
	require.Equal(t, []int{0, 2}, v.Held)
}

func ptr[T any](v T) *T { return &v }
