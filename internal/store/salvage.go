package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// SalvagedTable is what Salvage kept of one table.
type SalvagedTable struct {
	Name string `json:"name"`
	// Kept rows were copied; Lost rows could not be read (their rowids
	// lie between the table's smallest and largest readable rowid, or the
	// table could not be read at all: Unreadable).
	Kept       int    `json:"kept"`
	Lost       int    `json:"lost"`
	Unreadable string `json:"unreadable,omitempty"`
}

// SalvageReport is what Salvage kept, table by table.
type SalvageReport struct {
	Tables []SalvagedTable `json:"tables"`
}

// Kept and Lost total the report.
func (r SalvageReport) Kept() (kept, lost int) {
	for _, t := range r.Tables {
		kept += t.Kept
		lost += t.Lost
	}
	return kept, lost
}

// Salvage copies every row it can read from the damaged database file at
// damaged into s (a fresh database the migrations made), table by table
// and row by row: a range of rows that reads whole is copied at once, one
// that fails is split until the unreadable rows are isolated and skipped.
// Virtual tables (the full-text index, the vector tables) and their shadow
// tables are not copied: the full-text index is rebuilt from the
// memories, and the vectors are queued to be embedded again. Tables the
// damaged file has and s does not (a newer vibe's) are reported
// unreadable.
func (s *Store) Salvage(ctx context.Context, damaged string) (SalvageReport, error) {
	var rep SalvageReport
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return rep, classify("salvage", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS damaged", "file:"+damaged+"?mode=ro"); err != nil {
		return rep, classify("salvage: open the damaged file", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE damaged")
	tables, err := salvageTables(ctx, conn)
	if err != nil {
		return rep, err
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return rep, classify("salvage", err)
	}
	for _, t := range tables {
		rep.Tables = append(rep.Tables, salvageTable(ctx, conn, t))
	}
	// Counters the triggers kept while the rows arrived count them again
	// from what was kept (the copied sessions brought their old counts).
	if _, err := conn.ExecContext(ctx, `UPDATE sessions SET tool_calls =
(SELECT count(*) FROM spine_entries WHERE spine_entries.session_id = sessions.id)`); err != nil {
		return rep, classify("salvage: count the sessions' tool calls", err)
	}
	// What the virtual tables held comes back from the rows: the index
	// of the memories, and their vectors through the embedding queue.
	if _, err := conn.ExecContext(ctx, "INSERT INTO memories_fts(memories_fts) VALUES('rebuild')"); err != nil {
		return rep, classify("salvage: rebuild the full-text index", err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO embed_queue (memory_id, created_at, updated_at)
SELECT id, created_at, created_at FROM memories
WHERE forgotten = 0 AND id NOT IN (SELECT memory_id FROM embed_queue WHERE status = 'pending')`); err != nil {
		return rep, classify("salvage: queue the memories for embedding", err)
	}
	return rep, nil
}

// salvageTables lists the ordinary tables of the fresh database that the
// damaged one has too, in name order: not virtual tables, not their
// shadow tables, not SQLite's own, not the migration bookkeeping.
func salvageTables(ctx context.Context, conn *sql.Conn) ([]string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT name, sql FROM main.sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, classify("salvage: list tables", err)
	}
	defer rows.Close()
	var virtual []string
	all := map[string]bool{}
	for rows.Next() {
		var name string
		var ddl sql.NullString
		if err := rows.Scan(&name, &ddl); err != nil {
			return nil, classify("salvage: list tables", err)
		}
		if strings.HasPrefix(strings.ToUpper(ddl.String), "CREATE VIRTUAL TABLE") {
			virtual = append(virtual, name)
			continue
		}
		all[name] = true
	}
	if err := rows.Err(); err != nil {
		return nil, classify("salvage: list tables", err)
	}
	var out []string
	for name := range all {
		shadow := strings.HasPrefix(name, "sqlite_")
		for _, v := range virtual {
			shadow = shadow || strings.HasPrefix(name, v+"_")
		}
		if !shadow {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// salvageTable copies what it can read of one table.
func salvageTable(ctx context.Context, conn *sql.Conn, name string) SalvagedTable {
	t := SalvagedTable{Name: name}
	q := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	cols, err := tableColumns(ctx, conn, name)
	if err != nil {
		t.Unreadable = err.Error()
		return t
	}
	list := strings.Join(cols, ", ")
	var lo, hi sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT min(rowid), max(rowid) FROM damaged."+q).Scan(&lo, &hi); err != nil {
		if !strings.Contains(err.Error(), "no such column: rowid") {
			t.Unreadable = fmt.Sprintf("the first or last rows of %s cannot be read: %v", name, err)
			return t
		}
		// A table WITHOUT ROWID (small keyed state) is copied whole, or
		// not at all.
		res, err := conn.ExecContext(ctx, "INSERT OR IGNORE INTO main."+q+" ("+list+") SELECT "+list+" FROM damaged."+q)
		if err != nil {
			t.Unreadable = fmt.Sprintf("%s cannot be read: %v", name, err)
			return t
		}
		n, _ := res.RowsAffected()
		t.Kept = int(n)
		return t
	}
	if !lo.Valid || !hi.Valid {
		return t // empty
	}
	copyRange := func(a, b int64) (int, error) {
		res, err := conn.ExecContext(ctx, "INSERT OR IGNORE INTO main."+q+" (rowid, "+list+") SELECT rowid, "+list+
			" FROM damaged."+q+" WHERE rowid BETWEEN ? AND ?", a, b)
		if err != nil {
			return 0, err
		}
		n, _ := res.RowsAffected()
		return int(n), nil
	}
	var walk func(a, b int64)
	walk = func(a, b int64) {
		if n, err := copyRange(a, b); err == nil {
			t.Kept += n
			return
		}
		if a == b {
			t.Lost++
			return
		}
		mid := a + (b-a)/2
		walk(a, mid)
		walk(mid+1, b)
	}
	const chunk = 4096
	for a := lo.Int64; a <= hi.Int64; a += chunk {
		walk(a, min(a+chunk-1, hi.Int64))
	}
	return t
}

// tableColumns lists the columns two versions of a table share: the fresh
// database's columns that the damaged one has too.
func tableColumns(ctx context.Context, conn *sql.Conn, name string) ([]string, error) {
	read := func(schema string) (map[string]bool, []string, error) {
		rows, err := conn.QueryContext(ctx, "SELECT name FROM pragma_table_info(?, ?)", name, schema)
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
		set := map[string]bool{}
		var order []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				return nil, nil, err
			}
			set[c] = true
			order = append(order, c)
		}
		return set, order, rows.Err()
	}
	_, fresh, err := read("main")
	if err != nil {
		return nil, err
	}
	old, _, err := read("damaged")
	if err != nil {
		return nil, fmt.Errorf("the damaged file's %s cannot be read: %w", name, err)
	}
	if len(old) == 0 {
		return nil, fmt.Errorf("the damaged file has no readable table %s", name)
	}
	var out []string
	for _, c := range fresh {
		if old[c] {
			out = append(out, `"`+strings.ReplaceAll(c, `"`, `""`)+`"`)
		}
	}
	return out, nil
}
