package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// LeaseStore is a store replicas can share partitions through.
type LeaseStore interface {
	engine.Store
	engine.LeaseStore
}

// RunLeases runs the conformance suite of engine.LeaseStore and of the
// fenced commit (Batch.Epoch); newStore returns a fresh, empty store for
// each subtest. Times are passed as now: nothing sleeps.
func RunLeases(t *testing.T, newStore func(t *testing.T) LeaseStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s LeaseStore)
	}{
		{"AcquireRenewExpire", testAcquireRenewExpire},
		{"AcquireConcurrent", testAcquireConcurrent},
		{"HandBack", testHandBack},
		{"Replicas", testReplicas},
		{"FencedAfterFencePartition", testFencedAfterFence},
		{"FencedAfterOtherOwner", testFencedAfterOtherOwner},
		{"FencedCreate", testFencedCreate},
		{"FencePartitionScope", testFencePartitionScope},
		{"UnfinishedIn", testUnfinishedIn},
		{"CreateDuringTakeover", testCreateDuringTakeover},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

const leaseTTL = 10 * time.Second

func requireLease(t *testing.T, want, got engine.PartitionLease) {
	t.Helper()
	require.Equal(t, want.Partition, got.Partition, "partition")
	require.Equal(t, want.Owner, got.Owner, "owner")
	require.Equal(t, want.Epoch, got.Epoch, "epoch")
	require.True(t, want.Expires.Equal(got.Expires), "expires %s, want %s", got.Expires, want.Expires)
}

func testAcquireRenewExpire(t *testing.T, s LeaseStore) {
	c := ctx(t)
	l, ok, err := s.AcquirePartition(c, 3, "a", at(0), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok, "a partition never leased is free")
	requireLease(t, engine.PartitionLease{Partition: 3, Owner: "a", Epoch: 1, Expires: at(leaseTTL)}, l)

	cur, ok, err := s.AcquirePartition(c, 3, "b", at(5*time.Second), leaseTTL)
	require.NoError(t, err)
	require.False(t, ok, "held by a until it expires")
	requireLease(t, l, cur)

	again, ok, err := s.AcquirePartition(c, 3, "a", at(5*time.Second), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok, "its owner renews it")
	requireLease(t, engine.PartitionLease{Partition: 3, Owner: "a", Epoch: 1, Expires: at(15 * time.Second)}, again)

	renewed, err := s.RenewPartition(c, again, at(9*time.Second), leaseTTL)
	require.NoError(t, err)
	requireLease(t, engine.PartitionLease{Partition: 3, Owner: "a", Epoch: 1, Expires: at(19 * time.Second)}, renewed)

	_, ok, err = s.AcquirePartition(c, 3, "b", at(19*time.Second-time.Millisecond), leaseTTL)
	require.NoError(t, err)
	require.False(t, ok, "the renewal moved the expiry")

	stolen, ok, err := s.AcquirePartition(c, 3, "b", at(19*time.Second), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok, "expired at its expiry: free")
	requireLease(t, engine.PartitionLease{Partition: 3, Owner: "b", Epoch: 2, Expires: at(29 * time.Second)}, stolen)

	_, err = s.RenewPartition(c, renewed, at(20*time.Second), leaseTTL)
	require.ErrorIs(t, err, engine.ErrFenced, "a's tenure ended")
	require.NoError(t, s.ReleasePartition(c, renewed), "releasing a lease no longer held does nothing")
	cur, ok, err = s.AcquirePartition(c, 3, "a", at(20*time.Second), leaseTTL)
	require.NoError(t, err)
	require.False(t, ok)
	requireLease(t, stolen, cur)

	back, ok, err := s.AcquirePartition(c, 3, "b", at(40*time.Second), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok)
	require.EqualValues(t, 3, back.Epoch, "taking its own expired lease is a new tenure")
	_, err = s.RenewPartition(c, stolen, at(41*time.Second), leaseTTL)
	require.ErrorIs(t, err, engine.ErrFenced, "the old tenure's renewal")

	_, ok, err = s.AcquirePartition(c, 1, "a", at(40*time.Second), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok)
	all, err := s.Partitions(c)
	require.NoError(t, err)
	require.Len(t, all, 2)
	requireLease(t, engine.PartitionLease{Partition: 1, Owner: "a", Epoch: 1, Expires: at(50 * time.Second)}, all[0])
	requireLease(t, back, all[1])
}

// testAcquireConcurrent races replicas for one partition, first while it
// was never leased (the first take inserts it), then after each expiry:
// exactly one wins each epoch, and the others see the winner's lease.
func testAcquireConcurrent(t *testing.T, s LeaseStore) {
	c := ctx(t)
	const n = 8
	for epoch := int64(1); epoch <= 3; epoch++ {
		now := at(time.Duration(epoch) * leaseTTL)
		leases := make([]engine.PartitionLease, n)
		oks := make([]bool, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				leases[i], oks[i], errs[i] = s.AcquirePartition(c, 7, fmt.Sprint("r", i), now, leaseTTL)
			})
		}
		wg.Wait()
		winner := -1
		for i := range n {
			require.NoError(t, errs[i])
			if oks[i] {
				require.Equal(t, -1, winner, "two replicas took partition 7 at epoch %d", epoch)
				winner = i
			}
		}
		require.NotEqual(t, -1, winner, "nobody took partition 7 at epoch %d", epoch)
		want := engine.PartitionLease{Partition: 7, Owner: fmt.Sprint("r", winner), Epoch: epoch, Expires: now.Add(leaseTTL)}
		for i := range n {
			requireLease(t, want, leases[i])
		}
	}
}

