package mongostore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// TestStepCacheSweep: the embedded FerretDB has no TTL index, so storing
// an entry drops those that expired by then; live ones stay.
func TestStepCacheSweep(t *testing.T) {
	t.Parallel()
	db := embedded.NewTestDatabase(t)
	s, err := mongostore.New(t.Context(), db, mongostore.Config{})
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	put := func(key string, created time.Time, ttl time.Duration) {
		require.NoError(t, s.PutCacheEntry(t.Context(), engine.CacheEntry{
			Key: key, Scope: "global", Value: []byte(`{}`), Created: created, Expires: created.Add(ttl),
		}))
	}
	put("global:t:short", at, time.Minute)
	put("global:t:long", at, time.Hour)
	put("global:t:later", at.Add(2*time.Minute), time.Minute)

	n, err := db.Collection("step_cache").CountDocuments(t.Context(), bson.D{})
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "the short entry had expired when the later one was stored")
}
