package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// DirMode and FileMode are the modes of everything under VIBE_HOME: the
// database and logs hold the user's research and its prompts' hashes, and
// the worker's socket lives there, so nobody but the user may list or read
// them (an older install made 0755 folders and 0644 files).
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// SecureHome creates VIBE_HOME and the folders under it that vibe writes
// (database, logs) with DirMode, and narrows what an older install left
// wider: those folders and the files directly in them (the database and
// its -wal/-shm, the logs, the pid and lock files).
//
// A VIBE_DB outside VIBE_HOME is left alone except for the database files:
// its folder may be shared (never chmod /tmp).
func SecureHome(p Paths) error {
	dirs := []string{p.Home, p.Logs}
	if db := filepath.Dir(p.DB); filepath.Dir(db) == filepath.Clean(p.Home) {
		dirs = append(dirs, db)
	}
	for _, f := range []string{p.DB, p.DB + "-wal", p.DB + "-shm"} {
		if _, err := os.Stat(f); err == nil {
			if err := narrow(f, FileMode); err != nil {
				return err
			}
		}
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, DirMode); err != nil {
			return fmt.Errorf("make %s: %w", d, err)
		}
		if st, err := os.Stat(d); err == nil && st.Mode()&os.ModeSticky != 0 {
			return fmt.Errorf("%s is a shared folder (sticky, like /tmp): set VIBE_HOME to a folder of your own, which vibe keeps private", d)
		}
		if err := narrow(d, DirMode); err != nil {
			return err
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return fmt.Errorf("read %s: %w", d, err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if err := narrow(filepath.Join(d, e.Name()), FileMode); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// narrow removes the permission bits of path beyond mode; it never widens.
func narrow(path string, mode os.FileMode) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("secure %s: %w", path, err)
	}
	if st.Mode().Perm()&^mode == 0 {
		return nil
	}
	if err := os.Chmod(path, st.Mode().Perm()&mode); err != nil {
		return fmt.Errorf("secure %s: %w", path, err)
	}
	return nil
}

// NarrowFile is narrow for an open file: a log or database file an older
// install created 0644 becomes FileMode the next time vibe opens it.
func NarrowFile(f *os.File) {
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&^FileMode != 0 {
		f.Chmod(st.Mode().Perm() & FileMode)
	}
}
