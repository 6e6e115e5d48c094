package tamper

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// indexVersion changes when the index's shape does; an index of another
// version is rebuilt (first sight again).
const indexVersion = 1

type kind uint8

const (
	kindRegular kind = iota + 1
	kindDir
	kindLink
	kindOther
)

type fileMode struct {
	Kind kind
	Perm uint32
}

// fileStat is what a stat tells without reading the file.
type fileStat struct {
	Size, Mtime, Ctime int64
	Ino, Dev           uint64
	Mode               fileMode
}

// same reports whether two stats describe the same, unchanged file.
func (a fileStat) same(b fileStat) bool { return a == b }

// entry is one guarded file of the snapshot.
type entry struct {
	Stat fileStat
	Set  string   // the policy set that guards it ("ledger", "read-only.raw-data", "domain-config")
	Sum  [32]byte // SHA-256 of the content; valid when Hashed
	// Hashed is false for files first seen but not read yet (a first sight
	// larger than its budget); Blob says the content is kept in the blob
	// store, so the file can be restored.
	Hashed, Blob bool
	// Cold files (raw data) are stat'ed a slice per call and all at Stop.
	Cold bool
	// Tampered marks a changed file vibe could not restore (no blob): Sum
	// stays the content it should have, and Stop reports it until it does.
	Tampered bool
}

// dirEntry is a watched folder: its stat changes when an entry is added,
// removed or renamed.
type dirEntry struct {
	Stat fileStat
	// Set is the guarded tree it lies in ("" for a folder only watched to
	// find new guarded files).
	Set string
	// Depth is how many levels of new sub-folders are still watched below
	// it (-1: all).
	Depth int
	Cold  bool
}

// index is one project's snapshot.
type index struct {
	Version int
	Root    string
	Files   map[string]*entry    // project-relative, '/'-separated
	Dirs    map[string]*dirEntry // project-relative, "." for the root
	// BlobBytes is the content kept for this project, against
	// Options.MaxProjectBytes.
	BlobBytes int64
}

func newIndex(root string) *index {
	return &index{Version: indexVersion, Root: root, Files: map[string]*entry{}, Dirs: map[string]*dirEntry{}}
}

// projectKey names a project's files under VIBE_HOME/tamper.
func projectKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// loadIndex reads a saved index; a missing one is (nil, nil).
func loadIndex(path, root string) (*index, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot index %s: %w", path, err)
	}
	var ix index
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&ix); err != nil {
		return nil, fmt.Errorf("decode snapshot index %s: %w (it is rebuilt from the files as they are now)", path, err)
	}
	if ix.Version != indexVersion || ix.Root != root {
		return nil, nil
	}
	if ix.Files == nil {
		ix.Files = map[string]*entry{}
	}
	if ix.Dirs == nil {
		ix.Dirs = map[string]*dirEntry{}
	}
	return &ix, nil
}

// save writes the index atomically (temporary file, then rename), 0600 in
// a 0700 folder.
func (ix *index) save(path string) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(ix); err != nil {
		return fmt.Errorf("encode snapshot index: %w", err)
	}
	return writeAtomic(path, buf.Bytes(), 0o600)
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path, so a reader sees the old file or the new one, never half.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
