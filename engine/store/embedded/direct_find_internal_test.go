package embedded

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// viaFerretDB finds the document of this _id by a filter the direct read
// path leaves to FerretDB.
func viaFerretDB(id any) bson.D {
	return bson.D{{Key: "_id", Value: bson.D{{Key: "$eq", Value: id}}}}
}

// TestDirectFindMatchesFerretDB: a find by string _id is answered from
// SQLite with the very bytes FerretDB sends, for every type it stores,
// whether FerretDB or the direct path wrote the document.
func TestDirectFindMatchesFerretDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	coll := client.Database("finds").Collection("docs")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "first"}}) // FerretDB creates the collection
	require.NoError(t, err)
	var ids []string
	for i, doc := range sjsonCorpus() {
		doc[0].Value = fmt.Sprint("doc", i)
		ids = append(ids, fmt.Sprint(doc[0].Value))
		_, err := coll.InsertOne(ctx, doc) // the direct path
		require.NoError(t, err)
		id := fmt.Sprint("ferret", i)
		ids = append(ids, id)
		_, err = coll.InsertOne(ctx, append(doc[1:], bson.E{Key: "_id", Value: id})) // _id last: FerretDB writes it
		require.NoError(t, err)
	}

	require.Len(t, storedSJSON(t, srv, "finds", "docs"), len(ids)+1)
	before := srv.proxy.reader.finds.Load()
	for _, id := range ids {
		var direct, ferret bson.Raw
		require.NoError(t, coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&direct), id)
		require.NoError(t, coll.FindOne(ctx, viaFerretDB(id)).Decode(&ferret), id)
		require.Equal(t, ferret.String(), direct.String(), id)
		require.Equal(t, []byte(ferret), []byte(direct), id)
	}
	err = coll.FindOne(ctx, bson.D{{Key: "_id", Value: "missing"}}).Err()
	require.ErrorIs(t, err, mongo.ErrNoDocuments)
	require.Equal(t, int64(len(ids)+1), srv.proxy.reader.finds.Load()-before, "each find by _id above was answered directly")

	// A document read before and changed since is read as it is now.
	for i, update := range []bson.D{
		{{Key: "$set", Value: bson.D{{Key: "plain", Value: "changed"}}}}, // by FerretDB
		{{Key: "plain", Value: "replaced"}},                              // by the direct path
	} {
		if i == 0 {
			_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: ids[0]}}, update)
		} else {
			_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: ids[0]}}, update)
		}
		require.NoError(t, err)
		var got struct{ Plain string }
		require.NoError(t, coll.FindOne(ctx, bson.D{{Key: "_id", Value: ids[0]}}).Decode(&got))
		require.Equal(t, []string{"changed", "replaced"}[i], got.Plain)
	}
}

// TestDirectFindLeavesOthersToFerretDB: finds this path does not take
// (other filters, projections, an ObjectID _id, a collection FerretDB does
// not know) are answered by FerretDB, as before.
func TestDirectFindLeavesOthersToFerretDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	coll := client.Database("finds").Collection("docs")
	oid := bson.NewObjectID()
	_, err := coll.InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "a"}, {Key: "n", Value: int32(1)}, {Key: "s", Value: "x"}},
		bson.D{{Key: "_id", Value: oid}, {Key: "n", Value: int32(2)}},
	})
	require.NoError(t, err)

	find := func(filter bson.D, opts ...options.Lister[options.FindOneOptions]) bson.M {
		t.Helper()
		var got bson.M
		require.NoError(t, coll.FindOne(ctx, filter, opts...).Decode(&got))
		return got
	}
	before := srv.proxy.reader.finds.Load()
	got := find(bson.D{{Key: "_id", Value: "a"}}, options.FindOne().SetProjection(bson.D{{Key: "n", Value: 1}}))
	require.Equal(t, bson.M{"_id": "a", "n": int32(1)}, got, "the projection applies")
	require.Equal(t, bson.M{"_id": oid, "n": int32(2)}, find(bson.D{{Key: "_id", Value: oid}}))
	require.Equal(t, int32(1), find(bson.D{{Key: "_id", Value: "a"}, {Key: "n", Value: int32(1)}})["n"])
	err = coll.FindOne(ctx, bson.D{{Key: "_id", Value: "a"}, {Key: "n", Value: int32(2)}}).Err()
	require.ErrorIs(t, err, mongo.ErrNoDocuments, "the rest of the filter applies")
	err = client.Database("finds").Collection("nothing").FindOne(ctx, bson.D{{Key: "_id", Value: "a"}}).Err()
	require.ErrorIs(t, err, mongo.ErrNoDocuments)
	err = client.Database("none").Collection("docs").FindOne(ctx, bson.D{{Key: "_id", Value: "a"}}).Err()
	require.ErrorIs(t, err, mongo.ErrNoDocuments)
	require.Equal(t, int64(0), srv.proxy.reader.finds.Load()-before, "none was answered directly")

	// A document replaced, then dropped with its database, is read as it is now.
	_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "a"}}, bson.D{{Key: "n", Value: int32(3)}})
	require.NoError(t, err)
	require.Equal(t, bson.M{"_id": "a", "n": int32(3)}, find(bson.D{{Key: "_id", Value: "a"}}))
	require.NoError(t, client.Database("finds").Drop(ctx))
	err = coll.FindOne(ctx, bson.D{{Key: "_id", Value: "a"}}).Err()
	require.ErrorIs(t, err, mongo.ErrNoDocuments, "dropped")
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "a"}, {Key: "n", Value: int32(4)}})
	require.NoError(t, err)
	require.Equal(t, bson.M{"_id": "a", "n": int32(4)}, find(bson.D{{Key: "_id", Value: "a"}}), "created again")
	require.Equal(t, int64(2), srv.proxy.reader.finds.Load()-before, "the finds by _id of an existing collection")
}
