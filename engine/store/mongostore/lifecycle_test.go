package mongostore_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// TestLifecycleMigration: versions stored before statuses are active, and a
// head stored before default versions has its latest as the default, as
// starts without a version behaved then; a key stored before heads too.
func TestLifecycleMigration(t *testing.T) {
	ctx := t.Context()
	db := embedded.NewTestDatabase(t)
	old := func(key string, version int) bson.D {
		return bson.D{
			{Key: "_id", Value: engine.DefinitionID(key, version)},
			{Key: "key", Value: key},
			{Key: "version", Value: version},
			{Key: "checksum", Value: key + string(rune('a'+version))},
			{Key: "source", Value: []byte("<bpmn/>")},
			{Key: "enabled", Value: true},
		}
	}
	for _, d := range []bson.D{old("order", 1), old("order", 2), old("invoice", 1)} {
		_, err := db.Collection("definitions").InsertOne(ctx, d)
		require.NoError(t, err)
	}
	_, err := db.Collection("definition_heads").InsertOne(ctx, bson.D{{Key: "_id", Value: "order"}, {Key: "version", Value: 2}})
	require.NoError(t, err)

	s, err := mongostore.New(ctx, db, mongostore.Config{})
	require.NoError(t, err)
	rec, err := s.Definition(ctx, "order", 1)
	require.NoError(t, err)
	require.Equal(t, engine.VersionActive, rec.Status)
	h, err := s.DefinitionHead(ctx, "order")
	require.NoError(t, err)
	require.Equal(t, 2, h.Default)
	h, err = s.DefinitionHead(ctx, "invoice") // no head at all
	require.NoError(t, err)
	require.Equal(t, 1, h.Default)
	require.Equal(t, 1, h.Latest)

	_, err = mongostore.New(ctx, db, mongostore.Config{}) // again: nothing changes
	require.NoError(t, err)
	h, err = s.DefinitionHead(ctx, "order")
	require.NoError(t, err)
	require.Equal(t, 2, h.Default)
}
