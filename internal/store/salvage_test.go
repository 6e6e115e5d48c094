package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSalvageKeepsEveryReadableRow: a database whose file is damaged in
// the middle of one table is detected by Check; a fresh database salvages
// every row of the other tables, and of the damaged table every row it can
// read, each lost row counted.
func TestSalvageKeepsEveryReadableRow(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "vibe.db")
	st, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const sessions, entries = 12, 6000
	for i := 0; i < sessions; i++ {
		if _, err := st.db.ExecContext(ctx, `INSERT INTO sessions (id, project_path, started_at, last_seen_at) VALUES (?, '/p', 1, 1)`,
			"s-"+string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
	}
	pad := strings.Repeat("x", 300)
	for i := 0; i < entries; i++ {
		if _, err := st.db.ExecContext(ctx, `INSERT INTO spine_entries (session_id, project_path, ts, action_type, tool_name, input_summary)
VALUES ('s-a', '/p', ?, 'read', 'Read', ?)`, i, pad); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	// Damage pages in the second half of the file, where the spine's rows
	// were written last.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := f.Stat()
	garbage := []byte(strings.Repeat("\xde\xad\xbe\xef", 4096/4*3))
	if _, err := f.WriteAt(garbage, info.Size()*3/4/4096*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	damaged, err := Open(ctx, path, Options{})
	if err == nil {
		_, err = damaged.Check(ctx)
		damaged.Close()
	}
	if err == nil {
		t.Fatal("Check passed a damaged file")
	}

	for _, s := range []string{"", "-wal", "-shm"} {
		os.Rename(path+s, path+".corrupt"+s)
	}
	fresh, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	rep, err := fresh.Salvage(ctx, path+".corrupt")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]SalvagedTable{}
	for _, tb := range rep.Tables {
		byName[tb.Name] = tb
	}
	if s := byName["sessions"]; s.Kept != sessions || s.Lost != 0 {
		t.Errorf("sessions: %+v, want all %d kept", s, sessions)
	}
	sp := byName["spine_entries"]
	if sp.Lost == 0 || sp.Kept == 0 || sp.Kept+sp.Lost != entries {
		t.Errorf("spine_entries: %+v, want the readable rows kept and the rest of %d counted lost", sp, entries)
	}
	var n int
	fresh.db.QueryRowContext(ctx, "SELECT count(*) FROM spine_entries").Scan(&n)
	if n != sp.Kept {
		t.Errorf("the fresh database holds %d spine entries, the report says %d kept", n, sp.Kept)
	}
	var calls int
	fresh.db.QueryRowContext(ctx, "SELECT tool_calls FROM sessions WHERE id = 's-a'").Scan(&calls)
	if calls != sp.Kept {
		t.Errorf("session s-a counts %d tool calls, %d of its entries were kept", calls, sp.Kept)
	}
	if _, err := fresh.Check(ctx); err != nil {
		t.Errorf("the repaired database fails its check: %v", err)
	}
}
