//go:build !linux

package observer

import (
	"os"
	"path/filepath"
)

// dirStat stats folders under dir with os.Stat (dirstat_linux.go uses
// fstatat on an open folder).
type dirStat struct{ dir string }

func openDirStat(dir string) (dirStat, error) { return dirStat{dir}, nil }

func (d dirStat) mtime(rel string) (int64, bool) {
	info, err := os.Stat(filepath.Join(d.dir, filepath.FromSlash(rel)))
	if err != nil || !info.IsDir() {
		return 0, false
	}
	return info.ModTime().UnixNano(), true
}

func (d dirStat) close() {}
