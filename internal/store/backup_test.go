package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBackupDailyKeepsTheNewest: the first Backup copies the database, a
// second one within a day does nothing, later ones copy again, and only
// the keep newest copies stay; a copy opens with the rows it was taken
// with.
func TestBackupDailyKeepsTheNewest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := Open(ctx, filepath.Join(dir, "vibe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.db.ExecContext(ctx, `INSERT INTO sessions (id, project_path, started_at, last_seen_at) VALUES ('s-1', '/p', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	backups := BackupDir(filepath.Join(dir, "vibe.db"))
	day0 := time.Now()
	first, err := st.Backup(ctx, backups, BackupEvery, 2, day0)
	if err != nil || first == "" {
		t.Fatalf("first backup: %q, %v", first, err)
	}
	if again, err := st.Backup(ctx, backups, BackupEvery, 2, day0.Add(time.Hour)); err != nil || again != "" {
		t.Errorf("a backup an hour later: %q, %v; want none", again, err)
	}
	// The copy's age is its file's: make the first one look a day old.
	for i, at := range []time.Time{day0.Add(25 * time.Hour), day0.Add(50 * time.Hour)} {
		old, _ := Backups(backups)
		past := at.Add(-25 * time.Hour)
		if err := chtimes(old[0], past); err != nil {
			t.Fatal(err)
		}
		if p, err := st.Backup(ctx, backups, BackupEvery, 2, at); err != nil || p == "" {
			t.Fatalf("backup %d: %q, %v", i+2, p, err)
		}
	}
	copies, _ := Backups(backups)
	if len(copies) != 2 {
		t.Fatalf("%d copies kept, want 2: %v", len(copies), copies)
	}
	cp, err := Open(ctx, copies[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var n int
	cp.db.QueryRowContext(ctx, "SELECT count(*) FROM sessions").Scan(&n)
	if n != 1 {
		t.Errorf("the copy holds %d sessions, want 1", n)
	}
	if _, err := cp.Check(ctx); err != nil {
		t.Errorf("the copy fails its check: %v", err)
	}
}

func chtimes(p string, at time.Time) error { return os.Chtimes(p, at, at) }
