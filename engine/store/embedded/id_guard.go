package embedded

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"net"
	"slices"
	"strings"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// errUnsupported marks a filter the guard matcher does not evaluate: the
// statement then goes to FerretDB as it came.
var errUnsupported = errors.New("filter not evaluated by the proxy")

// guardMiss is the _id an update statement gets when its guard did not
// hold: no document has it, so the statement matches nothing, found by the
// _id index.
const guardMiss = "\x00wfpp: the guard did not hold"

// guardRequestID numbers the proxy's own finds, far from the driver's ids.
var guardRequestID atomic.Int32

func init() { guardRequestID.Store(1 << 30) }

// narrowGuards rewrites the guarded updates of an update command, such as
// {_id: "i1", seq: 7} or {_id: "i1", seq: 7, $or: [{epoch: {$lte: 3}}, ...]},
// into updates by _id alone. FerretDB v1.24 on SQLite looks a document up by
// index only for a filter of exactly {_id: <string>}; any other filter
// decodes the whole collection, so each guarded commit of the store's
// replicas cost time in proportion to every instance ever stored. The proxy
// holds the database's write lock here, so it reads each document by _id,
// evaluates the rest of the filter itself and sends the statement on by _id
// if it holds, or with an _id no document has if it does not: the same
// outcome, with nothing written in between. A guarded upsert goes on by _id
// when its document is missing (it inserts it) or its guard holds; one whose
// stored document fails the guard goes to FerretDB unchanged, which answers
// a duplicate _id, as MongoDB does. Statements it cannot evaluate (operators
// it does not know, multi-document updates) and every other command go on
// unchanged. It returns req itself when nothing changed.
func (p *writeSerializer) narrowGuards(req []byte, server net.Conn, fromServer *bufio.Reader) ([]byte, error) {
	msg, ok := parseMsg(req)
	if !ok || msg.flags != 0 {
		return req, nil // checksums and moreToCome: left alone
	}
	first, err := msg.body.IndexErr(0)
	if err != nil || first.Key() != "update" {
		return req, nil
	}
	coll, ok := first.Value().StringValueOK()
	db, dbOK := msg.body.Lookup("$db").StringValueOK()
	if !ok || !dbOK {
		return req, nil
	}
	stmts, inBody := msg.statements("updates")
	changed := false
	// A statement after one that may change its document (one on the same
	// _id, an upsert that may create it, one by another filter) must see
	// what the earlier one made of it: FerretDB evaluates those.
	seen, anyDoc := map[string]bool{}, false
	for i, stmt := range stmts {
		id, rest, ok := guardedByID(stmt)
		first := !seen[id] && !anyDoc
		if other := filterID(stmt); other != "" {
			seen[other] = true
		} else {
			anyDoc = true
		}
		if !ok || !first {
			continue
		}
		doc, err := p.guardDoc(server, fromServer, db, coll, id, rest)
		if err != nil {
			return nil, err
		}
		holds := false
		if doc != nil {
			if holds, err = matches(doc, rest); errors.Is(err, errUnsupported) {
				continue
			}
		}
		upsert, _ := stmt.Lookup("upsert").BooleanOK()
		if upsert && doc != nil && !holds {
			continue // FerretDB's duplicate _id answer
		}
		target := guardMiss
		if holds || upsert {
			target = id
		}
		stmts[i] = withFilter(stmt, target)
		changed = true
	}
	if !changed {
		return req, nil
	}
	return msg.build(stmts, inBody), nil
}

// guardedByID returns the _id of an update statement whose filter names a
// string _id and more, and the filter without the _id; ok is false for any
// other statement, and for multi-document updates.
func guardedByID(stmt bsoncore.Document) (id string, rest []bsoncore.Element, ok bool) {
	if multi, _ := stmt.Lookup("multi").BooleanOK(); multi {
		return "", nil, false
	}
	q, ok := stmt.Lookup("q").DocumentOK()
	if !ok {
		return "", nil, false
	}
	elems, err := q.Elements()
	if err != nil || len(elems) < 2 {
		return "", nil, false
	}
	for _, e := range elems {
		if e.Key() == "_id" && id == "" {
			if id, ok = e.Value().StringValueOK(); !ok {
				return "", nil, false
			}
			continue
		}
		rest = append(rest, e)
	}
	return id, rest, id != ""
}

// filterID is the string _id an update statement's filter names, if any.
func filterID(stmt bsoncore.Document) string {
	id, _ := stmt.Lookup("q", "_id").StringValueOK()
	return id
}

