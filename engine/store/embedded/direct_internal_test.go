package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// sjsonCorpus holds documents with every BSON type FerretDB stores, in the
// shapes the store writes and some it does not (HTML and control characters,
// extreme numbers, deep nesting, long documents).
func sjsonCorpus() []bson.D {
	oid := bson.NewObjectID()
	wide := bson.D{{Key: "_id", Value: "wide"}}
	for i := range 40 {
		wide = append(wide, bson.E{Key: fmt.Sprintf("f%02d", i), Value: int32(i)})
	}
	return []bson.D{
		{
			{Key: "_id", Value: "strings"},
			{Key: "plain", Value: "open"},
			{Key: "html", Value: "<a href=\"x\">&</a>"},
			{Key: "unicode", Value: "héllo ✓ \u2028 \u2029 😀"},
			{Key: "ctrl", Value: "tab\tnl\nnul\x00bs\bff\f\x01\x7f"},
			{Key: "quote", Value: `q"b\s/`},
			{Key: "empty", Value: ""},
		},
		{
			{Key: "_id", Value: oid},
			{Key: "i32", Value: int32(-5)},
			{Key: "i32max", Value: int32(math.MaxInt32)},
			{Key: "i64", Value: int64(1) << 60},
			{Key: "i64min", Value: int64(math.MinInt64)},
			{Key: "dbl", Value: 3.25},
			{Key: "whole", Value: 2.0},
			{Key: "big", Value: 1e21},
			{Key: "bigger", Value: 1.5e300},
			{Key: "small", Value: 1e-7},
			{Key: "tiny", Value: 5e-324},
			{Key: "neg", Value: -0.5},
			{Key: "zero", Value: 0.0},
			{Key: "t", Value: true},
			{Key: "f", Value: false},
			{Key: "null", Value: nil},
		},
		{
			{Key: "_id", Value: "times"},
			{Key: "date", Value: time.Date(2026, 11, 26, 6, 7, 8, 9_000_000, time.UTC)},
			{Key: "old", Value: time.Date(1901, 2, 3, 4, 5, 6, 0, time.UTC)},
			{Key: "ts", Value: bson.Timestamp{T: 1_700_000_000, I: 7}},
			{Key: "bin", Value: bson.Binary{Subtype: 0, Data: []byte("any \x00 bytes")}},
			{Key: "uuid", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}},
			{Key: "emptyBin", Value: bson.Binary{Subtype: 0x80, Data: []byte{}}},
			{Key: "re", Value: bson.Regex{Pattern: "^a.*<b>$", Options: "im"}},
			{Key: "oid", Value: oid},
		},
		{
			{Key: "_id", Value: "nested"},
			{Key: "deep", Value: bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: bson.D{{Key: "c", Value: int32(1)}}}}}}},
			{Key: "arr", Value: bson.A{int32(1), "x", bson.D{{Key: "k", Value: bson.A{int64(1), 2.5}}}, nil, true}},
			{Key: "emptyDoc", Value: bson.D{}},
			{Key: "emptyArr", Value: bson.A{}},
			{Key: "items", Value: bson.A{bson.D{{Key: "s", Value: "open"}}, bson.D{{Key: "s", Value: "done"}, {Key: "v", Value: int32(2)}}}},
			{Key: "inner_id", Value: bson.D{{Key: "_id", Value: int32(3)}, {Key: "n", Value: "no _id rules below the top"}}},
		},
		wide,
	}
}

