package mongostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// A replica hashing by another partition count than the store's unfinished
// instances, or than the replicas running now, is refused with the count to
// use; with neither, the count changes.
func TestPreparePartitionsKeepsOneCount(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

	_, err := s.PreparePartitions(ctx, 16, now)
	require.NoError(t, err, "an empty store takes any count")
	_, err = s.PreparePartitions(ctx, 32, now)
	require.NoError(t, err, "and another, while nothing is placed by the first")

	snap := snapshot("i-1", 0)
	snap.Partition = engine.PartitionOf(snap.ID, 32)
	_, err = s.CreateInstance(ctx, snap)
	require.NoError(t, err)
	_, err = s.PreparePartitions(ctx, 16, now)
	require.ErrorContains(t, err, "set WFPP_PARTITIONS=32 on every replica", "an unfinished instance is placed by 32")
	_, err = s.PreparePartitions(ctx, 32, now)
	require.NoError(t, err)

	done := *snap
	done.Seq, done.Status = 1, engine.StatusCompleted
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: &done, PrevSeq: 0}}}))
	_, _, err = s.AcquirePartition(ctx, 3, "r1", now, 10*time.Second)
	require.NoError(t, err)
	_, err = s.PreparePartitions(ctx, 16, now)
	require.ErrorContains(t, err, "replicas running now lease partitions by it", "a replica holds a lease")
	_, err = s.PreparePartitions(ctx, 16, now.Add(11*time.Second))
	require.NoError(t, err, "the lease ran out and nothing unfinished is left")
	_, err = s.PreparePartitions(ctx, 32, now.Add(11*time.Second))
	require.NoError(t, err)
}

// Unfinished instances stored before partitions existed are placed in
// theirs, once.
func TestPreparePartitionsPlacesOldInstances(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	instances := db.Collection("instances")
	_, err = instances.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "old-waiting"}, {Key: "status", Value: string(engine.StatusWaiting)}},
		bson.D{{Key: "_id", Value: "old-done"}, {Key: "status", Value: string(engine.StatusCompleted)}},
	})
	require.NoError(t, err)

	placed, err := s.PreparePartitions(ctx, 32, time.Now())
	require.NoError(t, err)
	require.Equal(t, 1, placed, "only the unfinished one")
	var doc struct {
		Partition *int `bson:"partition"`
	}
	require.NoError(t, instances.FindOne(ctx, bson.D{{Key: "_id", Value: "old-waiting"}}).Decode(&doc))
	require.NotNil(t, doc.Partition)
	require.Equal(t, engine.PartitionOf("old-waiting", 32), *doc.Partition)
	var found []string
	require.NoError(t, s.UnfinishedIn(ctx, *doc.Partition, func(sn *engine.Snapshot) error { found = append(found, sn.ID); return nil }))
	require.Equal(t, []string{"old-waiting"}, found, "its partition's owner finds it")

	placed, err = s.PreparePartitions(ctx, 32, time.Now())
	require.NoError(t, err)
	require.Zero(t, placed, "placed once")
}
