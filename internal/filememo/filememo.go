// Package filememo keeps a value built from a file's contents and builds it
// again only when the file's modification time or size changes. The
// resident worker uses it for the project files every event needs (the
// permission policy, the domain config), whose parsing would otherwise cost
// a few hundred microseconds per tool call. Values are shared between
// callers: they must not be changed.
package filememo

import (
	"os"
	"sync"
)

// Memo keeps one value per file path; the zero Memo is ready to use.
type Memo[T any] struct{ m sync.Map }

type entry[T any] struct {
	mtimeNS, size int64
	v             T
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
// next call reports it again. A file that changed while it was read is
// built but not kept.
func (m *Memo[T]) Load(path string, build func(raw []byte) (T, error)) (T, error) {
	var zero T
	info, err := os.Stat(path)
	if err != nil {
		return zero, &ReadError{err}
	}
	mt, size := info.ModTime().UnixNano(), info.Size()
	if e, ok := m.m.Load(path); ok && e.(entry[T]).mtimeNS == mt && e.(entry[T]).size == size {
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
	if int64(len(raw)) == size {
		m.m.Store(path, entry[T]{mt, size, v})
	}
	return v, nil
}
