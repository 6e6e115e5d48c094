package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecureHome: an older install's 0755 folders and 0644 files become
// 0700 and 0600; a missing home is created 0700.
func TestSecureHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "vh")
	p := Resolve(func(k string) string { return map[string]string{"VIBE_HOME": home}[k] })
	for _, d := range []string{home, filepath.Dir(p.DB), p.Logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o755)
	}
	for _, f := range []string{p.DB, p.DB + "-wal", filepath.Join(p.Logs, "hooks-2026-01-01.log"), p.PIDFile} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "narrow"), []byte("x"), 0o400); err != nil {
		t.Fatal(err)
	}
	if err := SecureHome(p); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{
		home: 0o700, filepath.Dir(p.DB): 0o700, p.Logs: 0o700,
		p.DB: 0o600, p.DB + "-wal": 0o600, filepath.Join(p.Logs, "hooks-2026-01-01.log"): 0o600, p.PIDFile: 0o600,
		filepath.Join(home, "narrow"): 0o400, // never widened
	}
	for path, mode := range want {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v (%v), want %v", path, st.Mode().Perm(), err, mode)
		}
	}
	fresh := Resolve(func(k string) string { return map[string]string{"VIBE_HOME": filepath.Join(t.TempDir(), "new")}[k] })
	if err := SecureHome(fresh); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(fresh.Home); st.Mode().Perm() != 0o700 {
		t.Errorf("new home %v", st.Mode().Perm())
	}
}

// TestSecureHomeLeavesAForeignDBFolder: VIBE_DB in a shared folder gets
// its files narrowed, never the folder.
func TestSecureHomeLeavesAForeignDBFolder(t *testing.T) {
	shared := t.TempDir()
	os.Chmod(shared, 0o777)
	db := filepath.Join(shared, "v.db")
	os.WriteFile(db, []byte("x"), 0o644)
	p := Resolve(func(k string) string {
		return map[string]string{"VIBE_HOME": filepath.Join(t.TempDir(), "h"), "VIBE_DB": db}[k]
	})
	if err := SecureHome(p); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(shared); st.Mode().Perm() != 0o777 {
		t.Errorf("shared folder narrowed to %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(db); st.Mode().Perm() != 0o600 {
		t.Errorf("database %v", st.Mode().Perm())
	}
}

// TestSecureHomeRefusesASharedFolder: VIBE_HOME=/tmp would make vibe chmod
// /tmp; a sticky folder is refused instead.
func TestSecureHomeRefusesASharedFolder(t *testing.T) {
	shared := t.TempDir()
	os.Chmod(shared, 0o777|os.ModeSticky)
	p := Resolve(func(k string) string { return map[string]string{"VIBE_HOME": shared}[k] })
	err := SecureHome(p)
	if err == nil || !strings.Contains(err.Error(), "is a shared folder") {
		t.Fatalf("err %v", err)
	}
	if st, _ := os.Stat(shared); st.Mode().Perm() != 0o777 {
		t.Errorf("the shared folder was changed: %v", st.Mode())
	}
}