// TestSJSONMatchesFerretDB: appendSJSON writes each document byte for byte
// as FerretDB v1.24 does, at insert and at replace.
func TestSJSONMatchesFerretDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{ferretWrites: true})
	coll := client.Database("sjson").Collection("docs")
	corpus := sjsonCorpus()
	for _, doc := range corpus {
		_, err := coll.InsertOne(ctx, doc)
		require.NoError(t, err)
	}
	stored := storedSJSON(t, srv, "sjson", "docs")
	for _, doc := range corpus {
		raw, err := bson.Marshal(doc)
		require.NoError(t, err)
		enc, ok := appendSJSON(nil, raw)
		require.True(t, ok, "appendSJSON refused %v", doc)
		id, _ := appendValue(nil, bsoncore.Document(raw).Index(0).Value())
		require.Equal(t, stored[string(id)], string(enc), "document %s", id)
	}

	// A replacement without its _id is stored with it first.
	u := bson.D{{Key: "status", Value: "done"}, {Key: "n", Value: int32(2)}}
	_, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "strings"}}, u)
	require.NoError(t, err)
	raw, err := bson.Marshal(u)
	require.NoError(t, err)
	doc, ok := replacement(bsoncore.Value{Type: bsoncore.TypeString, Data: bsoncore.AppendString(nil, "strings")}, raw)
	require.True(t, ok)
	enc, ok := appendSJSON(nil, doc)
	require.True(t, ok)
	require.Equal(t, storedSJSON(t, srv, "sjson", "docs")[`"strings"`], string(enc))
}

// TestSJSONRefuses: documents FerretDB would change or refuse, or that
// appendSJSON does not reproduce, are left to FerretDB.
func TestSJSONRefuses(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]bson.D{
		"no _id":          {{Key: "a", Value: int32(1)}},
		"_id not first":   {{Key: "a", Value: int32(1)}, {Key: "_id", Value: "x"}},
		"int _id":         {{Key: "_id", Value: int32(1)}},
		"operator name":   {{Key: "_id", Value: "x"}, {Key: "$set", Value: int32(1)}},
		"dotted name":     {{Key: "_id", Value: "x"}, {Key: "a.b", Value: int32(1)}},
		"escaped name":    {{Key: "_id", Value: "x"}, {Key: `a"b`, Value: int32(1)}},
		"non-ASCII name":  {{Key: "_id", Value: "x"}, {Key: "é", Value: int32(1)}},
		"empty name":      {{Key: "_id", Value: "x"}, {Key: "", Value: int32(1)}},
		"twice":           {{Key: "_id", Value: "x"}, {Key: "a", Value: int32(1)}, {Key: "a", Value: int32(2)}},
		"nested twice":    {{Key: "_id", Value: "x"}, {Key: "d", Value: bson.D{{Key: "a", Value: int32(1)}, {Key: "a", Value: int32(2)}}}},
		"nested array":    {{Key: "_id", Value: "x"}, {Key: "a", Value: bson.A{bson.A{int32(1)}}}},
		"NaN":             {{Key: "_id", Value: "x"}, {Key: "f", Value: math.NaN()}},
		"infinity":        {{Key: "_id", Value: "x"}, {Key: "f", Value: math.Inf(1)}},
		"negative zero":   {{Key: "_id", Value: "x"}, {Key: "f", Value: math.Copysign(0, -1)}},
		"decimal":         {{Key: "_id", Value: "x"}, {Key: "d", Value: bson.NewDecimal128(1, 1)}},
		"old binary":      {{Key: "_id", Value: "x"}, {Key: "b", Value: bson.Binary{Subtype: 2, Data: []byte("ab")}}},
		"javascript":      {{Key: "_id", Value: "x"}, {Key: "js", Value: bson.JavaScript("1")}},
		"invalid UTF-8":   {{Key: "_id", Value: "x"}, {Key: "s", Value: "a\xffb"}},
		"nested operator": {{Key: "_id", Value: "x"}, {Key: "d", Value: bson.D{{Key: "$x", Value: int32(1)}}}},
	} {
		raw, err := bson.Marshal(doc)
		require.NoError(t, err, name)
		_, ok := appendSJSON(nil, raw)
		require.False(t, ok, name)
	}
}

