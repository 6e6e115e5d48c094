package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// RescanKey is the meta key that names the secret rules (privacy.Version)
// every text of the database has been scrubbed with. A database made before
// a rule existed lacks it, or names older rules: RescanSecrets then scrubs
// it once more.
const RescanKey = "privacy:rules"

// rescanBatch is how many rows one transaction of RescanSecrets rewrites:
// a hook waiting for the writer waits for one batch at most.
const rescanBatch = 256

// RescanReport says what RescanSecrets did.
type RescanReport struct {
	// Done is false when the database was already scrubbed with these
	// rules (nothing was read).
	Done bool
	// Rows is how many rows were read, Changed how many were rewritten,
	// Memories how many of those were memories (queued for a new vector).
	Rows, Changed, Memories int
	// Tables are the tables read.
	Tables []string
}

// RescanPending reports whether the database holds texts scrubbed with
// other rules than the current ones (or before any were recorded).
func (s *Store) RescanPending(ctx context.Context) (bool, error) {
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", RescanKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, classify("read the secret rules' version", err)
	}
	return v != privacy.Version(), nil
}

// RescanSecrets scrubs every text column of every table with the current
// secret rules, once per rules version (RescanKey): a record stored before
// a rule existed (or before vibe used gitleaks' rules) loses what the rule
// finds. It reads the tables by rowid in batches of rescanBatch rows, each
// in its own transaction, and rewrites a row only when a text changed; a
// JSON text is scrubbed string by string. Keys are left alone (id, *_id,
// project_path, hashes, fingerprints), and so are the byte copies of
// protected files (ledger snapshots are BLOBs: the safety net restores
// them byte for byte), tables without rowid and virtual tables (the FTS
// index follows memories through its triggers, and is merged afterwards so
// no deleted term stays in a segment). An append-only table's no-update
// trigger is dropped and made again inside the batch's transaction.
// SQLite's secure_delete is on while it runs, so the old text is
// overwritten with zeros rather than left in free space, and the WAL is
// checkpointed and truncated at the end. A changed memory gets its content
// hash again (unless another memory already has that text) and is queued
// for a new vector. Stopped midway, it starts again from the first row
// next time (scrubbing is idempotent).
func (s *Store) RescanSecrets(ctx context.Context) (RescanReport, error) {
	var rep RescanReport
	if pending, err := s.RescanPending(ctx); err != nil || !pending {
		return rep, err
	}
	rep.Done = true
	tables, err := s.textColumns(ctx)
	if err != nil {
		return rep, err
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA secure_delete = ON"); err != nil {
		return rep, classify("rescan secrets", err)
	}
	defer s.db.ExecContext(context.WithoutCancel(ctx), "PRAGMA secure_delete = OFF")
	for _, t := range tables {
		rep.Tables = append(rep.Tables, t.name)
		for after := int64(-1 << 62); ; {
			var n int
			err := s.Tx(ctx, func(tx *Tx) error {
				var err error
				n, after, err = tx.rescanBatch(ctx, t, after, &rep)
				return err
			})
			if err != nil {
				return rep, err
			}
			if n < rescanBatch {
				break
			}
		}
	}
	if rep.Memories > 0 {
		if _, err := s.db.ExecContext(ctx, "INSERT INTO memories_fts(memories_fts) VALUES ('optimize')"); err != nil {
			return rep, classify("rescan secrets: merge the memory index", err)
		}
	}
	err = s.Tx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
ON CONFLICT(key) DO UPDATE SET value = excluded.value`, RescanKey, privacy.Version())
		return classify("record the secret rules' version", err)
	})
	if err != nil {
		return rep, err
	}
	// The old pages are in the WAL too until a checkpoint copies the new
	// ones over them; a reader still open may keep it from truncating,
	// which the next checkpoint then does.
	s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return rep, nil
}

// textTable is a table and the columns RescanSecrets scrubs.
type textTable struct {
	name     string
	cols     []string
	triggers []string // the table's BEFORE UPDATE triggers, as made
}

// textColumns lists the tables and text columns RescanSecrets reads.
func (s *Store) textColumns(ctx context.Context) ([]textTable, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		return nil, classify("list tables", err)
	}
	var names []string
	var virtual []string
	plain := map[string]bool{}
	for rows.Next() {
		var name string
		var ddl sql.NullString
		if err := rows.Scan(&name, &ddl); err != nil {
			rows.Close()
			return nil, classify("list tables", err)
		}
		up := strings.ToUpper(ddl.String)
		switch {
		case strings.HasPrefix(name, "sqlite_") || name == "meta":
		case strings.HasPrefix(up, "CREATE VIRTUAL"):
			virtual = append(virtual, name)
		case strings.Contains(up, "WITHOUT ROWID"):
		default:
			names = append(names, name)
			plain[name] = true
		}
	}
	rows.Close()
	var out []textTable
	for _, name := range names {
		shadow := false
		for _, v := range virtual {
			shadow = shadow || strings.HasPrefix(name, v+"_")
		}
		if shadow {
			continue
		}
		t := textTable{name: name}
		crow, err := s.db.QueryContext(ctx, "SELECT name, type FROM pragma_table_info(?)", name)
		if err != nil {
			return nil, classify("list columns", err)
		}
		for crow.Next() {
			var col, typ string
			if err := crow.Scan(&col, &typ); err != nil {
				crow.Close()
				return nil, classify("list columns", err)
			}
			if strings.Contains(strings.ToUpper(typ), "TEXT") && !keyColumn(col) {
				t.cols = append(t.cols, col)
			}
		}
		crow.Close()
		if len(t.cols) == 0 {
			continue
		}
		trow, err := s.db.QueryContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?
AND upper(sql) LIKE '%BEFORE UPDATE%'`, name)
		if err != nil {
			return nil, classify("list triggers", err)
		}
		for trow.Next() {
			var ddl string
			if err := trow.Scan(&ddl); err != nil {
				trow.Close()
				return nil, classify("list triggers", err)
			}
			t.triggers = append(t.triggers, ddl)
		}
		trow.Close()
		out = append(out, t)
	}
	return out, nil
}

