package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
)

// TestDatabaseFilesArePrivate: a new database and its WAL are 0600 in a new
// 0700 folder, whatever the umask; an older install's 0644 files are
// narrowed on open.
func TestDatabaseFilesArePrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db", "vibe.db")
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Tx(context.Background(), func(tx *Tx) error {
		return tx.UpsertSession(context.Background(), record.SessionSeen{ID: "p", ProjectPath: "/p", At: t0})
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600}
	for p, m := range want {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != m {
			t.Errorf("%s: %v %v, want %v", p, st.Mode().Perm(), err, m)
		}
	}
	s.Close()
	os.Chmod(path, 0o644)
	s, err = Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("reopened database %v, want 0600", st.Mode().Perm())
	}
}
