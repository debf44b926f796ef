package embedded

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// fields reads the named top-level fields of document id of db.coll from
// SQLite, each with its BSON type from the document's schema, and returns
// them as a document (missing fields left out), or nil when there is no
// such document. It is how the proxy checks a guarded update's guard
// (narrowGuards) without FerretDB decoding the whole document. Fields of a
// type it does not rebuild (documents, arrays, binary, regex, timestamps)
// are errUnsupported: the guard is then read through FerretDB.
func (w *directWriter) fields(db, coll, id string, fields []string) (bsoncore.Document, error) {
	d := w.files.open(db)
	if d == nil {
		return nil, errNotDirect
	}
	ctx := context.Background()
	table, err := d.table(ctx, d.conn, coll)
	if err != nil {
		return nil, err
	}
	query, err := fieldsQuery(table, fields)
	if err != nil {
		return nil, err
	}
	row := make([]sql.NullString, 1+2*len(fields)) // found, then each field's type and JSON value
	dest := make([]any, len(row))
	for i := range row {
		dest[i] = &row[i]
	}
	key, _ := appendString(nil, id)
	err = d.conn.QueryRowContext(ctx, query, string(key)).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b := bsoncore.NewDocumentBuilder()
	for i, name := range fields {
		typ, val := row[1+2*i], row[2+2*i]
		if !typ.Valid {
			continue // missing
		}
		if err := appendField(b, name, typ.String, val.String); err != nil {
			return nil, err
		}
	}
	return b.Build(), nil
}

// fieldsQuery reads each field's sjson type and JSON value.
func fieldsQuery(table string, fields []string) (string, error) {
	var q strings.Builder
	q.WriteString("SELECT 1")
	for _, f := range fields {
		for i := range len(f) {
			if !plainByte(f[i]) || f[i] == '.' {
				return "", errUnsupported
			}
		}
		fmt.Fprintf(&q, `, _ferretdb_sjson->>'$."$s".p.%q.t', _ferretdb_sjson->'$.%q'`, f, f)
	}
	fmt.Fprintf(&q, ` FROM %q WHERE _ferretdb_sjson->'$._id' = ?`, table)
	return q.String(), nil
}

// appendField appends a field read from SQLite, as JSON text with its
// sjson type, as the BSON value FerretDB would have sent. Numbers are parsed
// here from their text: SQLite's own conversion of doubles is not always
// correctly rounded.
func appendField(b *bsoncore.DocumentBuilder, name, typ, text string) error {
	var err error
	switch typ {
	case "int":
		var n int64
		n, err = strconv.ParseInt(text, 10, 32)
		b.AppendInt32(name, int32(n)) //nolint:gosec // parsed as 32 bits
	case "long":
		var n int64
		n, err = strconv.ParseInt(text, 10, 64)
		b.AppendInt64(name, n)
	case "date":
		var n int64
		n, err = strconv.ParseInt(text, 10, 64)
		b.AppendDateTime(name, n)
	case "double":
		var f float64
		f, err = strconv.ParseFloat(text, 64)
		b.AppendDouble(name, f)
	case "bool":
		if text != "true" && text != "false" {
			return errUnsupported
		}
		b.AppendBoolean(name, text == "true")
	case "null":
		b.AppendNull(name)
	case "string":
		var str string
		err = json.Unmarshal([]byte(text), &str)
		b.AppendString(name, str)
	case "objectId":
		var str string
		var raw []byte
		if err = json.Unmarshal([]byte(text), &str); err == nil {
			raw, err = hex.DecodeString(str)
		}
		if err != nil || len(raw) != len(bson.ObjectID{}) {
			return errUnsupported
		}
		b.AppendObjectID(name, bson.ObjectID(raw))
	default:
		return errUnsupported
	}
	if err != nil {
		return errUnsupported
	}
	return nil
}
