package mongostore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// TestEventLogStoresBatchesAsOneBinary: a batch's events are one BSON
// binary in the log, and a batch an earlier version wrote with its events
// as an array still reads back.
func TestEventLogStoresBatchesAsOneBinary(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	_, err = s.CreateInstance(ctx, snapshot("i-1", 0))
	require.NoError(t, err)
	first := []engine.Event{event("i-1", 1), event("i-1", 2)}
	first[1].ElementID, first[1].Detail = "task", map[string]any{"answer": int64(42)}
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: snapshot("i-1", 2, first...), PrevSeq: 0}}}))
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: snapshot("i-1", 3, event("i-1", 3)), PrevSeq: 2}}}))

	events := db.Collection("events")
	const firstBatch = "i-1/00000000000000000002"
	raw, err := events.FindOne(ctx, bson.D{{Key: "_id", Value: firstBatch}}).Raw()
	require.NoError(t, err)
	require.Equal(t, bson.TypeBinary, raw.Lookup("events").Type)
	evs, err := s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	require.Equal(t, "task", evs[1].ElementID)
	require.EqualValues(t, 42, evs[1].Detail["answer"])

	// The first batch as versions before this one wrote it.
	type oldEvent struct {
		Seq       uint64         `bson:"seq"`
		Type      string         `bson:"type"`
		Time      any            `bson:"time"`
		ElementID string         `bson:"element_id,omitempty"`
		Detail    map[string]any `bson:"detail,omitempty"`
	}
	_, err = events.ReplaceOne(ctx, bson.D{{Key: "_id", Value: firstBatch}}, bson.D{
		{Key: "_id", Value: firstBatch},
		{Key: "instance_id", Value: "i-1"},
		{Key: "definition_id", Value: "order:1"},
		{Key: "seq", Value: int64(1)},
		{Key: "events", Value: []oldEvent{
			{Seq: 1, Type: "x", Time: first[0].Time},
			{Seq: 2, Type: "old", Time: first[1].Time, ElementID: "task", Detail: map[string]any{"answer": int64(7)}},
		}},
	})
	require.NoError(t, err)
	evs, err = s.Events(ctx, "i-1", 0, 0)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	require.Equal(t, engine.EventType("old"), evs[1].Type)
	require.Equal(t, "i-1", evs[1].InstanceID)
	require.EqualValues(t, 7, evs[1].Detail["answer"])
}
