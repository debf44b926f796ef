package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the SQLite driver FerretDB itself uses
)

// IndexByID makes the _id index of every collection of database db one that
// SQLite uses for FerretDB v1.24's lookups by _id.
//
// FerretDB builds its unique _id index on `_ferretdb_sjson->"_id"` but looks
// documents up (find, update, replace, delete by _id) with
// `_ferretdb_sjson->'$._id'`. Both give the same value, but SQLite uses an
// expression index only for the very same expression, so every such
// operation scanned the whole table, decoding each document. The index is
// rebuilt, under its name and still unique, on the expression the lookups
// use: one index to keep per write instead of two. Call it after the
// collections exist (mongostore.New creates them); it is idempotent.
func (s *Server) IndexByID(ctx context.Context, db string) error {
	file := filepath.Join(s.dataDir, db+".sqlite")
	conn, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("embedded: opening %s: %w", file, err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT name, tbl_name, sql FROM sqlite_master
		WHERE type = 'index' AND name = tbl_name || '__id_' AND tbl_name IN (SELECT table_name FROM _ferretdb_collections)`)
	if err != nil {
		return fmt.Errorf("embedded: listing the _id indexes of %s: %w", db, err)
	}
	type index struct{ name, table, sql string }
	var todo []index
	for rows.Next() {
		var ix index
		if err := rows.Scan(&ix.name, &ix.table, &ix.sql); err != nil {
			rows.Close()
			return fmt.Errorf("embedded: listing the _id indexes of %s: %w", db, err)
		}
		if !strings.Contains(ix.sql, idExpr) {
			todo = append(todo, ix)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("embedded: listing the _id indexes of %s: %w", db, err)
	}
	for _, ix := range todo {
		if err := rebuildIDIndex(ctx, conn, ix.name, ix.table); err != nil {
			return fmt.Errorf("embedded: indexing %s.%s by _id: %w", db, ix.table, err)
		}
	}
	return nil
}

// idExpr is how FerretDB v1.24 filters by _id (metadata.IDColumn).
const idExpr = `_ferretdb_sjson->'$._id'`

func rebuildIDIndex(ctx context.Context, conn *sql.DB, name, table string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	for _, q := range []string{
		fmt.Sprintf(`DROP INDEX %q`, name),
		fmt.Sprintf(`CREATE UNIQUE INDEX %q ON %q (%s)`, name, table, idExpr),
		fmt.Sprintf(`DROP INDEX IF EXISTS %q`, table+"_wfpp_id"), // the extra index of earlier versions
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}
