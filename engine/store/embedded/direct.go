package embedded

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// directWriter runs the store's hot write commands on the SQLite file of
// their database itself, in FerretDB v1.24's storage format (sjson.go),
// instead of handing them to FerretDB:
//   - insert, of documents with a string or ObjectID _id first;
//   - update, where every statement replaces one document by _id (the
//     store's commits, projections and upserts), with or without upsert.
//
// FerretDB runs each update statement as a read, a decode into its own
// types and a write in a transaction of its own, and parses a new SQL
// statement for every insert. Here the commands that wait for a database's
// write lock are written in one transaction (commitQueued): the instances'
// snapshots of one engine commit, and the commands of several, cost one
// commit to disk. The proxy holds the database's write lock around it
// (writeSerializer.relay), as for commands FerretDB runs.
//
// Anything else, and anything this path is not sure to do exactly as
// FerretDB would, goes to FerretDB untouched: a command with other options,
// a document appendSJSON does not take, a collection that does not exist
// yet or is capped, and any SQLite error (a duplicate _id, for one), after
// which this path's transaction is rolled back and FerretDB runs the command
// and writes its own answer.
type directWriter struct {
	dir    string
	logger *slog.Logger

	files *directDBs // one connection per database: the proxy's write lock serialises its use

	mu     sync.Mutex
	queues map[string]*directQueue

	commands atomic.Int64 // run here, not by FerretDB: tests look
	commits  atomic.Int64 // SQLite transactions committed (group commits): tests look
}

// directDB is one database file, opened by a direct path (directDBs): the
// writer's one connection, which the proxy's write lock for the database
// serialises, or the reader's pool.
type directDB struct {
	conn *sql.DB
	file os.FileInfo // the file opened: a dropped and created again database is another file

	mu     sync.Mutex
	tables map[string]string // by collection: the uncapped ones, from FerretDB's metadata
}

func newDirectWriter(dir string, sync Sync, logger *slog.Logger) *directWriter {
	return &directWriter{
		dir: dir, logger: logger, queues: make(map[string]*directQueue),
		files: newDirectDBs(dir, "writes", 1, logger, "synchronous("+string(sync)+")"),
	}
}

// directCommandFields are the fields of an insert or update command this
// path knows; a command with any other goes to FerretDB.
var directCommandFields = map[string]bool{
	"insert": true, "documents": true, "update": true, "updates": true, "ordered": true,
	"writeConcern": true, "bypassDocumentValidation": true, "comment": true,
	"$db": true, "lsid": true, "$clusterTime": true, "$readPreference": true, "maxTimeMS": true,
}

// directWrite is one document to store: an insert, or a replacement by _id.
type directWrite struct {
	sjson  string         // the document as FerretDB stores it
	id     string         // its _id as FerretDB's _id index holds it
	idVal  bsoncore.Value // its _id, for the reply to an upsert
	upsert bool
}

// directCommand is a write command this path takes, its documents
// already in FerretDB's storage format.
type directCommand struct {
	header   []byte // the request's, for the reply
	db, coll string
	update   bool
	writes   []directWrite
}

// planCommand parses req and converts its documents, without looking at the
// database: the proxy does it before it takes the database's write lock, so
// that one command's conversion runs while another's is written. ok is false
// when this path does not take req.
func planCommand(req []byte) (*directCommand, bool) {
	msg, ok := parseMsg(req)
	if !ok || msg.flags != 0 {
		return nil, false // moreToCome (no reply wanted) and checksums: FerretDB's
	}
	first, err := msg.body.IndexErr(0)
	if err != nil {
		return nil, false
	}
	cmd := first.Key()
	if cmd != "insert" && cmd != "update" {
		return nil, false
	}
	coll, ok := first.Value().StringValueOK()
	db, dbOK := msg.body.Lookup("$db").StringValueOK()
	if !ok || !dbOK || !knownFields(msg.body) {
		return nil, false
	}
	var writes []directWrite
	if cmd == "insert" {
		docs, _ := msg.statements("documents")
		writes, ok = planInserts(docs)
	} else {
		stmts, _ := msg.statements("updates")
		writes, ok = planReplacements(stmts)
	}
	if !ok || len(writes) == 0 {
		return nil, false
	}
	return &directCommand{header: msg.header, db: db, coll: coll, update: cmd == "update", writes: writes}, true
}

// directTicket is a command waiting for its database's write lock, and
// then its outcome: ok with the reply, or not ok, when FerretDB must run
// the request.
type directTicket struct {
	cmd   *directCommand
	done  bool // set under the database's write lock, read under it
	ok    bool
	reply []byte
}

