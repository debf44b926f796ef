package embedded

import (
	"database/sql"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
)

// directDBs are the SQLite connections of one direct path, the writer's
// or the reader's: a pool per database file, opened at first use.
type directDBs struct {
	dir     string
	use     string   // what the connections are for, for the log
	pragmas []string // of every connection
	conns   int      // per database
	logger  *slog.Logger

	mu     sync.Mutex
	dbs    map[string]*directDB // by database name
	closed bool
}

func newDirectDBs(dir, use string, conns int, logger *slog.Logger, pragmas ...string) *directDBs {
	return &directDBs{dir: dir, use: use, pragmas: pragmas, conns: conns, logger: logger, dbs: make(map[string]*directDB)}
}

// open returns the database's pool, opening it if needed; nil when the
// database has no file yet (FerretDB creates databases).
func (s *directDBs) open(name string) *directDB {
	file := filepath.Join(s.dir, name+".sqlite")
	info, err := os.Stat(file)
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.dbs[name]
	if d != nil && (err != nil || !os.SameFile(d.file, info)) {
		d.close() // dropped, and maybe created again: the old file is gone
		delete(s.dbs, name)
		d = nil
	}
	if d != nil || err != nil || s.closed {
		return d
	}
	dsn := "file:" + file + "?" + url.Values{
		"mode":    {"rw"}, // a read-only connection could not take part in the WAL
		"_pragma": append([]string{"busy_timeout(10000)"}, s.pragmas...),
	}.Encode()
	conn, err := sql.Open("sqlite", dsn)
	if err != nil {
		s.logger.Warn("embedded: opening a database for direct "+s.use, slog.String("file", file), slog.Any("error", err))
		return nil
	}
	conn.SetMaxOpenConns(s.conns)
	conn.SetMaxIdleConns(s.conns)
	conn.SetConnMaxLifetime(0)
	d = &directDB{conn: conn, file: info, tables: make(map[string]string)}
	s.dbs[name] = d
	return d
}

// drop closes d, after an error that may have left it inside a transaction.
func (s *directDBs) drop(name string, d *directDB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dbs[name] == d {
		delete(s.dbs, name)
	}
	d.close()
}

// forget clears what is known of the collections of the request's database
// (of every database for a rename, which names two) if the request is a
// schema command; it returns whether it was.
func (s *directDBs) forget(req []byte) bool {
	body, ok := msgBody(req)
	if !ok {
		return false
	}
	first, err := body.IndexErr(0)
	if err != nil || !schemaCommands[first.Key()] {
		return false
	}
	db, _ := body.Lookup("$db").StringValueOK()
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, d := range s.dbs {
		if name == db || first.Key() == "renameCollection" {
			d.mu.Lock()
			clear(d.tables)
			d.mu.Unlock()
		}
	}
	return true
}

// close closes every pool; the path's commands then all go to FerretDB.
func (s *directDBs) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for name, d := range s.dbs {
		d.close()
		delete(s.dbs, name)
	}
}

func (d *directDB) close() { _ = d.conn.Close() }
