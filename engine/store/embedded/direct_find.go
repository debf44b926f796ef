package embedded

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// directReader answers a find of one document by string _id, such as the
// store's FindOne of a definition, its head or an instance, from SQLite
// itself. FerretDB answers it through a second connection, converts the
// stored sjson into its own types and then into BSON: on the store server
// that was about a quarter of its work per started instance (two such
// reads), and a replica waits for it on every start. Reads take no lock, as
// FerretDB's do: SQLite gives each the last committed state.
//
// Any other find (another filter, a projection, a sort, a skip, options this
// path does not know), a document of a type it does not rebuild, a database
// or collection not known yet and any SQLite error go to FerretDB.
type directReader struct {
	files *directDBs // read-only pools

	// rebuilt keeps the BSON of documents read lately, by database, table
	// and _id, with the sjson it was rebuilt from: definitions and their
	// heads, read at every start and seldom changed, are then not rebuilt
	// each time (a changed document's sjson differs, and is rebuilt).
	rebuiltMu sync.Mutex
	rebuilt   map[string]rebuiltDoc

	finds atomic.Int64 // answered here, not by FerretDB: tests look
}

// rebuiltDoc is a document's sjson and the BSON rebuilt from it.
type rebuiltDoc struct {
	sjson string
	doc   bsoncore.Document
}

const (
	// readConns is how many reads of one database run at once.
	readConns = 4
	// rebuiltMax is how many documents directReader.rebuilt keeps; when
	// full it starts again empty.
	rebuiltMax = 512
)

func newDirectReader(dir string, logger *slog.Logger) *directReader {
	return &directReader{files: newDirectDBs(dir, "reads", readConns, logger, "query_only(1)"), rebuilt: make(map[string]rebuiltDoc)}
}

// findFields are the fields of a find command this path knows: a find by
// _id returns one document or none whatever its limit, batch size (but 0)
// or single batch.
var findFields = map[string]bool{
	"find": true, "filter": true, "limit": true, "singleBatch": true, "batchSize": true,
	"lsid": true, "$db": true, "$readPreference": true, "maxTimeMS": true,
}

// find answers req if it is a find this path takes.
func (r *directReader) find(req []byte) (reply []byte, ok bool) {
	msg, ok := parseMsg(req)
	if !ok || msg.flags != 0 || len(msg.sequences) > 0 {
		return nil, false
	}
	first, err := msg.body.IndexErr(0)
	if err != nil || first.Key() != "find" {
		return nil, false
	}
	coll, ok := first.Value().StringValueOK()
	db, dbOK := msg.body.Lookup("$db").StringValueOK()
	if !ok || !dbOK {
		return nil, false
	}
	id, ok := findByID(msg.body)
	if !ok {
		return nil, false
	}
	d := r.files.open(db)
	if d == nil {
		return nil, false
	}
	doc, err := r.document(d, db, coll, id)
	if err != nil {
		if !errors.Is(err, errNotDirect) && !errors.Is(err, errUnsupported) {
			r.files.logger.Debug("embedded: direct find handed to FerretDB", slog.String("db", db),
				slog.String("collection", coll), slog.Any("error", err))
			d.mu.Lock()
			clear(d.tables) // the table may be gone
			d.mu.Unlock()
		}
		return nil, false
	}
	batch := bsoncore.NewArrayBuilder()
	if doc != nil {
		batch.AppendDocument(doc)
	}
	cursor := bsoncore.NewDocumentBuilder().
		AppendArray("firstBatch", batch.Build()).
		AppendInt64("id", 0).
		AppendString("ns", db+"."+coll).
		Build()
	r.finds.Add(1)
	return replyMsg(msg.header, bsoncore.NewDocumentBuilder().AppendDocument("cursor", cursor).AppendDouble("ok", 1).Build()), true
}

// findByID returns the _id of a find whose filter is exactly {_id: <string>}
// and whose other fields change nothing for one document.
func findByID(body bsoncore.Document) (string, bool) {
	elems, err := body.Elements()
	if err != nil {
		return "", false
	}
	for _, e := range elems {
		if !findFields[e.Key()] {
			return "", false
		}
	}
	if n, ok := body.Lookup("batchSize").AsInt64OK(); ok && n == 0 {
		return "", false // an empty first batch and an open cursor
	}
	filter, ok := body.Lookup("filter").DocumentOK()
	if !ok {
		return "", false
	}
	fields, err := filter.Elements()
	if err != nil || len(fields) != 1 || fields[0].Key() != "_id" {
		return "", false
	}
	return fields[0].Value().StringValueOK()
}

// document reads document id of coll of database db (open as d), nil when
// there is none.
func (r *directReader) document(d *directDB, db, coll, id string) (bsoncore.Document, error) {
	ctx := context.Background()
	table, err := d.table(ctx, d.conn, coll)
	if err != nil {
		return nil, err
	}
	key, ok := appendString(nil, id)
	if !ok {
		return nil, errUnsupported
	}
	var text string
	err = d.conn.QueryRowContext(ctx, fmt.Sprintf(`SELECT _ferretdb_sjson FROM %q WHERE %s = ?`, table, idExpr), string(key)).Scan(&text)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, err
	}
	name := db + "\x00" + table + "\x00" + id
	r.rebuiltMu.Lock()
	last, ok := r.rebuilt[name]
	r.rebuiltMu.Unlock()
	if ok && last.sjson == text {
		return last.doc, nil
	}
	doc, err := fromSJSON([]byte(text))
	if err != nil {
		return nil, err
	}
	r.rebuiltMu.Lock()
	if len(r.rebuilt) >= rebuiltMax {
		clear(r.rebuilt)
	}
	r.rebuilt[name] = rebuiltDoc{sjson: text, doc: doc}
	r.rebuiltMu.Unlock()
	return doc, nil
}