// directQueue holds a database's tickets that wait for its write lock.
type directQueue struct {
	mu      sync.Mutex
	tickets []*directTicket
}

// enqueue queues c for its database's next group commit (commitQueued).
// The proxy queues a command before it waits for the write lock, so that
// whoever holds the lock then writes it along with its own.
func (w *directWriter) enqueue(c *directCommand) *directTicket {
	t := &directTicket{cmd: c}
	q := w.queue(c.db)
	q.mu.Lock()
	q.tickets = append(q.tickets, t)
	q.mu.Unlock()
	return t
}

func (w *directWriter) queue(db string) *directQueue {
	w.mu.Lock()
	defer w.mu.Unlock()
	q := w.queues[db]
	if q == nil {
		q = &directQueue{}
		w.queues[db] = q
	}
	return q
}

// commitQueued writes own and every ticket queued for its database in one
// SQLite transaction (group commit), and settles them all. The caller
// holds the database's write lock. While one command is written, others
// queue up behind the lock; written together they share one commit, one
// hand-over of the lock and one write of the pages they share. Each
// command runs inside a savepoint: one that fails is undone alone and left
// to FerretDB, and the others still commit.
func (w *directWriter) commitQueued(own *directTicket) {
	q := w.queue(own.cmd.db)
	q.mu.Lock()
	batch := q.tickets
	q.tickets = nil
	q.mu.Unlock()
	if !slices.Contains(batch, own) { // planned under the lock, after its guards were checked
		batch = append(batch, own)
	}
	defer func() {
		for _, t := range batch {
			t.done = true
		}
	}()
	d := w.files.open(own.cmd.db)
	if d == nil {
		return
	}
	bodies, err := d.runAll(batch)
	for i, t := range batch {
		if err == nil && bodies[i] != nil {
			t.ok, t.reply = true, replyMsg(t.cmd.header, bodies[i])
			w.commands.Add(1)
		}
	}
	if slices.ContainsFunc(batch, func(t *directTicket) bool { return t.ok }) {
		w.commits.Add(1)
	}
	if err != nil {
		w.logger.Debug("embedded: direct writes handed to FerretDB", slog.String("db", own.cmd.db), slog.Any("error", err))
		w.files.drop(own.cmd.db, d)
	}
}

func knownFields(body bsoncore.Document) bool {
	elems, err := body.Elements()
	if err != nil {
		return false
	}
	for _, e := range elems {
		if !directCommandFields[e.Key()] {
			return false
		}
	}
	return true
}

// planInserts encodes the documents of an insert.
func planInserts(docs []bsoncore.Document) ([]directWrite, bool) {
	writes := make([]directWrite, len(docs))
	for i, doc := range docs {
		enc, ok := appendSJSON(nil, doc)
		if !ok {
			return nil, false
		}
		idVal := doc.Index(0).Value()
		id, _ := appendValue(nil, idVal)
		writes[i] = directWrite{sjson: string(enc), id: string(id), idVal: idVal}
	}
	return writes, true
}

// planReplacements encodes the statements of an update if each replaces one
// document found by _id: {q: {_id: v}, u: {fields, no operators}}, with
// upsert or not. As FerretDB does, the stored document is the _id followed by
// the replacement's other fields; a replacement that names another _id is
// FerretDB's to refuse.
func planReplacements(stmts []bsoncore.Document) ([]directWrite, bool) {
	writes := make([]directWrite, len(stmts))
	for i, stmt := range stmts {
		elems, err := stmt.Elements()
		if err != nil {
			return nil, false
		}
		var (
			q, u   bsoncore.Document
			upsert bool
		)
		for _, e := range elems {
			var ok bool
			switch e.Key() {
			case "q":
				q, ok = e.Value().DocumentOK()
			case "u":
				u, ok = e.Value().DocumentOK()
			case "upsert":
				upsert, ok = e.Value().BooleanOK()
			case "multi":
				multi, isBool := e.Value().BooleanOK()
				ok = isBool && !multi
			}
			if !ok {
				return nil, false
			}
		}
		qElems, err := q.Elements()
		if err != nil || len(qElems) != 1 || qElems[0].Key() != "_id" || !idType(qElems[0].Value().Type) {
			return nil, false
		}
		idVal := qElems[0].Value()
		doc, ok := replacement(idVal, u)
		if !ok {
			return nil, false
		}
		enc, ok := appendSJSON(nil, doc)
		if !ok {
			return nil, false
		}
		id, _ := appendValue(nil, idVal)
		writes[i] = directWrite{sjson: string(enc), id: string(id), idVal: idVal, upsert: upsert}
	}
	return writes, true
}

