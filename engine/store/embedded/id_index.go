package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	_ "modernc.org/sqlite" // the SQLite driver FerretDB itself uses
)

// IndexByID adds, to every collection of database db, an SQLite index on the
// expression FerretDB v1.24 filters documents by _id with.
//
// FerretDB builds its own _id index on `_ferretdb_sjson->"_id"` but looks
// documents up (find, update, replace, delete by _id) with
// `_ferretdb_sjson->'$._id'`. SQLite uses an expression index only for the
// very same expression, so without this every such operation scans the whole
// table and decodes each document: an update gets slower with every document
// in the collection. Call it after the collections exist (mongostore.New
// creates them); it is idempotent.
func (s *Server) IndexByID(ctx context.Context, db string) error {
	file := filepath.Join(s.dataDir, db+".sqlite")
	conn, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("embedded: opening %s: %w", file, err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT table_name FROM _ferretdb_collections`)
	if err != nil {
		return fmt.Errorf("embedded: listing the collections of %s: %w", db, err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return fmt.Errorf("embedded: listing the collections of %s: %w", db, err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("embedded: listing the collections of %s: %w", db, err)
	}
	for _, t := range tables {
		q := fmt.Sprintf(`CREATE INDEX IF NOT EXISTS %q ON %q (_ferretdb_sjson->'$._id')`, t+"_wfpp_id", t)
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("embedded: indexing %s.%s by _id: %w", db, t, err)
		}
	}
	return nil
}