func testHandBack(t *testing.T, s LeaseStore) {
	c := ctx(t)
	l, ok, err := s.AcquirePartition(c, 2, "a", at(0), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.ReleasePartition(c, l))
	_, err = s.RenewPartition(c, l, at(time.Second), leaseTTL)
	require.ErrorIs(t, err, engine.ErrFenced, "a late renewal does not bring a released lease back")

	taken, ok, err := s.AcquirePartition(c, 2, "b", at(time.Second), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok, "a released lease is free at once, long before it would have expired")
	requireLease(t, engine.PartitionLease{Partition: 2, Owner: "b", Epoch: 2, Expires: at(time.Second + leaseTTL)}, taken)

	require.NoError(t, s.ReleasePartition(c, l), "a's lease again: nothing to do")
	all, err := s.Partitions(c)
	require.NoError(t, err)
	require.Len(t, all, 1)
	requireLease(t, taken, all[0])
}

func testReplicas(t *testing.T, s LeaseStore) {
	c := ctx(t)
	none, err := s.Replicas(c)
	require.NoError(t, err)
	require.Empty(t, none)
	a := engine.Replica{ID: "a", Address: "10.0.0.1:8080", Started: at(time.Second), Heartbeat: at(time.Second), EventLagMs: 7}
	b := engine.Replica{ID: "b", Address: "10.0.0.2:8080", Started: at(0), Heartbeat: at(2 * time.Second)}
	require.NoError(t, s.Heartbeat(c, a))
	require.NoError(t, s.Heartbeat(c, b))
	a.Heartbeat, a.Address = at(5*time.Second), "10.0.0.9:8080"
	require.NoError(t, s.Heartbeat(c, a))

	got, err := s.Replicas(c)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "b", got[0].ID, "oldest first")
	require.Equal(t, "a", got[1].ID)
	require.Equal(t, "10.0.0.9:8080", got[1].Address)
	require.True(t, got[1].Heartbeat.Equal(at(5*time.Second)), "the last beat counts")
	require.True(t, got[1].Started.Equal(at(time.Second)))
	require.Equal(t, int64(7), got[1].EventLagMs)

	require.NoError(t, s.RemoveReplica(c, "b"))
	require.NoError(t, s.RemoveReplica(c, "nobody"))
	got, err = s.Replicas(c)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "a", got[0].ID)
}

// in returns a new instance of partition p.
func in(id string, p int) *engine.Snapshot {
	sn := snap(id, "order")
	sn.Partition = p
	return sn
}

