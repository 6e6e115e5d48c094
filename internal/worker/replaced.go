package worker

import (
	"os"
	"sync"
)

// exeWatch notices that the worker's executable was replaced on disk (a
// rebuild or an upgrade): the hook clients of the new build do not trust
// this process (internal/relay compares the daemon file's identity), so
// every hook would run the slow local path until someone replaced it. The
// worker says so through Replaced, and cmd/vibe-embed-worker closes it and
// starts the new file in its place. The embed loop checks at each round of
// work, and rounds follow connections: a client of the new build connects
// (and, not trusting this process, sends nothing), and the round a second
// later sees the new file.
type exeWatch struct {
	path string
	orig os.FileInfo
	// seen is the replacement seen at the last check; it must be the same
	// file, unchanged, at the next check before it counts, so a file still
	// being written is not started.
	seen os.FileInfo
	once sync.Once
	done chan struct{}
}

func newExeWatch(path string) *exeWatch {
	return &exeWatch{path: path, done: make(chan struct{})}
}

// start remembers which file the executable is now.
func (x *exeWatch) start() {
	if x.path != "" {
		x.orig, _ = os.Stat(x.path)
	}
}

// check looks at the executable (one stat) and reports whether it was
// replaced by a file that has stopped changing (replaced), or by one seen
// for the first time or changed since the last check (settling: check
// again a little later).
func (x *exeWatch) check() (replaced, settling bool) {
	if x.orig == nil {
		return false, false
	}
	cur, err := os.Stat(x.path)
	if err != nil || sameFile(cur, x.orig) { // missing: mid-rebuild, or uninstalled
		x.seen = nil
		return false, false
	}
	stable := x.seen != nil && sameFile(cur, x.seen)
	x.seen = cur
	if stable {
		x.once.Do(func() { close(x.done) })
	}
	return stable, !stable
}

// sameFile: the same inode, unchanged (a running program's inode cannot be
// reused, but a file written in place keeps its inode).
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