// keyColumn: a column that identifies or fingerprints a row, not text a
// call wrote.
func keyColumn(col string) bool {
	c := strings.ToLower(col)
	return c == "id" || strings.HasSuffix(c, "_id") || strings.HasSuffix(c, "_ids") || c == "project_path" ||
		strings.Contains(c, "sha256") || strings.HasSuffix(c, "_hash") || c == "fingerprint"
}

// rescanBatch rewrites the rows of t after rowid after (at most
// rescanBatch), returning how many it read and the last rowid.
func (t *Tx) rescanBatch(ctx context.Context, tb textTable, after int64, rep *RescanReport) (int, int64, error) {
	q := fmt.Sprintf(`SELECT rowid, %s FROM %q WHERE rowid > ? ORDER BY rowid LIMIT %d`,
		quoteCols(tb.cols), tb.name, rescanBatch)
	rows, err := t.tx.QueryContext(ctx, q, after)
	if err != nil {
		return 0, after, classify("rescan "+tb.name, err)
	}
	type change struct {
		rowid int64
		vals  []any
	}
	var changes []change
	n := 0
	for rows.Next() {
		vals := make([]sql.NullString, len(tb.cols))
		dest := []any{&after}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return n, after, classify("rescan "+tb.name, err)
		}
		n++
		changed := false
		out := make([]any, len(vals))
		for i, v := range vals {
			if !v.Valid {
				continue
			}
			clean := scrubStored(v.String)
			out[i] = clean
			changed = changed || clean != v.String
		}
		if changed {
			changes = append(changes, change{after, out})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return n, after, classify("rescan "+tb.name, err)
	}
	rep.Rows += n
	if len(changes) == 0 {
		return n, after, nil
	}
	for _, ddl := range tb.triggers {
		if _, err := t.tx.ExecContext(ctx, "DROP TRIGGER "+triggerName(ddl)); err != nil {
			return n, after, classify("rescan "+tb.name, err)
		}
	}
	var sets []string
	for _, c := range tb.cols {
		sets = append(sets, fmt.Sprintf("%q = COALESCE(?, %q)", c, c))
	}
	upd := fmt.Sprintf("UPDATE %q SET %s WHERE rowid = ?", tb.name, strings.Join(sets, ", "))
	for _, c := range changes {
		if _, err := t.tx.ExecContext(ctx, upd, append(c.vals, c.rowid)...); err != nil {
			return n, after, classify("rescan "+tb.name, err)
		}
		rep.Changed++
		if tb.name == "memories" {
			rep.Memories++
			if err := t.rehashMemory(ctx, c.rowid); err != nil {
				return n, after, err
			}
		}
	}
	for _, ddl := range tb.triggers {
		if _, err := t.tx.ExecContext(ctx, ddl); err != nil {
			return n, after, classify("rescan "+tb.name, err)
		}
	}
	return n, after, nil
}

// rehashMemory gives a rescanned memory the content hash of its new text
// (kept when another memory of the project has it) and queues it for a new
// vector.
func (t *Tx) rehashMemory(ctx context.Context, id int64) error {
	var kind, text string
	if err := t.tx.QueryRowContext(ctx, "SELECT kind, text FROM memories WHERE id = ?", id).Scan(&kind, &text); err != nil {
		return classify("rescan memories", err)
	}
	if _, err := t.tx.ExecContext(ctx, "UPDATE OR IGNORE memories SET content_hash = ? WHERE id = ?",
		record.ContentHash(kind, text), id); err != nil {
		return classify("rescan memories", err)
	}
	_, err := t.tx.ExecContext(ctx, `UPDATE embed_queue SET status = 'pending', attempts = 0, next_attempt_at = 0,
last_error = NULL WHERE memory_id = ?`, id)
	return classify("rescan memories", err)
}

// scrubStored scrubs a stored text: a JSON document string by string.
func scrubStored(s string) string {
	if t := strings.TrimSpace(s); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return string(privacy.ScrubJSON([]byte(s)))
	}
	return privacy.Scrub(s)
}

// triggerName is the name in a CREATE TRIGGER statement.
func triggerName(ddl string) string {
	f := strings.Fields(ddl)
	for i := 0; i+1 < len(f); i++ {
		if strings.EqualFold(f[i], "TRIGGER") {
			name := f[i+1]
			if strings.EqualFold(name, "IF") && i+4 < len(f) {
				name = f[i+4]
			}
			return name
		}
	}
	return ""
}

func quoteCols(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = fmt.Sprintf("%q", c)
	}
	return strings.Join(q, ", ")
}
