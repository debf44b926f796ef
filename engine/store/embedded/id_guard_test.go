package embedded_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// guardFilters are guards as the stores write them and the operators the
// proxy evaluates itself, plus some it leaves to FerretDB.
var guardFilters = []bson.D{
	{{Key: "seq", Value: int64(7)}},
	{{Key: "seq", Value: int32(7)}},
	{{Key: "seq", Value: 7.0}},
	{{Key: "seq", Value: int64(8)}},
	{{Key: "seq", Value: int64(7)}, {Key: "$or", Value: bson.A{
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: int64(3)}}}},
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	}}},
	{{Key: "seq", Value: int64(7)}, {Key: "$or", Value: bson.A{
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: int64(2)}}}},
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	}}},
	{{Key: "name", Value: bson.D{{Key: "$in", Value: bson.A{"a", "c"}}}}, {Key: "$or", Value: bson.A{ // a fenced dead-letter move
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: int64(3)}}}},
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	}}},
	{{Key: "name", Value: bson.D{{Key: "$in", Value: bson.A{"a", "b"}}}}, {Key: "$or", Value: bson.A{
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: int64(2)}}}},
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	}}},
	{{Key: "$and", Value: bson.A{
		bson.D{{Key: "seq", Value: bson.D{{Key: "$gte", Value: 7}}}},
		bson.D{{Key: "seq", Value: bson.D{{Key: "$lt", Value: 8}}}},
	}}},
	{{Key: "epoch", Value: nil}},
	{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: true}}}},
	{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	{{Key: "epoch", Value: bson.D{{Key: "$ne", Value: int64(3)}}}},
	{{Key: "epoch", Value: bson.D{{Key: "$in", Value: bson.A{1, int64(3)}}}}},
	{{Key: "epoch", Value: bson.D{{Key: "$nin", Value: bson.A{3}}}}},
	{{Key: "epoch", Value: bson.D{{Key: "$gt", Value: 1}, {Key: "$lt", Value: 5}}}},
	{{Key: "name", Value: "a"}},
	{{Key: "name", Value: bson.D{{Key: "$gt", Value: "A"}}}},
	{{Key: "name", Value: bson.D{{Key: "$lt", Value: 5}}}}, // a string is never less than a number
	{{Key: "at", Value: bson.D{{Key: "$lt", Value: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}}}},
	{{Key: "owner", Value: bson.D{{Key: "x", Value: 1}}}},
	// Left to FerretDB:
	{{Key: "name", Value: bson.D{{Key: "$regex", Value: "^a"}}}},
	{{Key: "tags", Value: 1}},
	{{Key: "owner.x", Value: 1}},
}

// TestGuardedUpdatesMatchAsFerretDBFinds: an update whose filter is a
// string _id and more, which the proxy narrows to the _id after evaluating
// the rest itself, matches exactly the documents FerretDB's own find
// matches with that filter, for every guard shape and document.
func TestGuardedUpdatesMatchAsFerretDBFinds(t *testing.T) {
	ctx, c := setup(t)
	_, err := c.InsertMany(ctx, []any{
		bson.D{
			{Key: "_id", Value: "i1"},
			{Key: "seq", Value: int64(7)},
			{Key: "epoch", Value: int64(3)},
			{Key: "name", Value: "a"},
			{Key: "at", Value: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)},
			{Key: "owner", Value: bson.D{{Key: "x", Value: 1}}},
		},
		bson.D{{Key: "_id", Value: "i2"}, {Key: "seq", Value: int32(1)}, {Key: "name", Value: "b"}},
		bson.D{{Key: "_id", Value: "i3"}, {Key: "seq", Value: 7.0}, {Key: "epoch", Value: nil}, {Key: "tags", Value: bson.A{1, 2}}},
	})
	require.NoError(t, err)

	matched := 0
	for _, f := range guardFilters {
		for _, id := range []string{"i1", "i2", "i3", "none"} {
			filter := append(bson.D{{Key: "_id", Value: id}}, f...)
			want, err := c.CountDocuments(ctx, filter)
			require.NoError(t, err)
			res, err := c.UpdateOne(ctx, filter, bson.D{{Key: "$inc", Value: bson.D{{Key: "touched", Value: 1}}}})
			require.NoError(t, err)
			require.Equal(t, want, res.MatchedCount, "filter %v", filter)
			matched += int(want)
		}
	}
	require.Greater(t, matched, 10, "the filters must match some documents")

	var touched []struct{ Touched int }
	cur, err := c.Find(ctx, bson.D{})
	require.NoError(t, err)
	require.NoError(t, cur.All(ctx, &touched))
	sum := 0
	for _, d := range touched {
		sum += d.Touched
	}
	require.Equal(t, matched, sum, "each matched update wrote once, and no other did")
}

