package store

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
)

// BackupEvery is how old the newest backup may grow before Backup makes
// another, and BackupKeep how many it keeps.
const (
	BackupEvery = 24 * time.Hour
	BackupKeep  = 3
)

// Backup copies the database into dir (VACUUM INTO: a consistent copy
// taken while hooks go on writing) when the newest copy there is older
// than every, and keeps the keep newest copies. It returns the copy made,
// "" when a fresh one was there already. Backups happen on activity (the
// end of a session), never on a timer: a resting worker stays at rest.
func (s *Store) Backup(ctx context.Context, dir string, every time.Duration, keep int, now time.Time) (string, error) {
	copies, err := Backups(dir)
	if err != nil {
		return "", err
	}
	if len(copies) > 0 {
		if info, err := os.Stat(copies[0]); err == nil && now.Sub(info.ModTime()) < every {
			return "", nil
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", backupErr(err)
	}
	path := filepath.Join(dir, "vibe-science-"+now.UTC().Format("20060102T150405Z")+".db")
	tmp := path + ".partial"
	os.Remove(tmp)
	if _, err := s.db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		os.Remove(tmp)
		return "", classify("back up the database", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return "", backupErr(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", backupErr(err)
	}
	copies, _ = Backups(dir)
	for i := keep; i < len(copies); i++ {
		os.Remove(copies[i])
	}
	return path, nil
}

// BackupDir is where the database's daily copies are kept: backups/ beside
// the database file.
func BackupDir(db string) string { return filepath.Join(filepath.Dir(db), "backups") }

// Backups lists the backups in dir, newest first.
func Backups(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, backupErr(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, "vibe-science-") && strings.HasSuffix(n, ".db") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out))) // the names sort by time
	return out, nil
}

func backupErr(err error) error {
	return fault.E(fault.Unavailable, "back up the database", err)
}