// TestDirectWrites: inserts and replacements by _id run on SQLite directly
// and answer as FerretDB does; what FerretDB reads back is what was written.
func TestDirectWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	coll := client.Database("direct").Collection("docs")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "first"}}) // FerretDB creates the collection
	require.NoError(t, err)
	before := srv.proxy.direct.commands.Load()

	corpus := sjsonCorpus()
	docs := make([]any, len(corpus))
	for i, d := range corpus {
		docs[i] = d
	}
	_, err = coll.InsertMany(ctx, docs)
	require.NoError(t, err)
	for _, want := range corpus {
		requireStored(t, coll, want)
	}

	u := bson.D{{Key: "_id", Value: "nested"}, {Key: "status", Value: "done"}}
	res, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "nested"}}, u)
	require.NoError(t, err)
	require.Equal(t, [2]int64{1, 1}, [2]int64{res.MatchedCount, res.ModifiedCount})
	requireStored(t, coll, u)
	res, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "nested"}}, bson.D{{Key: "status", Value: "done"}})
	require.NoError(t, err)
	require.Equal(t, [2]int64{1, 0}, [2]int64{res.MatchedCount, res.ModifiedCount}, "the same document again")
	res, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "missing"}}, bson.D{{Key: "a", Value: int32(1)}})
	require.NoError(t, err)
	require.Equal(t, [3]int64{0, 0, 0}, [3]int64{res.MatchedCount, res.ModifiedCount, res.UpsertedCount})
	res, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "up"}}, bson.D{{Key: "a", Value: int32(1)}}, options.Replace().SetUpsert(true))
	require.NoError(t, err)
	require.Equal(t, [3]int64{0, 0, 1}, [3]int64{res.MatchedCount, res.ModifiedCount, res.UpsertedCount})
	require.Equal(t, "up", res.UpsertedID)
	requireStored(t, coll, bson.D{{Key: "_id", Value: "up"}, {Key: "a", Value: int32(1)}})

	// Several statements in one command: in order, in one transaction.
	bw, err := coll.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: "up"}}).SetReplacement(bson.D{{Key: "a", Value: int32(2)}}),
		mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: "up"}}).SetReplacement(bson.D{{Key: "a", Value: int32(3)}}),
		mongo.NewReplaceOneModel().SetFilter(bson.D{{Key: "_id", Value: "up2"}}).SetReplacement(bson.D{{Key: "b", Value: true}}).SetUpsert(true),
	}, options.BulkWrite().SetOrdered(false))
	require.NoError(t, err)
	require.Equal(t, [3]int64{2, 2, 1}, [3]int64{bw.MatchedCount, bw.ModifiedCount, bw.UpsertedCount})
	require.Equal(t, map[int64]any{2: "up2"}, bw.UpsertedIDs)
	requireStored(t, coll, bson.D{{Key: "_id", Value: "up"}, {Key: "a", Value: int32(3)}})
	require.Equal(t, int64(6), srv.proxy.direct.commands.Load()-before, "the six commands above ran on the direct path")

	// What the direct path leaves to FerretDB still works as FerretDB does.
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "up"}})
	require.True(t, mongo.IsDuplicateKeyError(err), "a duplicate _id: %v", err)
	_, err = coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "new1"}}, bson.D{{Key: "_id", Value: "up"}}, bson.D{{Key: "_id", Value: "new2"}}},
		options.InsertMany().SetOrdered(false))
	require.True(t, mongo.IsDuplicateKeyError(err), "%v", err)
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{"new1", "new2"}}}}})
	require.NoError(t, err)
	require.Equal(t, int64(2), n, "unordered: the others are inserted")
	_, err = coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "up"}}, bson.D{{Key: "_id", Value: "other"}})
	require.ErrorContains(t, err, "immutable field '_id'")
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "bad"}, {Key: "a.b", Value: int32(1)}})
	require.Error(t, err, "FerretDB refuses a dotted name")
	_, err = coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "up"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "a", Value: int32(1)}}}})
	require.NoError(t, err)
	requireStored(t, coll, bson.D{{Key: "_id", Value: "up"}, {Key: "a", Value: int32(4)}})
}