// replacement is the document a replacement u of document id stores: id
// first, then u's fields. ok is false when u is not a replacement (it has
// operators) or names another _id.
func replacement(id bsoncore.Value, u bsoncore.Document) (bsoncore.Document, bool) {
	elems, err := u.Elements()
	if err != nil {
		return nil, false
	}
	if len(elems) > 0 && elems[0].Key() == "_id" {
		v := elems[0].Value()
		return u, v.Type == id.Type && bytes.Equal(v.Data, id.Data) && noOperators(elems)
	}
	idx, out := bsoncore.AppendDocumentStart(nil)
	out = bsoncore.AppendValueElement(out, "_id", id)
	for _, e := range elems {
		if e.Key() == "_id" {
			return nil, false // not first: FerretDB's order rules apply
		}
		out = append(out, e...)
	}
	out, _ = bsoncore.AppendDocumentEnd(out, idx)
	return out, noOperators(elems)
}

func noOperators(elems []bsoncore.Element) bool {
	for _, e := range elems {
		if k := e.Key(); k != "" && k[0] == '$' {
			return false
		}
	}
	return true
}

// errNotDirect: the command is FerretDB's after all (the collection does
// not exist or is capped). errConnBroken: the connection may be left inside
// a transaction and is closed.
var (
	errNotDirect  = errors.New("not for the direct path")
	errConnBroken = errors.New("direct connection broken")
)

// runAll writes the tickets' commands in one transaction, each inside a
// savepoint, and returns the reply body of each, nil for one undone and left
// to FerretDB. An error means the transaction did not commit and nothing
// was written.
//
// Statements are not kept prepared: the modernc driver prepares a statement
// again at every execution anyway. Inserts go in rows of one statement
// instead, as FerretDB sends them.
func (d *directDB) runAll(batch []*directTicket) ([][]byte, error) {
	ctx := context.Background()
	tx, err := d.conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errConnBroken, err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	bodies := make([][]byte, len(batch))
	alone := len(batch) == 1 // a failure rolls the whole transaction back
	for i, t := range batch {
		// A command that changes rows with one SQL statement needs no
		// savepoint: SQLite undoes a failed statement alone.
		savepoint := !alone && t.cmd.statements() > 1
		if savepoint {
			if _, err := tx.ExecContext(ctx, `SAVEPOINT direct`); err != nil {
				return nil, fmt.Errorf("%w: %w", errConnBroken, err)
			}
		}
		body, err := d.runIn(ctx, tx, t.cmd)
		if err != nil {
			if !errors.Is(err, errNotDirect) {
				d.mu.Lock()
				clear(d.tables) // the table may be gone
				d.mu.Unlock()
			}
			if alone {
				return bodies, nil // nothing written: FerretDB runs it (the deferred rollback)
			}
			if savepoint {
				if _, err := tx.ExecContext(ctx, `ROLLBACK TO direct`); err != nil {
					return nil, fmt.Errorf("%w: %w", errConnBroken, err)
				}
			}
		}
		if savepoint {
			if _, err := tx.ExecContext(ctx, `RELEASE direct`); err != nil {
				return nil, fmt.Errorf("%w: %w", errConnBroken, err)
			}
		}
		bodies[i] = body
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("%w: commit: %w", errConnBroken, err)
	}
	committed = true
	return bodies, nil
}

// statements is how many SQL statements that change rows c may run: one
// per insertRowsMax documents of an insert, one per replacement (an upsert
// inserts only when its update changed nothing).
func (c *directCommand) statements() int {
	if c.update {
		return len(c.writes)
	}
	return (len(c.writes) + insertRowsMax - 1) / insertRowsMax
}

// runIn writes c's documents in tx and returns the command's reply body,
// as FerretDB answers it.
func (d *directDB) runIn(ctx context.Context, tx *sql.Tx, c *directCommand) (bsoncore.Document, error) {
	table, err := d.table(ctx, tx, c.coll)
	if err != nil {
		return nil, err
	}
	reply := bsoncore.NewDocumentBuilder()
	if !c.update {
		if err := insertRows(ctx, tx, table, c.writes); err != nil {
			return nil, err
		}
		reply.AppendInt32("n", int32(len(c.writes))) //nolint:gosec // a command holds at most 100,000 documents
	} else {
		n, modified, upserted, err := replaceAll(ctx, tx, table, c.writes)
		if err != nil {
			return nil, err
		}
		reply.AppendInt32("n", n)
		if upserted != nil {
			reply.AppendArray("upserted", upserted)
		}
		reply.AppendInt32("nModified", modified)
	}
	return reply.AppendDouble("ok", 1).Build(), nil
}

