package mongostore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// TestOpenLettersArePending: letters stored as open (or, older still, with
// no status) are pending once the store opens, and filter as such.
func TestOpenLettersArePending(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	_, err := db.Collection("dead_letters").InsertMany(ctx, []any{
		bson.D{{Key: "_id", Value: "dl-open"}, {Key: "instance_id", Value: "i-1"}, {Key: "status", Value: "open"}, {Key: "errors", Value: bson.A{"x"}}},
		bson.D{{Key: "_id", Value: "dl-none"}, {Key: "instance_id", Value: "i-1"}, {Key: "errors", Value: bson.A{"x"}}},
		bson.D{{Key: "_id", Value: "dl-done"}, {Key: "instance_id", Value: "i-1"}, {Key: "status", Value: "replayed"}, {Key: "errors", Value: bson.A{"x"}}},
	})
	require.NoError(t, err)
	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	pending, err := s.DeadLetters(ctx, engine.DeadLetterFilter{Status: []engine.DeadLetterStatus{engine.DeadLetterPending}})
	require.NoError(t, err)
	ids := []string{}
	for _, d := range pending {
		ids = append(ids, d.ID)
		require.Equal(t, engine.DeadLetterPending, d.Status)
	}
	require.Equal(t, []string{"dl-open", "dl-none"}, ids)
	d, err := s.DeadLetter(ctx, "dl-done")
	require.NoError(t, err)
	require.Equal(t, engine.DeadLetterReplayed, d.Status)
}
