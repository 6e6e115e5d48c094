// Package filememo keeps a value built from a file's contents and builds it
// again only when the file may have changed. The resident worker uses it
// for the files every event needs (the permission policy, the domain
// config, the user's settings), whose parsing would otherwise cost tens to
// hundreds of microseconds per tool call. Values are shared between
// callers: they must not be changed. StatVersion tells whether a file or
// folder changed without keeping a value (the worker's check that a
// missing model is still missing). It imports only the standard library.
package filememo

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Settle is how old a file's last change (its modification and status
// change times) must be before its value is kept. A file's times only
// have the file system's granularity (a few milliseconds), so a file
// rewritten with the same size within one tick of its last change would
// look unchanged; a file whose last change is older than Settle cannot be
// changed again without new times (git's "racily clean" rule). Tests of
// the packages that keep values here set it to 0 to have a file they just
// wrote kept.
var Settle = time.Second

// now is the clock Settle is measured on; tests move it.
var now = time.Now

// Memo keeps one value per file path; the zero Memo is ready to use.
type Memo[T any] struct{ m sync.Map }

type entry[T any] struct {
	id stamp
	v  T
}

// stamp is what tells one version of a file from another: the inode (a
// file replaced by a rename is another file, even with the old times and
// size), size, modification time and status-change time (which no one
// can set back).
type stamp struct {
	dev, ino               uint64
	size, mtimeNS, ctimeNS int64
}

// settled reports whether the version's last change is older than Settle.
func (s stamp) settled() bool {
	before := now().Add(-Settle).UnixNano()
	return s.mtimeNS < before && s.ctimeNS < before
}

// Version is one version of a file or folder as StatVersion saw it;
// versions compare with ==, and a path that does not exist is a version
// too.
type Version struct {
	stamp
	exists bool
}

// StatVersion is path's version now, and whether it is settled (its last
// change older than Settle): only then does the same version seen later
// mean the path did not change in between. A folder's version changes when
// an entry is added, removed or renamed in it. A missing path is settled;
// err is any other failure to stat it.
func StatVersion(path string) (v Version, settled bool, err error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Version{}, true, nil
	}
	if err != nil {
		return Version{}, false, err
	}
	id := stampOf(info)
	return Version{stamp: id, exists: true}, id.settled(), nil
}

// ReadError is a failure to stat or read the file, as os reported it (so
// errors.Is(err, fs.ErrNotExist) tells a missing file); it lets callers
// tell reading from building.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Load returns build's value for the file at path: the kept one while the
// file is unchanged, else a new one from its contents. Reading fails with a
// *ReadError; build's error comes back as it is and nothing is kept, so the
// next call reports it again. A file that changed while it was read, or
// changed less than Settle ago, is built but not kept.
func (m *Memo[T]) Load(path string, build func(raw []byte) (T, error)) (T, error) {
	var zero T
	info, err := os.Stat(path)
	if err != nil {
		return zero, &ReadError{err}
	}
	id := stampOf(info)
	if e, ok := m.m.Load(path); ok && e.(entry[T]).id == id {
		return e.(entry[T]).v, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return zero, &ReadError{err}
	}
	v, err := build(raw)
	if err != nil {
		return zero, err
	}
	if int64(len(raw)) == id.size && id.settled() {
		m.m.Store(path, entry[T]{id, v})
	} else {
		m.m.Delete(path)
	}
	return v, nil
}