// table returns the table of collection coll, from FerretDB's metadata
// the first time. Commands that drop, create or rename collections clear
// what is known (forget): a collection dropped and created again may be
// capped now.
func (d *directDB) table(ctx context.Context, q querier, coll string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if name, ok := d.tables[coll]; ok {
		return name, nil
	}
	var (
		name   string
		capped int64
	)
	err := q.QueryRowContext(ctx, `SELECT table_name, coalesce(settings->>'$.cappedSize', 0) FROM "_ferretdb_collections" WHERE name = ?`,
		coll).Scan(&name, &capped)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && capped > 0:
		return "", errNotDirect
	case err != nil:
		return "", err
	}
	d.tables[coll] = name
	return name, nil
}

// schemaCommands change which collections exist or what they are.
var schemaCommands = map[string]bool{
	"drop": true, "create": true, "renameCollection": true, "dropDatabase": true,
	"convertToCapped": true, "cloneCollectionAsCapped": true,
}

// querier is a connection or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// insertRows inserts the documents, up to insertRowsMax a statement.
func insertRows(ctx context.Context, tx *sql.Tx, table string, writes []directWrite) error {
	for chunk := range slices.Chunk(writes, insertRowsMax) {
		var q strings.Builder
		fmt.Fprintf(&q, `INSERT INTO %q (_ferretdb_sjson) VALUES (?)`, table)
		args := make([]any, len(chunk))
		for i, w := range chunk {
			if i > 0 {
				q.WriteString(", (?)")
			}
			args[i] = w.sjson
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// insertRowsMax is FerretDB's default batch size.
const insertRowsMax = 100

// replaceAll runs the replacements in order: n counts the documents found
// and upserted, modified those changed, upserted lists the upserts by
// statement index (nil for none).
func replaceAll(ctx context.Context, tx *sql.Tx, table string, writes []directWrite) (n, modified int32, upserted bsoncore.Array, err error) {
	var ups *bsoncore.ArrayBuilder
	for i, w := range writes {
		found, changed, err := replace(ctx, tx, table, w)
		switch {
		case err != nil:
			return 0, 0, nil, err
		case found:
			n++
			if changed {
				modified++
			}
		case w.upsert:
			if err := insertRows(ctx, tx, table, []directWrite{w}); err != nil {
				return 0, 0, nil, err
			}
			n++ // as MongoDB and FerretDB count an upsert
			if ups == nil {
				ups = bsoncore.NewArrayBuilder()
			}
			ups.AppendDocument(bsoncore.NewDocumentBuilder().
				AppendInt32("index", int32(i)).AppendValue("_id", w.idVal).Build()) //nolint:gosec // a command holds at most 100,000 statements
		}
	}
	if ups != nil {
		upserted = ups.Build()
	}
	return n, modified, upserted, nil
}

// replace stores w over the document with its _id, if there is one. A
// document that is stored as it is stays untouched, as FerretDB leaves it.
func replace(ctx context.Context, tx *sql.Tx, table string, w directWrite) (found, changed bool, err error) {
	res, err := tx.ExecContext(ctx, fmt.Sprintf(
		`UPDATE %q SET _ferretdb_sjson = ?1 WHERE _ferretdb_sjson->'$._id' = ?2 AND _ferretdb_sjson IS NOT ?1`, table),
		w.sjson, w.id)
	if err != nil {
		return false, false, err
	}
	if rows, err := res.RowsAffected(); err != nil || rows == 1 {
		return rows == 1, rows == 1, err
	}
	err = tx.QueryRowContext(ctx, fmt.Sprintf(`SELECT 1 FROM %q WHERE _ferretdb_sjson->'$._id' = ?`, table), w.id).Scan(new(int))
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	return err == nil, false, err
}

// replyMsg wraps body in an OP_MSG answering the request whose header is
// reqHeader.
func replyMsg(reqHeader []byte, body bsoncore.Document) []byte {
	out := make([]byte, msgHeaderLen, msgHeaderLen+5+len(body))
	binary.LittleEndian.PutUint32(out[4:], uint32(guardRequestID.Add(1)))
	copy(out[8:12], reqHeader[4:8]) // responseTo: the request's id
	binary.LittleEndian.PutUint32(out[12:], opMsg)
	out = binary.LittleEndian.AppendUint32(out, 0) // flags
	out = append(append(out, 0), body...)          // section kind 0
	binary.LittleEndian.PutUint32(out, uint32(len(out)))
	return out
}