// sjsonSchema is the "$s" of a stored document (see appendSchema).
type sjsonSchema struct {
	Props map[string]sjsonType `json:"p"`
	Keys  []string             `json:"$k"`
}

// sjsonType is one value's entry in a schema (see appendType).
type sjsonType struct {
	T       string       `json:"t"`
	Schema  *sjsonSchema `json:"$s"` // object
	Items   []sjsonType  `json:"i"`  // array
	Subtype *byte        `json:"s"`  // binData
	Options *string      `json:"o"`  // regex
}

// fromSJSON rebuilds the BSON document FerretDB would send for a stored
// document: the inverse of appendSJSON. Only a top-level _id of type string
// is taken (errUnsupported otherwise, as for types it does not rebuild).
func fromSJSON(text []byte) (bsoncore.Document, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil {
		return nil, errUnsupported
	}
	var schema sjsonSchema
	if err := json.Unmarshal(fields["$s"], &schema); err != nil {
		return nil, errUnsupported
	}
	if schema.Props["_id"].T != "string" {
		return nil, errUnsupported
	}
	return appendDocument(nil, &schema, fields)
}

// appendDocument appends the document of the given schema and values.
func appendDocument(dst []byte, schema *sjsonSchema, fields map[string]json.RawMessage) ([]byte, error) {
	if schema == nil || len(schema.Keys) != len(schema.Props) {
		return nil, errUnsupported
	}
	idx, dst := bsoncore.AppendDocumentStart(dst)
	for _, key := range schema.Keys {
		typ, ok := schema.Props[key]
		raw, found := fields[key]
		if !ok || !found {
			return nil, errUnsupported
		}
		var err error
		if dst, err = appendBSON(dst, key, typ, raw); err != nil {
			return nil, err
		}
	}
	return bsoncore.AppendDocumentEnd(dst, idx)
}

// appendBSON appends one stored value as a BSON element (see appendValue).
func appendBSON(dst []byte, key string, typ sjsonType, raw json.RawMessage) ([]byte, error) {
	text := string(raw)
	var err error
	switch typ.T {
	case "object":
		var fields map[string]json.RawMessage
		if err = json.Unmarshal(raw, &fields); err != nil {
			return nil, errUnsupported
		}
		var doc []byte
		if doc, err = appendDocument(nil, typ.Schema, fields); err != nil {
			return nil, err
		}
		return bsoncore.AppendDocumentElement(dst, key, doc), nil
	case "array":
		var items []json.RawMessage
		if err = json.Unmarshal(raw, &items); err != nil || len(items) != len(typ.Items) {
			return nil, errUnsupported
		}
		idx, out := bsoncore.AppendArrayElementStart(dst, key)
		for i, item := range items {
			if out, err = appendBSON(out, strconv.Itoa(i), typ.Items[i], item); err != nil {
				return nil, err
			}
		}
		return bsoncore.AppendArrayEnd(out, idx)
	case "double":
		var f float64
		f, err = strconv.ParseFloat(text, 64)
		dst = bsoncore.AppendDoubleElement(dst, key, f)
	case "string":
		var s string
		err = json.Unmarshal(raw, &s)
		dst = bsoncore.AppendStringElement(dst, key, s)
	case "objectId":
		var s string
		var b []byte
		if err = json.Unmarshal(raw, &s); err == nil {
			b, err = hex.DecodeString(s)
		}
		if err != nil || len(b) != len(bson.ObjectID{}) {
			return nil, errUnsupported
		}
		dst = bsoncore.AppendObjectIDElement(dst, key, bson.ObjectID(b))
	case "bool":
		if text != "true" && text != "false" {
			return nil, errUnsupported
		}
		dst = bsoncore.AppendBooleanElement(dst, key, text == "true")
	case "date":
		var n int64
		n, err = strconv.ParseInt(text, 10, 64)
		dst = bsoncore.AppendDateTimeElement(dst, key, n)
	case "null":
		if text != "null" {
			return nil, errUnsupported
		}
		dst = bsoncore.AppendNullElement(dst, key)
	case "int":
		var n int64
		n, err = strconv.ParseInt(text, 10, 32)
		dst = bsoncore.AppendInt32Element(dst, key, int32(n)) //nolint:gosec // parsed as 32 bits
	case "long":
		var n int64
		n, err = strconv.ParseInt(text, 10, 64)
		dst = bsoncore.AppendInt64Element(dst, key, n)
	case "timestamp":
		var n uint64
		n, err = strconv.ParseUint(text, 10, 64)
		dst = bsoncore.AppendTimestampElement(dst, key, uint32(n>>32), uint32(n)) //nolint:gosec // the two halves
	case "binData":
		var s string
		var b []byte
		if err = json.Unmarshal(raw, &s); err == nil {
			b, err = base64.StdEncoding.DecodeString(s)
		}
		if err != nil || typ.Subtype == nil {
			return nil, errUnsupported
		}
		dst = bsoncore.AppendBinaryElement(dst, key, *typ.Subtype, b)
	case "regex":
		var pattern string
		if err = json.Unmarshal(raw, &pattern); err != nil || typ.Options == nil {
			return nil, errUnsupported
		}
		dst = bsoncore.AppendRegexElement(dst, key, pattern, *typ.Options)
	default:
		return nil, errUnsupported
	}
	if err != nil {
		return nil, errUnsupported
	}
	return dst, nil
}
