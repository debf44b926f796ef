package embedded_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

// The operations the store relies on, each against its own database.

func setup(t *testing.T) (context.Context, *mongo.Collection) {
	t.Helper()
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx, embedded.NewTestDatabase(t).Collection("c")
}

func TestOptimisticUpdate(t *testing.T) {
	ctx, c := setup(t)

	_, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: "i1"}, {Key: "seq", Value: 1}, {Key: "state", Value: "running"}, {Key: "n", Value: 0}})
	require.NoError(t, err)

	res, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "i1"}, {Key: "seq", Value: 1}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "waiting"}}}, {Key: "$inc", Value: bson.D{{Key: "seq", Value: 1}, {Key: "n", Value: 5}}}})
	require.NoError(t, err)
	require.EqualValues(t, 1, res.MatchedCount)
	require.EqualValues(t, 1, res.ModifiedCount)

	// A writer holding the stale seq loses.
	res, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: "i1"}, {Key: "seq", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "lost"}}}})
	require.NoError(t, err)
	require.EqualValues(t, 0, res.MatchedCount)

	var got struct {
		Seq   int    `bson:"seq"`
		State string `bson:"state"`
		N     int    `bson:"n"`
	}
	require.NoError(t, c.FindOne(ctx, bson.D{{Key: "_id", Value: "i1"}}).Decode(&got))
	require.Equal(t, 2, got.Seq)
	require.Equal(t, "waiting", got.State)
	require.Equal(t, 5, got.N)

	cur, err := c.Find(ctx, bson.D{{Key: "state", Value: "waiting"}})
	require.NoError(t, err)
	var all []bson.M
	require.NoError(t, cur.All(ctx, &all))
	require.Len(t, all, 1)
}

func TestInsertManyUnorderedWithDuplicates(t *testing.T) {
	ctx, c := setup(t)

	docs := []any{
		bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 3}},
	}
	_, err := c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	require.Error(t, err)
	require.True(t, mongo.IsDuplicateKeyError(err), "%v", err)
	var bwe mongo.BulkWriteException
	require.ErrorAs(t, err, &bwe)
	require.Len(t, bwe.WriteErrors, 1)
	require.Equal(t, 2, bwe.WriteErrors[0].Index)

	n, err := c.CountDocuments(ctx, bson.D{})
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "the other documents are inserted")
}

func TestUniqueCompoundIndex(t *testing.T) {
	ctx, c := setup(t)

	name, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "instance_id", Value: 1}, {Key: "seq", Value: 1}},
		Options: options.Index().SetUnique(true).SetName("instance_seq"),
	})
	require.NoError(t, err)
	require.Equal(t, "instance_seq", name)

	_, err = c.InsertOne(ctx, bson.D{{Key: "instance_id", Value: "a"}, {Key: "seq", Value: 1}})
	require.NoError(t, err)
	_, err = c.InsertOne(ctx, bson.D{{Key: "instance_id", Value: "a"}, {Key: "seq", Value: 2}})
	require.NoError(t, err)
	_, err = c.InsertOne(ctx, bson.D{{Key: "instance_id", Value: "b"}, {Key: "seq", Value: 1}})
	require.NoError(t, err)

	_, err = c.InsertOne(ctx, bson.D{{Key: "instance_id", Value: "a"}, {Key: "seq", Value: 1}})
	require.True(t, mongo.IsDuplicateKeyError(err), "%v", err)

	// Creating the same index again is a no-op.
	_, err = c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys:    bson.D{{Key: "instance_id", Value: 1}, {Key: "seq", Value: 1}},
		Options: options.Index().SetUnique(true).SetName("instance_seq"),
	})
	require.NoError(t, err)
}

func TestFindOneAndUpdateClaimsLease(t *testing.T) {
	ctx, c := setup(t)

	now := time.Now().UTC().Truncate(time.Millisecond)
	_, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "j1"}, {Key: "owner", Value: ""}, {Key: "due", Value: now.Add(-time.Minute)}},
		bson.D{{Key: "_id", Value: "j2"}, {Key: "owner", Value: ""}, {Key: "due", Value: now.Add(-2 * time.Minute)}},
		bson.D{{Key: "_id", Value: "j3"}, {Key: "owner", Value: ""}, {Key: "due", Value: now.Add(time.Hour)}},
	})
	require.NoError(t, err)

	claim := func(owner string) (bson.M, error) {
		var got bson.M
		err := c.FindOneAndUpdate(ctx,
			bson.D{{Key: "owner", Value: ""}, {Key: "due", Value: bson.D{{Key: "$lte", Value: now}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "owner", Value: owner}, {Key: "lease_until", Value: now.Add(30 * time.Second)}}}},
			options.FindOneAndUpdate().SetReturnDocument(options.After).SetSort(bson.D{{Key: "due", Value: 1}}),
		).Decode(&got)
		return got, err
	}

	got, err := claim("w1")
	require.NoError(t, err)
	require.Equal(t, "j2", got["_id"], "the earliest due job first")
	require.Equal(t, "w1", got["owner"], "the new document is returned")

	got, err = claim("w2")
	require.NoError(t, err)
	require.Equal(t, "j1", got["_id"])

	_, err = claim("w3")
	require.ErrorIs(t, err, mongo.ErrNoDocuments)
}