// TestDirectWritesFollowDroppedDatabase: a database dropped and created
// again is a new file; writes go to it, not to the removed one.
func TestDirectWritesFollowDroppedDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	db := client.Database("again")
	for round := range 3 {
		coll := db.Collection("docs")
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "seed"}})
		require.NoError(t, err)
		before := srv.proxy.direct.commands.Load()
		want := bson.D{{Key: "_id", Value: "doc"}, {Key: "round", Value: int32(round)}}
		_, err = coll.InsertOne(ctx, want)
		require.NoError(t, err)
		require.Equal(t, before+1, srv.proxy.direct.commands.Load())
		requireStored(t, coll, want)
		require.NoError(t, db.Drop(ctx))
	}
}

func startForTest(t *testing.T, cfg Config) (*Server, *mongo.Client) {
	t.Helper()
	cfg.DataDir = t.TempDir()
	srv, err := Start(context.Background(), cfg)
	require.NoError(t, err)
	client, err := mongo.Connect(options.Client().ApplyURI(srv.URI()))
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, client.Disconnect(context.Background()))
		require.NoError(t, srv.Close(context.Background()))
	})
	return srv, client
}

// storedSJSON reads the documents of db.coll as SQLite holds them, by their
// _id as JSON.
func storedSJSON(t *testing.T, srv *Server, db, coll string) map[string]string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+filepath.Join(srv.DataDir(), db+".sqlite")+"?mode=ro")
	require.NoError(t, err)
	defer conn.Close()
	var table string
	require.NoError(t, conn.QueryRow(`SELECT table_name FROM "_ferretdb_collections" WHERE name = ?`, coll).Scan(&table))
	rows, err := conn.Query(fmt.Sprintf(`SELECT _ferretdb_sjson->'$._id', _ferretdb_sjson FROM %q`, table))
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, doc string
		require.NoError(t, rows.Scan(&id, &doc))
		out[id] = doc
	}
	require.NoError(t, rows.Err())
	return out
}

// requireStored reads want's document back through FerretDB and compares it
// field by field, in order.
func requireStored(t *testing.T, coll *mongo.Collection, want bson.D) {
	t.Helper()
	var got bson.Raw
	require.NoError(t, coll.FindOne(context.Background(), viaFerretDB(want[0].Value)).Decode(&got))
	raw, err := bson.Marshal(want)
	require.NoError(t, err)
	require.Equal(t, bson.Raw(raw).String(), got.String())
	require.True(t, strings.HasPrefix(got.String(), `{"_id"`))
}

// TestDirectGuardFields: the fields a guard reads from SQLite are the
// values FerretDB sends for them; fields of other types are left to FerretDB.
func TestDirectGuardFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	coll := client.Database("guards").Collection("docs")
	read := 0
	for i, doc := range sjsonCorpus() {
		id := fmt.Sprint("doc", i) // guards name string ids
		doc[0].Value = id
		_, err := coll.InsertOne(ctx, doc)
		require.NoError(t, err)
		var stored bson.Raw
		require.NoError(t, coll.FindOne(ctx, viaFerretDB(id)).Decode(&stored))
		elems, err := stored.Elements()
		require.NoError(t, err)
		for _, e := range elems[1:] {
			got, err := srv.proxy.direct.fields("guards", "docs", id, []string{e.Key(), "missing"})
			switch e.Value().Type {
			case bson.TypeEmbeddedDocument, bson.TypeArray, bson.TypeBinary, bson.TypeRegex, bson.TypeTimestamp:
				require.ErrorIs(t, err, errUnsupported, "%s.%s", id, e.Key())
				continue
			}
			require.NoError(t, err, "%s.%s", id, e.Key())
			want := bsoncore.NewDocumentBuilder().AppendValue(e.Key(), bsoncore.Value{Type: bsoncore.Type(e.Value().Type), Data: e.Value().Value}).Build()
			require.Equal(t, want.String(), got.String(), "%s.%s", id, e.Key())
			read++
		}
	}
	require.Greater(t, read, 20)
	doc, err := srv.proxy.direct.fields("guards", "docs", "no such document", []string{"seq"})
	require.NoError(t, err)
	require.Nil(t, doc)
}

