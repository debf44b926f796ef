package mongostore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// TestLargeVariablesLiveApart: an instance's large variables are kept in a
// document of their own, so lists never read them; reads put them back,
// each commit replaces them, small ones go back inline, and after a crash
// recovery removes what no snapshot names.
func TestLargeVariablesLiveApart(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	sides := func() int64 {
		n, err := db.Collection("variables").CountDocuments(ctx, bson.D{})
		require.NoError(t, err)
		return n
	}
	stored := func(id string) bson.M {
		var doc bson.M
		require.NoError(t, db.Collection("instances").FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&doc))
		return doc
	}
	big := func(c string) string { return strings.Repeat(c, 100<<10) }

	first := snapshot("i-1", 0)
	first.Variables = map[string]any{"blob": big("a"), "n": int64(1)}
	_, err = s.CreateInstance(ctx, first)
	require.NoError(t, err)
	require.EqualValues(t, 1, sides())
	require.Nil(t, stored("i-1")["variables"], "the instance document holds no large variables")
	got, err := s.Instance(ctx, "i-1")
	require.NoError(t, err)
	require.Equal(t, first.Variables, got.Variables)
	page, _, err := s.Instances(ctx, engine.InstanceFilter{})
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Empty(t, page[0].Variables, "lists are heads")

	second := snapshot("i-1", 1)
	second.Variables = map[string]any{"blob": big("b"), "n": int64(2)}
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: second, PrevSeq: 0}}}))
	require.EqualValues(t, 1, sides(), "the commit replaced the side document")
	got, err = s.Instance(ctx, "i-1")
	require.NoError(t, err)
	require.Equal(t, second.Variables, got.Variables)

	third := snapshot("i-1", 2)
	third.Variables = map[string]any{"n": int64(3)}
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: third, PrevSeq: 1}}}))
	require.EqualValues(t, 0, sides(), "small variables went back inline")
	require.Equal(t, bson.D{{Key: "n", Value: int64(3)}}, stored("i-1")["variables"])

	// A crash after a commit's snapshot, before the old side document was
	// removed; and a side document whose snapshot never landed.
	fourth := snapshot("i-1", 3)
	fourth.Variables = map[string]any{"blob": big("c")}
	require.NoError(t, s.Commit(ctx, &engine.Batch{Changes: []engine.Change{{Snapshot: fourth, PrevSeq: 2}}}))
	_, err = db.Collection("variables").InsertOne(ctx, bson.D{{Key: "_id", Value: "i-1/lost"}, {Key: "instance_id", Value: "i-1"}, {Key: "variables", Value: bson.D{}}})
	require.NoError(t, err)
	require.EqualValues(t, 2, sides())

	restarted, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	var seen int
	require.NoError(t, restarted.Unfinished(ctx, func(snap *engine.Snapshot) error {
		seen++
		require.Equal(t, fourth.Variables, snap.Variables, "recovery reads the variables back")
		return nil
	}))
	require.Equal(t, 1, seen)
	require.EqualValues(t, 1, sides(), "recovery removed the side document no snapshot names")
}
