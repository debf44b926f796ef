package mongostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
	"github.com/workflowpp/wfpp/engine/store/storetest"
)

func TestLeaseConformance(t *testing.T) {
	storetest.RunLeases(t, func(t *testing.T) storetest.LeaseStore { return newStore(t) })
}

func TestChangeDigestConformance(t *testing.T) {
	t.Parallel()
	storetest.ChangeDigests(t, newStore(t))
}

// TestLeaseConformanceSingleWriter: a fenced batch is guarded even by a
// store configured as the only writer.
func TestLeaseConformanceSingleWriter(t *testing.T) {
	storetest.RunLeases(t, func(t *testing.T) storetest.LeaseStore {
		s, err := mongostore.New(t.Context(), embedded.NewTestDatabase(t), mongostore.Config{SingleWriter: true, NoQueryIndexes: true})
		require.NoError(t, err)
		return s
	})
}

// A replica that died between the snapshot of a commit and the rest of it
// leaves the log and the inbox short; the replica that takes its partition
// over completes them as it reads the partition's instances, before it
// runs any of them.
func TestPartitionTakeoverCompletesLastCommit(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	first := snapshot("i-1", 2, event("i-1", 1), event("i-1", 2))
	first.Partition = 3
	require.NoError(t, s.Commit(ctx, &engine.Batch{Epoch: 1, Changes: []engine.Change{{Snapshot: first, Create: true}}}))

	task := engine.Task{ID: "t-1", InstanceID: "i-1", DefinitionKey: "order", ElementID: "review", Name: "Review", Status: engine.TaskOpen}
	last := snapshot("i-1", 4, event("i-1", 3), event("i-1", 4))
	last.Partition, last.Tasks = 3, []engine.Task{task}
	require.NoError(t, s.CrashAfterSnapshots(ctx, &engine.Batch{Epoch: 1, Changes: []engine.Change{{Snapshot: last, PrevSeq: 2, Tasks: []engine.Task{task}}}}))
	_, err = s.Task(ctx, "t-1")
	require.ErrorIs(t, err, engine.ErrNotFound, "the crash left the task out")
	logged := func() int64 {
		n, err := db.Collection("events").CountDocuments(ctx, bson.D{{Key: "instance_id", Value: "i-1"}})
		require.NoError(t, err)
		return n
	}
	require.EqualValues(t, 1, logged())

	require.NoError(t, s.FencePartition(ctx, 3, 2))
	var seen []string
	require.NoError(t, s.UnfinishedIn(ctx, 3, func(snap *engine.Snapshot) error {
		seen = append(seen, snap.ID)
		require.EqualValues(t, 2, snap.Epoch)
		require.EqualValues(t, 2, logged(), "the log is complete when the instance is handed on")
		got, err := s.Task(ctx, "t-1")
		require.NoError(t, err)
		require.Equal(t, engine.TaskOpen, got.Status)
		return nil
	}))
	require.Equal(t, []string{"i-1"}, seen)
	evs, err := s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 4)
}

// TestFencedTaskRecordsKeepTheNewerEpoch: a replica that resumes after
// another took its partition over cannot put back an older task record:
// its write, fenced at its older epoch, is skipped without an error.
func TestFencedTaskRecordsKeepTheNewerEpoch(t *testing.T) {
	ctx := t.Context()
	s := newStore(t)
	task := func(status engine.TaskStatus) engine.Task {
		return engine.Task{ID: "t-1", InstanceID: "i-1", ElementID: "approve", Status: status}
	}
	require.NoError(t, s.WriteTasks(ctx, 2, task(engine.TaskOpen)))
	require.NoError(t, s.WriteTasks(ctx, 2, task(engine.TaskCompleted)), "the new owner completes it")
	require.NoError(t, s.WriteTasks(ctx, 1, task(engine.TaskOpen)), "the old owner's late write: skipped")
	got, err := s.Task(ctx, "t-1")
	require.NoError(t, err)
	require.Equal(t, engine.TaskCompleted, got.Status)
	require.NoError(t, s.WriteTasks(ctx, 3, task(engine.TaskOpen)), "a newer owner's write")
	got, err = s.Task(ctx, "t-1")
	require.NoError(t, err)
	require.Equal(t, engine.TaskOpen, got.Status)
}

// TestRepeatedRequestWaitsForWithdrawal: a start repeated while the first
// one's instance sits stored after a takeover's fence, not yet checked by
// its writer, is not answered with that instance, which its writer is
// about to withdraw: it is told to try again, and then starts the one.
func TestRepeatedRequestWaitsForWithdrawal(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := mongostore.New(ctx, embedded.NewTestDatabase(t), mongostore.Config{ClaimWait: 20 * time.Millisecond})
	require.NoError(t, err)
	at := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	old, _, err := s.AcquirePartition(ctx, 1, "a", at, time.Second)
	require.NoError(t, err)
	taken, ok, err := s.AcquirePartition(ctx, 1, "b", at.Add(time.Second), time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, s.FencePartition(ctx, 1, taken.Epoch))

	first := snapshot("i-1", 0)
	first.Partition, first.Epoch, first.RequestID = 1, old.Epoch, "r-1"
	repeat := func(id string) (*engine.Snapshot, error) {
		again := snapshot(id, 0)
		again.Partition, again.Epoch, again.RequestID = 1, taken.Epoch, "r-1"
		return s.CreateInstance(ctx, again)
	}
	var meanwhile error
	s.AfterNewInsert(func() { _, meanwhile = repeat("i-2") })
	_, err = s.CreateInstance(ctx, first)
	s.AfterNewInsert(nil)
	require.ErrorIs(t, meanwhile, engine.ErrUnavailable, "the first start's instance is not settled")
	require.NotErrorIs(t, meanwhile, engine.ErrDuplicate)
	require.ErrorIs(t, err, engine.ErrFenced, "stored after the fence: withdrawn")

	existing, err := repeat("i-3")
	require.NoError(t, err)
	require.Nil(t, existing, "the request starts anew")
	got, err := s.Instance(ctx, "i-3")
	require.NoError(t, err)
	require.Equal(t, taken.Epoch, got.Epoch)
	_, err = s.Instance(ctx, "i-1")
	require.ErrorIs(t, err, engine.ErrNotFound)
}