// guardDoc reads what a guard over document id of db.coll needs: the
// fields it names, from SQLite when the direct path can read them
// (direct_read.go), else the whole document through FerretDB. nil when there
// is no such document.
func (p *writeSerializer) guardDoc(server net.Conn, fromServer *bufio.Reader, db, coll, id string, guard []bsoncore.Element) (bsoncore.Document, error) {
	if p.direct != nil {
		if fields, ok := guardFields(guard, nil); ok {
			if doc, err := p.direct.fields(db, coll, id, fields); err == nil {
				return doc, nil
			}
		}
	}
	return p.findByID(server, fromServer, db, coll, id)
}

// guardFields appends the top-level fields a filter names, through $or and
// $and; ok is false for a filter on anything else (dotted paths, other
// operators at the top).
func guardFields(filter []bsoncore.Element, fields []string) ([]string, bool) {
	for _, e := range filter {
		key := e.Key()
		if key != "$or" && key != "$and" {
			if strings.HasPrefix(key, "$") || strings.Contains(key, ".") {
				return nil, false
			}
			if !slices.Contains(fields, key) {
				fields = append(fields, key)
			}
			continue
		}
		branches, err := e.Value().Array().Values()
		if err != nil {
			return nil, false
		}
		for _, b := range branches {
			sub, ok := b.DocumentOK()
			if !ok {
				return nil, false
			}
			elems, err := sub.Elements()
			if err != nil {
				return nil, false
			}
			if fields, ok = guardFields(elems, fields); !ok {
				return nil, false
			}
		}
	}
	return fields, true
}

// findByID reads document id of db.coll over the proxy's connection to
// FerretDB; nil when there is none.
func (p *writeSerializer) findByID(server net.Conn, fromServer *bufio.Reader, db, coll, id string) (bsoncore.Document, error) {
	body := bsoncore.NewDocumentBuilder().
		AppendString("find", coll).
		AppendDocument("filter", bsoncore.NewDocumentBuilder().AppendString("_id", id).Build()).
		AppendInt32("limit", 1).
		AppendBoolean("singleBatch", true).
		AppendString("$db", db).
		Build()
	req := make([]byte, msgHeaderLen, msgHeaderLen+5+len(body))
	binary.LittleEndian.PutUint32(req[4:], uint32(guardRequestID.Add(1)))
	binary.LittleEndian.PutUint32(req[12:], opMsg)
	req = binary.LittleEndian.AppendUint32(req, 0) // flags
	req = append(append(req, 0), body...)          // section kind 0
	binary.LittleEndian.PutUint32(req, uint32(len(req)))
	if _, err := server.Write(req); err != nil {
		return nil, err
	}
	res, err := readMessage(fromServer, nil)
	if err != nil {
		return nil, err
	}
	reply, ok := parseMsg(res)
	if !ok {
		return nil, errors.New("embedded proxy: FerretDB answered a find with no OP_MSG body")
	}
	if okVal, _ := reply.body.Lookup("ok").AsFloat64OK(); okVal != 1 {
		return nil, errors.New("embedded proxy: FerretDB refused a find by _id: " + reply.body.String())
	}
	batch, ok := reply.body.Lookup("cursor", "firstBatch").ArrayOK()
	if !ok {
		return nil, errors.New("embedded proxy: FerretDB's find reply has no cursor.firstBatch")
	}
	docs, err := batch.Values()
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	doc, _ := docs[0].DocumentOK()
	return doc, nil
}

