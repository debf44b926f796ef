package embedded_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

// A typical event-log record: small, indexed by (instance_id, seq).
func benchEvent(i int) bson.M {
	return bson.M{"instance_id": "inst-1", "seq": i, "type": "token_moved", "element_id": "Task_1", "payload": bson.M{"x": i}}
}

func BenchmarkInsertOne(b *testing.B) {
	ctx := b.Context()
	c := embedded.NewTestDatabase(b).Collection("events")
	for i := 0; b.Loop(); i++ {
		_, err := c.InsertOne(ctx, benchEvent(i))
		require.NoError(b, err)
	}
}

func BenchmarkInsertMany100(b *testing.B) {
	ctx := b.Context()
	c := embedded.NewTestDatabase(b).Collection("events")
	docs := make([]any, 100)
	for i := 0; b.Loop(); i++ {
		for j := range docs {
			docs[j] = benchEvent(i*100 + j)
		}
		_, err := c.InsertMany(ctx, docs)
		require.NoError(b, err)
	}
}

// Only a filter that is exactly {_id: string or ObjectID} reaches SQLite as
// a WHERE clause; any other filter scans the collection, so these run over
// 1000 documents to show the difference.
func BenchmarkUpdateOne(b *testing.B) {
	const docs = 1000
	for _, bc := range []struct {
		name   string
		id     func(i int) any
		filter func(id any) bson.M
	}{
		{"string_id", func(i int) any { return fmt.Sprintf("inst-%d", i) }, func(id any) bson.M { return bson.M{"_id": id} }},
		{"int_id", func(i int) any { return i }, func(id any) bson.M { return bson.M{"_id": id} }},
		{"string_id_and_seq_guard", func(i int) any { return fmt.Sprintf("inst-%d", i) }, func(id any) bson.M { return bson.M{"_id": id, "state": "running"} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := b.Context()
			c := embedded.NewTestDatabase(b).Collection("instances")
			batch := make([]any, docs)
			for i := range batch {
				batch[i] = bson.M{"_id": bc.id(i), "seq": 0, "state": "running"}
			}
			_, err := c.InsertMany(ctx, batch)
			require.NoError(b, err)
			for i := 0; b.Loop(); i++ {
				res, err := c.UpdateOne(ctx, bc.filter(bc.id(i%docs)), bson.M{"$inc": bson.M{"seq": 1}})
				require.NoError(b, err)
				require.EqualValues(b, 1, res.MatchedCount)
			}
		})
	}
}
