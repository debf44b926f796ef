package embedded_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/workflowpp/wfpp/engine/store/embedded"
)

// TestIndexByID: after IndexByID, SQLite answers FerretDB's lookups by _id
// from an index instead of scanning the table, and documents still read,
// update and stay unique as before.
func TestIndexByID(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv, err := embedded.Start(t.Context(), embedded.Config{DataDir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close(t.Context()) })
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Disconnect(t.Context()) })
	coll := client.Database("idx").Collection("docs")
	for i := range 50 {
		_, err := coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: fmt.Sprint("d", i)}, {Key: "n", Value: i}})
		require.NoError(t, err)
	}

	// plan returns how SQLite runs FerretDB's lookup by _id, and how many
	// indexes the collection's table has.
	plan := func() (string, int) {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "idx.sqlite"))
		require.NoError(t, err)
		defer db.Close()
		var table string
		require.NoError(t, db.QueryRow(`SELECT table_name FROM _ferretdb_collections WHERE name = 'docs'`).Scan(&table))
		var a, b, c, n int
		var detail string
		require.NoError(t, db.QueryRow(fmt.Sprintf(`EXPLAIN QUERY PLAN SELECT 1 FROM %q WHERE _ferretdb_sjson->'$._id' = ?`, table), `"d7"`).Scan(&a, &b, &c, &detail))
		require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`, table).Scan(&n))
		return detail, n
	}
	detail, _ := plan()
	require.True(t, strings.HasPrefix(detail, "SCAN"), "FerretDB's own _id index does not serve its lookups: %s", detail)
	require.NoError(t, srv.IndexByID(t.Context(), "idx"))
	require.NoError(t, srv.IndexByID(t.Context(), "idx"), "idempotent")
	detail, indexes := plan()
	require.True(t, strings.HasPrefix(detail, "SEARCH"), "the lookup uses the index: %s", detail)
	require.Equal(t, 1, indexes, "the _id index is replaced, not doubled")
	specs, err := coll.Indexes().ListSpecifications(t.Context())
	require.NoError(t, err)
	require.Len(t, specs, 1)
	require.Equal(t, "_id_", specs[0].Name, "FerretDB still knows its index")

	res, err := coll.UpdateOne(t.Context(), bson.D{{Key: "_id", Value: "d7"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: 700}}}})
	require.NoError(t, err)
	require.EqualValues(t, 1, res.ModifiedCount)
	var got struct{ N int }
	require.NoError(t, coll.FindOne(t.Context(), bson.D{{Key: "_id", Value: "d7"}}).Decode(&got))
	require.Equal(t, 700, got.N)
	_, err = coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: "d7"}})
	require.True(t, mongo.IsDuplicateKeyError(err), "uniqueness still holds: %v", err)
}