// TestGuardedBulkReplaceMixed: in one bulk write (the store's commit of
// several instances) the statements whose guard holds replace their
// documents and the others leave theirs alone; as a document sequence and
// as the command's own array.
func TestGuardedBulkReplaceMixed(t *testing.T) {
	ctx, c := setup(t)
	for i := range 6 {
		_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("i%d", i)}, {Key: "seq", Value: int64(1)}})
		require.NoError(t, err)
	}
	stale := func(i int) bool { return i%2 == 1 }
	replace := func(i int) (bson.D, bson.D) {
		seq := int64(1)
		if stale(i) {
			seq = 0
		}
		return bson.D{{Key: "_id", Value: fmt.Sprintf("i%d", i)}, {Key: "seq", Value: seq}},
			bson.D{{Key: "seq", Value: int64(2)}, {Key: "by", Value: "bulk"}}
	}
	var models []mongo.WriteModel
	for i := range 3 {
		q, u := replace(i)
		models = append(models, mongo.NewReplaceOneModel().SetFilter(q).SetReplacement(u))
	}
	res, err := c.BulkWrite(ctx, models)
	require.NoError(t, err)
	require.EqualValues(t, 2, res.MatchedCount) // i0 and i2; i1 is stale

	var updates bson.A
	for i := 3; i < 6; i++ {
		q, u := replace(i)
		updates = append(updates, bson.D{{Key: "q", Value: q}, {Key: "u", Value: u}})
	}
	var reply struct{ N int }
	require.NoError(t, c.Database().RunCommand(ctx, bson.D{{Key: "update", Value: c.Name()}, {Key: "updates", Value: updates}}).Decode(&reply))
	require.Equal(t, 1, reply.N) // i4; i3 and i5 are stale

	for i := range 6 {
		var got struct {
			Seq int64
			By  string
		}
		require.NoError(t, c.FindOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("i%d", i)}}).Decode(&got))
		if stale(i) {
			require.Equal(t, int64(1), got.Seq, "i%d: its guard did not hold", i)
		} else {
			require.Equal(t, "bulk", got.By, "i%d", i)
		}
	}
}

// TestGuardedUpdatesSeeEarlierStatements: a guarded statement after one
// that changed or created its document, or after one by another filter,
// is evaluated on what that one left.
func TestGuardedUpdatesSeeEarlierStatements(t *testing.T) {
	ctx, c := setup(t)
	_, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "a"}, {Key: "status", Value: "pending"}},
		bson.D{{Key: "_id", Value: "b"}, {Key: "status", Value: "pending"}, {Key: "group", Value: 1}},
	})
	require.NoError(t, err)
	set := func(status string) bson.D {
		return bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: status}}}}
	}
	guarded := func(id, from string) bson.D {
		return bson.D{{Key: "_id", Value: id}, {Key: "status", Value: from}}
	}
	res, err := c.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().SetFilter(guarded("a", "pending")).SetUpdate(set("replaying")),
		mongo.NewUpdateOneModel().SetFilter(guarded("a", "replaying")).SetUpdate(set("replayed")),
		mongo.NewUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: "n"}}).SetUpdate(set("pending")).SetUpsert(true),
		mongo.NewUpdateOneModel().SetFilter(guarded("n", "pending")).SetUpdate(set("cancelled")),
		mongo.NewUpdateManyModel().SetFilter(bson.D{{Key: "group", Value: 1}}).SetUpdate(set("held")),
		mongo.NewUpdateOneModel().SetFilter(guarded("b", "held")).SetUpdate(set("released")),
	}, options.BulkWrite().SetOrdered(true))
	require.NoError(t, err)
	require.EqualValues(t, 5, res.MatchedCount) // the upsert inserted
	for id, want := range map[string]string{"a": "replayed", "n": "cancelled", "b": "released"} {
		var got struct{ Status string }
		require.NoError(t, c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&got))
		require.Equal(t, want, got.Status, id)
	}
}

// TestGuardedUpserts: an upsert guarded by epoch inserts a missing
// document, replaces one whose guard holds, and meets a duplicate _id
// where the stored document is newer, which it leaves as it is.
func TestGuardedUpserts(t *testing.T) {
	ctx, c := setup(t)
	upsert := func(id string, epoch int64, status string) error {
		_, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "$or", Value: bson.A{
			bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: epoch}}}},
			bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
		}}}, bson.D{{Key: "status", Value: status}, {Key: "epoch", Value: epoch}}, options.Replace().SetUpsert(true))
		return err
	}
	status := func(id string) string {
		var got struct{ Status string }
		require.NoError(t, c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&got))
		return got.Status
	}
	require.NoError(t, upsert("t1", 2, "open"))
	require.Equal(t, "open", status("t1"), "missing: inserted")
	require.NoError(t, upsert("t1", 2, "completed"))
	require.Equal(t, "completed", status("t1"), "same epoch: replaced")
	err := upsert("t1", 1, "open")
	require.True(t, mongo.IsDuplicateKeyError(err), "an older epoch meets the newer record: %v", err)
	require.Equal(t, "completed", status("t1"), "left as it is")
	require.NoError(t, upsert("t1", 3, "open"))
	require.Equal(t, "open", status("t1"), "a newer epoch: replaced")
}
