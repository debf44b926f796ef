package embedded_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// FerretDB v1 alone runs an update as a read, a filter in Go, then a write by
// _id, with nothing holding the document in between: without the
// writeSerializer, 2-8 of 16 racing guarded updates won and 80 increments left
// a counter at 6-16. These tests pin the atomicity the store relies on.

const racers = 16

func race(t *testing.T, do func(ctx context.Context, i int)) {
	t.Helper()
	ctx := t.Context()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			<-start
			do(ctx, i)
		})
	}
	close(start)
	wg.Wait()
}

func TestConcurrentGuardedUpdatesOneWins(t *testing.T) {
	ctx, c := setup(t)
	_, err := c.InsertOne(ctx, bson.M{"_id": "i1", "seq": 1})
	require.NoError(t, err)

	var winners atomic.Int64
	race(t, func(ctx context.Context, _ int) {
		res, err := c.UpdateOne(ctx, bson.M{"_id": "i1", "seq": 1}, bson.M{"$inc": bson.M{"seq": 1}})
		require.NoError(t, err)
		winners.Add(res.MatchedCount)
	})
	require.EqualValues(t, 1, winners.Load(), "writers holding the same seq that won")
}

func TestConcurrentClaimsOneWins(t *testing.T) {
	ctx, c := setup(t)
	_, err := c.InsertOne(ctx, bson.M{"_id": "j1", "owner": ""})
	require.NoError(t, err)

	var winners atomic.Int64
	race(t, func(ctx context.Context, i int) {
		err := c.FindOneAndUpdate(ctx, bson.M{"owner": ""}, bson.M{"$set": bson.M{"owner": i}},
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Err()
		if err == nil {
			winners.Add(1)
			return
		}
		require.ErrorIs(t, err, mongo.ErrNoDocuments)
	})
	require.EqualValues(t, 1, winners.Load(), "claimers that got the job")
}

func TestConcurrentIncrementsAddUp(t *testing.T) {
	ctx, c := setup(t)
	_, err := c.InsertOne(ctx, bson.M{"_id": "n", "n": 0})
	require.NoError(t, err)

	race(t, func(ctx context.Context, _ int) {
		for range 5 {
			_, err := c.UpdateOne(ctx, bson.M{"_id": "n"}, bson.M{"$inc": bson.M{"n": 1}})
			require.NoError(t, err)
		}
	})
	var got struct{ N int }
	require.NoError(t, c.FindOne(ctx, bson.M{"_id": "n"}).Decode(&got))
	require.Equal(t, racers*5, got.N)
}

func TestConcurrentUniqueInsertsOneWins(t *testing.T) {
	ctx, c := setup(t)
	_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{
		Keys: bson.D{{Key: "instance_id", Value: 1}, {Key: "seq", Value: 1}}, Options: options.Index().SetUnique(true),
	})
	require.NoError(t, err)

	var winners atomic.Int64
	race(t, func(ctx context.Context, i int) {
		_, err := c.InsertOne(ctx, bson.M{"instance_id": "a", "seq": 7, "by": i})
		if err == nil {
			winners.Add(1)
			return
		}
		require.True(t, mongo.IsDuplicateKeyError(err), "%v", err)
	})
	require.EqualValues(t, 1, winners.Load(), "the unique index is enforced by SQLite, so exactly one insert wins")
}
