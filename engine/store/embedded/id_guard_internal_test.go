package embedded

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// TestStoreGuardsEvaluatedByProxy: the guards mongostore's commits write,
// {_id, seq} and {_id, seq, $or: [epoch $lte, epoch $exists false]}, and
// its fenced dead-letter moves, {_id, status: {$in}, $or: [...]}, are ones
// the proxy evaluates itself (else every commit scans the collection).
func TestStoreGuardsEvaluatedByProxy(t *testing.T) {
	t.Parallel()
	fenced := bson.E{Key: "$or", Value: bson.A{
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: int64(4)}}}},
		bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
	}}
	move := bson.D{{Key: "status", Value: bson.D{{Key: "$in", Value: bson.A{"pending"}}}}, fenced}
	for _, tc := range []struct {
		doc   bson.D
		guard bson.D
		holds bool
	}{
		{bson.D{{Key: "_id", Value: "i"}, {Key: "seq", Value: int64(3)}}, bson.D{{Key: "seq", Value: int64(3)}}, true},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "seq", Value: int64(4)}}, bson.D{{Key: "seq", Value: int64(3)}}, false},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "seq", Value: int64(3)}}, bson.D{{Key: "seq", Value: int64(3)}, fenced}, true},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "seq", Value: int64(3)}, {Key: "epoch", Value: int64(4)}}, bson.D{{Key: "seq", Value: int64(3)}, fenced}, true},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "seq", Value: int64(3)}, {Key: "epoch", Value: int64(5)}}, bson.D{{Key: "seq", Value: int64(3)}, fenced}, false},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "status", Value: "pending"}}, move, true},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "status", Value: "pending"}, {Key: "epoch", Value: int64(4)}}, move, true},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "status", Value: "pending"}, {Key: "epoch", Value: int64(5)}}, move, false},
		{bson.D{{Key: "_id", Value: "i"}, {Key: "status", Value: "replaying"}, {Key: "epoch", Value: int64(4)}}, move, false},
	} {
		stmt, err := bson.Marshal(bson.D{{Key: "q", Value: append(bson.D{{Key: "_id", Value: "i"}}, tc.guard...)}, {Key: "u", Value: bson.D{}}})
		require.NoError(t, err)
		id, rest, ok := guardedByID(stmt)
		require.True(t, ok)
		require.Equal(t, "i", id)
		doc, err := bson.Marshal(tc.doc)
		require.NoError(t, err)
		holds, err := matches(bsoncore.Document(doc), rest)
		require.NoError(t, err, "guard %v", tc.guard)
		require.Equal(t, tc.holds, holds, "guard %v on %v", tc.guard, tc.doc)
	}
}