// TestDirectWritesLeaveCappedToFerretDB: a collection dropped and created
// again as capped is FerretDB's to write (it numbers a capped collection's
// records).
func TestDirectWritesLeaveCappedToFerretDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	db := client.Database("capped")
	coll := db.Collection("docs")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "seed"}})
	require.NoError(t, err)
	_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "direct"}})
	require.NoError(t, err)
	direct := srv.proxy.direct.commands.Load()
	require.Positive(t, direct, "an uncapped collection is written directly")

	require.NoError(t, coll.Drop(ctx))
	require.NoError(t, db.CreateCollection(ctx, "docs", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<20)))
	for i := range 3 {
		_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprint("capped", i)}})
		require.NoError(t, err)
	}
	require.Equal(t, direct, srv.proxy.direct.commands.Load(), "nothing written directly to the capped collection")
	n, err := coll.CountDocuments(ctx, bson.D{})
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
}

// TestDirectGroupCommit: commands that wait for a database's write lock
// are written together, in one SQLite transaction; one that fails there (a
// duplicate _id) is undone alone and answered by FerretDB, and the others
// of its group are stored.
func TestDirectGroupCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	coll := client.Database("group").Collection("docs")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "taken"}}) // FerretDB creates the collection
	require.NoError(t, err)
	commands, commits := srv.proxy.direct.commands.Load(), srv.proxy.direct.commits.Load()

	const writers, each = 16, 40
	var wg sync.WaitGroup
	dups := make([]error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("w%d-%d", w, i)}, {Key: "n", Value: int32(i)}})
				require.NoError(t, err)
				if i == each/2 {
					_, dups[w] = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "taken"}})
				}
			}
		})
	}
	wg.Wait()
	for _, err := range dups {
		require.True(t, mongo.IsDuplicateKeyError(err), "FerretDB's answer to a duplicate _id: %v", err)
	}
	n, err := coll.CountDocuments(ctx, bson.D{})
	require.NoError(t, err)
	require.EqualValues(t, writers*each+1, n)
	requireStored(t, coll, bson.D{{Key: "_id", Value: "w3-7"}, {Key: "n", Value: int32(7)}})
	written := srv.proxy.direct.commands.Load() - commands
	require.EqualValues(t, writers*each, written, "every insert but the duplicates ran on the direct path")
	grouped := srv.proxy.direct.commits.Load() - commits
	require.Less(t, grouped, written, "commands waiting for the lock share commits")
	t.Logf("%d commands in %d commits", written, grouped)
}

// TestGuardedUpsertsRunDirect: a guarded upsert whose document is missing
// or whose guard holds runs on the direct path, by _id; one whose stored
// document is newer is left to FerretDB (its duplicate _id answer).
func TestGuardedUpsertsRunDirect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, client := startForTest(t, Config{})
	coll := client.Database("fenced").Collection("tasks")
	_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "first"}}) // FerretDB creates the collection
	require.NoError(t, err)
	upsert := func(epoch int64) error {
		_, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "t1"}, {Key: "$or", Value: bson.A{
			bson.D{{Key: "epoch", Value: bson.D{{Key: "$lte", Value: epoch}}}},
			bson.D{{Key: "epoch", Value: bson.D{{Key: "$exists", Value: false}}}},
		}}}, bson.D{{Key: "epoch", Value: epoch}}, options.Replace().SetUpsert(true))
		return err
	}
	before := srv.proxy.direct.commands.Load()
	require.NoError(t, upsert(2)) // missing: inserted
	require.NoError(t, upsert(2)) // the guard holds: replaced
	require.Equal(t, before+2, srv.proxy.direct.commands.Load(), "both ran on the direct path")
	require.True(t, mongo.IsDuplicateKeyError(upsert(1)))
	require.Equal(t, before+2, srv.proxy.direct.commands.Load(), "the stale one went to FerretDB")
	requireStored(t, coll, bson.D{{Key: "_id", Value: "t1"}, {Key: "epoch", Value: int64(2)}})
}