func TestUpsert(t *testing.T) {
	ctx, c := setup(t)

	filter := bson.D{{Key: "_id", Value: "p1"}}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "owner", Value: "r1"}}}, {Key: "$inc", Value: bson.D{{Key: "epoch", Value: 1}}}}
	res, err := c.UpdateOne(ctx, filter, update, options.UpdateOne().SetUpsert(true))
	require.NoError(t, err)
	require.Equal(t, "p1", res.UpsertedID)

	res, err = c.UpdateOne(ctx, filter, update, options.UpdateOne().SetUpsert(true))
	require.NoError(t, err)
	require.Nil(t, res.UpsertedID)
	require.EqualValues(t, 1, res.MatchedCount)

	var got struct{ Epoch int }
	require.NoError(t, c.FindOne(ctx, filter).Decode(&got))
	require.Equal(t, 2, got.Epoch)

	// Upsert through FindOneAndUpdate, as partition leasing does.
	var doc bson.M
	err = c.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: "p2"}}, update,
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&doc)
	require.NoError(t, err)
	require.Equal(t, "r1", doc["owner"])
}

func TestInQuerySortLimit(t *testing.T) {
	ctx, c := setup(t)

	var docs []any
	for i := range 10 {
		state := []string{"ready", "waiting", "done"}[i%3]
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "state", Value: state}, {Key: "prio", Value: i}})
	}
	_, err := c.InsertMany(ctx, docs)
	require.NoError(t, err)

	cur, err := c.Find(ctx, bson.D{{Key: "state", Value: bson.D{{Key: "$in", Value: bson.A{"ready", "waiting"}}}}},
		options.Find().SetSort(bson.D{{Key: "prio", Value: -1}}).SetLimit(3).SetProjection(bson.D{{Key: "prio", Value: 1}}))
	require.NoError(t, err)
	var got []struct {
		ID   int `bson:"_id"`
		Prio int `bson:"prio"`
	}
	require.NoError(t, cur.All(ctx, &got))
	require.Len(t, got, 3)
	require.Equal(t, []int{9, 7, 6}, []int{got[0].ID, got[1].ID, got[2].ID})
}

func TestLeaseExpiryQuery(t *testing.T) {
	ctx, c := setup(t)

	now := time.Now().UTC().Truncate(time.Millisecond)
	_, err := c.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "expired"}, {Key: "lease_until", Value: now.Add(-time.Second)}},
		bson.D{{Key: "_id", Value: "live"}, {Key: "lease_until", Value: now.Add(time.Minute)}},
		bson.D{{Key: "_id", Value: "free"}},
	})
	require.NoError(t, err)

	cur, err := c.Find(ctx, bson.D{{Key: "lease_until", Value: bson.D{{Key: "$lt", Value: now}}}})
	require.NoError(t, err)
	var got []bson.M
	require.NoError(t, cur.All(ctx, &got))
	require.Len(t, got, 1)
	require.Equal(t, "expired", got[0]["_id"])
	require.Equal(t, bson.NewDateTimeFromTime(now.Add(-time.Second)), got[0]["lease_until"], "millisecond precision kept")
}

func TestCountAndDrop(t *testing.T) {
	ctx, c := setup(t)

	_, err := c.InsertMany(ctx, []any{bson.D{{Key: "k", Value: 1}}, bson.D{{Key: "k", Value: 2}}, bson.D{{Key: "k", Value: 2}}})
	require.NoError(t, err)

	n, err := c.CountDocuments(ctx, bson.D{{Key: "k", Value: 2}})
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	n, err = c.EstimatedDocumentCount(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)

	del, err := c.DeleteMany(ctx, bson.D{{Key: "k", Value: 2}})
	require.NoError(t, err)
	require.EqualValues(t, 2, del.DeletedCount)

	require.NoError(t, c.Drop(ctx))
	names, err := c.Database().ListCollectionNames(ctx, bson.D{})
	require.NoError(t, err)
	require.NotContains(t, names, "c")
	require.NoError(t, c.Drop(ctx), "dropping a missing collection is not an error")
}

func TestNewTestDatabaseIsolates(t *testing.T) {
	t.Parallel()
	a, b := embedded.NewTestDatabase(t), embedded.NewTestDatabase(t)
	require.NotEqual(t, a.Name(), b.Name())

	ctx := t.Context()
	_, err := a.Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	require.NoError(t, err)
	err = b.Collection("c").FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err()
	require.True(t, errors.Is(err, mongo.ErrNoDocuments), "%v", err)
}