// step commits the next change of an instance of partition p at epoch.
func step(t *testing.T, s LeaseStore, id string, p int, prev uint64, epoch int64) error {
	next := in(id, p)
	next.Seq, next.Status = prev+1, engine.StatusWaiting
	next.Variables = map[string]any{"epoch": epoch}
	next.Pending = []engine.Event{ev(id, prev+1, "step")}
	return s.Commit(ctx(t), &engine.Batch{Epoch: epoch, Changes: []engine.Change{{Snapshot: next, PrevSeq: prev}}})
}

func requireEpoch(t *testing.T, s LeaseStore, id string, seq uint64, epoch int64) {
	t.Helper()
	got, err := s.Instance(ctx(t), id)
	require.NoError(t, err)
	require.Equal(t, seq, got.Seq, "seq of %s", id)
	require.Equal(t, epoch, got.Epoch, "epoch of %s", id)
}

func requireFenced(t *testing.T, err error) {
	t.Helper()
	require.ErrorIs(t, err, engine.ErrFenced)
	require.NotErrorIs(t, err, engine.ErrConflict, "fenced, not a sequence conflict")
}

func testFencedAfterFence(t *testing.T, s LeaseStore) {
	c := ctx(t)
	require.NoError(t, s.Commit(c, &engine.Batch{Epoch: 1, Changes: []engine.Change{{Snapshot: in("i-1", 2), Create: true}}}))
	requireEpoch(t, s, "i-1", 0, 1)
	_, err := s.CreateInstance(c, in("i-0", 2))
	require.NoError(t, err)
	require.NoError(t, step(t, s, "i-0", 2, 0, 1), "an instance stored without an epoch is at epoch 0")
	require.NoError(t, step(t, s, "i-1", 2, 0, 1))
	requireEpoch(t, s, "i-0", 1, 1)

	require.NoError(t, s.FencePartition(c, 2, 2))
	requireEpoch(t, s, "i-1", 1, 2)
	requireFenced(t, step(t, s, "i-1", 2, 1, 1))
	requireEpoch(t, s, "i-1", 1, 2)
	evs, err := s.Events(c, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1, "the refused change's events are not in the log")

	require.NoError(t, step(t, s, "i-1", 2, 1, 2), "the new owner commits")
	require.NoError(t, step(t, s, "i-1", 2, 2, 3), "as does a later one")
	requireEpoch(t, s, "i-1", 3, 3)
}

func testFencedAfterOtherOwner(t *testing.T, s LeaseStore) {
	c := ctx(t)
	_, err := s.CreateInstance(c, in("i-1", 4))
	require.NoError(t, err)
	require.NoError(t, step(t, s, "i-1", 4, 0, 1))
	require.NoError(t, step(t, s, "i-1", 4, 1, 2), "another replica took the partition, without a fence")
	requireFenced(t, step(t, s, "i-1", 4, 2, 1))
	requireFenced(t, step(t, s, "i-1", 4, 1, 1))
	requireEpoch(t, s, "i-1", 2, 2)
	got, err := s.Instance(c, "i-1")
	require.NoError(t, err)
	require.Equal(t, int64(2), got.Variables["epoch"], "the new owner's change stands")
	require.ErrorIs(t, step(t, s, "i-1", 4, 1, 2), engine.ErrConflict, "within one epoch the sequence guard holds")
}