// withFilter returns stmt with its filter replaced by {_id: id}.
func withFilter(stmt bsoncore.Document, id string) bsoncore.Document {
	elems, _ := stmt.Elements() // guardedByID read them
	idx, out := bsoncore.AppendDocumentStart(nil)
	for _, e := range elems {
		if e.Key() == "q" {
			out = bsoncore.AppendDocumentElement(out, "q", bsoncore.NewDocumentBuilder().AppendString("_id", id).Build())
			continue
		}
		out = append(out, e...)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out
}

// matches evaluates filter elements against doc with MongoDB's rules for
// the operators the stores' guards use: equality, $eq, $ne, $lt, $lte, $gt,
// $gte, $exists, $in, $nin, $and, $or, on top-level fields. Anything else
// is errUnsupported.
func matches(doc bsoncore.Document, filter []bsoncore.Element) (bool, error) {
	for _, e := range filter {
		ok, err := matchElement(doc, e)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func matchElement(doc bsoncore.Document, e bsoncore.Element) (bool, error) {
	key, v := e.Key(), e.Value()
	switch {
	case key == "$or" || key == "$and":
		arr, ok := v.ArrayOK()
		if !ok {
			return false, errUnsupported
		}
		branches, err := arr.Values()
		if err != nil || len(branches) == 0 {
			return false, errUnsupported
		}
		for _, b := range branches {
			sub, ok := b.DocumentOK()
			if !ok {
				return false, errUnsupported
			}
			elems, err := sub.Elements()
			if err != nil {
				return false, errUnsupported
			}
			held, err := matches(doc, elems)
			if err != nil {
				return false, err
			}
			if held == (key == "$or") {
				return held, nil
			}
		}
		return key == "$and", nil
	case strings.HasPrefix(key, "$") || strings.Contains(key, "."):
		return false, errUnsupported
	}
	field, err := doc.LookupErr(key)
	present := err == nil
	ops, isDoc := v.DocumentOK()
	if !isDoc {
		return equal(field, present, v)
	}
	elems, err := ops.Elements()
	if err != nil || len(elems) == 0 || !strings.HasPrefix(elems[0].Key(), "$") {
		return equal(field, present, v) // an embedded document compared whole
	}
	for _, op := range elems {
		held, err := matchOperator(field, present, op)
		if err != nil || !held {
			return false, err
		}
	}
	return true, nil
}

func matchOperator(field bsoncore.Value, present bool, op bsoncore.Element) (bool, error) {
	arg := op.Value()
	switch op.Key() {
	case "$eq":
		return equal(field, present, arg)
	case "$ne":
		held, err := equal(field, present, arg)
		return !held, err
	case "$exists":
		want, ok := arg.BooleanOK()
		if !ok { // FerretDB v1.24 reads other values its own way
			return false, errUnsupported
		}
		return present == want, nil
	case "$in", "$nin":
		arr, ok := arg.ArrayOK()
		if !ok {
			return false, errUnsupported
		}
		vals, err := arr.Values()
		if err != nil {
			return false, errUnsupported
		}
		found := false
		for _, val := range vals {
			held, err := equal(field, present, val)
			if err != nil {
				return false, err
			}
			found = found || held
		}
		return found == (op.Key() == "$in"), nil
	case "$lt", "$lte", "$gt", "$gte":
		if !present {
			return false, nil
		}
		c, comparable, err := compare(field, arg)
		if err != nil || !comparable {
			return false, err
		}
		switch op.Key() {
		case "$lt":
			return c < 0, nil
		case "$lte":
			return c <= 0, nil
		case "$gt":
			return c > 0, nil
		}
		return c >= 0, nil
	}
	return false, errUnsupported
}

// equal is MongoDB's equality of a field with a filter value; null matches
// a missing field too. Arrays (which match by element) are not evaluated.
func equal(field bsoncore.Value, present bool, v bsoncore.Value) (bool, error) {
	if v.Type == bsoncore.TypeNull {
		return !present || field.Type == bsoncore.TypeNull, nil
	}
	if !present {
		return false, nil
	}
	if field.Type == bsoncore.TypeArray || v.Type == bsoncore.TypeArray {
		return false, errUnsupported
	}
	c, comparable, err := compare(field, v)
	if err != nil {
		return false, err
	}
	if comparable {
		return c == 0, nil
	}
	return field.Type == v.Type && bytes.Equal(field.Data, v.Data), nil
}

// compare orders two values of one comparable kind (numbers, strings,
// dates); comparable is false for two different kinds, which MongoDB's
// range operators never match. Decimal128 is not evaluated.
func compare(a, b bsoncore.Value) (c int, comparable bool, err error) {
	if a.Type == bsoncore.TypeDecimal128 || b.Type == bsoncore.TypeDecimal128 {
		return 0, false, errUnsupported
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		if !ok {
			return 0, false, nil
		}
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return 0, false, errUnsupported
		case x < y:
			return -1, true, nil
		case x > y:
			return 1, true, nil
		}
		return 0, true, nil
	}
	if a.Type != b.Type {
		return 0, false, nil
	}
	switch a.Type {
	case bsoncore.TypeString:
		return strings.Compare(a.StringValue(), b.StringValue()), true, nil
	case bsoncore.TypeDateTime:
		x, y := a.DateTime(), b.DateTime()
		return cmpInt(x, y), true, nil
	}
	return 0, false, nil
}

func cmpInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// number returns a numeric value as float64: exact for the int32 and
// int64 the stores write (sequence numbers and epochs stay far below 2^53).
func number(v bsoncore.Value) (float64, bool) {
	switch v.Type {
	case bsoncore.TypeInt32:
		return float64(v.Int32()), true
	case bsoncore.TypeInt64:
		return float64(v.Int64()), true
	case bsoncore.TypeDouble:
		return v.Double(), true
	}
	return 0, false
}