// testFencedCreate: once another replica took a partition, its old owner
// can no longer create instances in it either.
func testFencedCreate(t *testing.T, s LeaseStore) {
	c := ctx(t)
	old, ok, err := s.AcquirePartition(c, 5, "a", at(0), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.Commit(c, &engine.Batch{Epoch: old.Epoch, Changes: []engine.Change{{Snapshot: in("i-1", 5), Create: true}}}))
	l, ok, err := s.AcquirePartition(c, 5, "b", at(leaseTTL), leaseTTL)
	require.NoError(t, err)
	require.True(t, ok)

	err = s.Commit(c, &engine.Batch{Epoch: old.Epoch, Changes: []engine.Change{{Snapshot: in("i-2", 5), Create: true}}})
	requireFenced(t, err)
	_, err = s.Instance(c, "i-2")
	require.ErrorIs(t, err, engine.ErrNotFound)
	require.NoError(t, s.Commit(c, &engine.Batch{Epoch: l.Epoch, Changes: []engine.Change{{Snapshot: in("i-2", 5), Create: true}}}))
	requireEpoch(t, s, "i-2", 0, l.Epoch)
	requireFenced(t, s.Commit(c, &engine.Batch{Epoch: old.Epoch, Changes: []engine.Change{{Snapshot: in("i-2", 5), Create: true}}}))

	started := in("i-3", 5) // an idempotent start
	started.RequestID, started.Epoch = "req-3", old.Epoch
	_, err = s.CreateInstance(c, started)
	requireFenced(t, err)
	_, err = s.Instance(c, "i-3")
	require.ErrorIs(t, err, engine.ErrNotFound)
	started.Epoch = l.Epoch
	_, err = s.CreateInstance(c, started)
	require.NoError(t, err, "the request id was not claimed by the refused start")
	requireEpoch(t, s, "i-3", 0, l.Epoch)
}

// testFencePartitionScope: a fence raises the epoch of the unfinished
// instances of its partition only, and never lowers one.
func testFencePartitionScope(t *testing.T, s LeaseStore) {
	c := ctx(t)
	for _, sn := range []*engine.Snapshot{in("i-a", 1), in("i-c", 1), in("i-d", 2)} {
		if sn.ID == "i-c" {
			sn.Status = engine.StatusCompleted
		}
		_, err := s.CreateInstance(c, sn)
		require.NoError(t, err)
	}
	require.NoError(t, s.Commit(c, &engine.Batch{Epoch: 5, Changes: []engine.Change{{Snapshot: in("i-b", 1), Create: true}}}))
	require.NoError(t, step(t, s, "i-b", 1, 0, 5)) // waiting

	require.NoError(t, s.FencePartition(c, 1, 3))
	requireEpoch(t, s, "i-a", 0, 3)
	requireEpoch(t, s, "i-b", 1, 5)
	requireEpoch(t, s, "i-c", 0, 0)
	requireEpoch(t, s, "i-d", 0, 0)
	require.NoError(t, s.FencePartition(c, 1, 6))
	requireEpoch(t, s, "i-b", 1, 6)
	requireFenced(t, step(t, s, "i-b", 1, 1, 5))
}

func testUnfinishedIn(t *testing.T, s LeaseStore) {
	c := ctx(t)
	statuses := []engine.Status{
		engine.StatusRunning, engine.StatusIncident, engine.StatusPaused,
		engine.StatusCompleted, engine.StatusFailed, engine.StatusCancelled,
	}
	for i, st := range statuses {
		for p := range 2 {
			sn := in(fmt.Sprintf("i-%d-%d", p, i), p)
			sn.Status = st
			_, err := s.CreateInstance(c, sn)
			require.NoError(t, err)
		}
	}
	_, err := s.CreateInstance(c, in("i-1-9", 1))
	require.NoError(t, err)
	require.NoError(t, step(t, s, "i-1-9", 1, 0, 1)) // waiting

	var seen []string
	require.NoError(t, s.UnfinishedIn(c, 1, func(sn *engine.Snapshot) error {
		seen = append(seen, sn.ID)
		require.Equal(t, 1, sn.Partition)
		require.Empty(t, sn.Pending)
		require.NotEmpty(t, sn.Variables, "whole instances, not heads")
		return nil
	}))
	require.Equal(t, []string{"i-1-0", "i-1-1", "i-1-2", "i-1-9"}, seen, "unfinished, of partition 1, oldest first")

	require.NoError(t, s.UnfinishedIn(c, 6, func(sn *engine.Snapshot) error {
		return fmt.Errorf("partition 6 has no instance, got %s", sn.ID)
	}))
	stop := errors.New("stop")
	calls := 0
	require.ErrorIs(t, s.UnfinishedIn(c, 0, func(*engine.Snapshot) error { calls++; return stop }), stop)
	require.Equal(t, 1, calls)

	counts, err := s.UnfinishedCounts(c)
	require.NoError(t, err)
	require.Equal(t, map[int]int{0: 3, 1: 4}, counts, "running, incident, paused (and waiting) count; ended ones do not")
}
