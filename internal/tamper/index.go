package tamper

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// indexVersion changes when the index's shape does; an index of another
// version is rebuilt (first sight again).
const indexVersion = 6

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
	Uid, Gid           uint32
}

// same reports whether two stats describe the same, unchanged file.
func (a fileStat) same(b fileStat) bool { return a == b }

// sameMeta reports whether two stats have the same mode and owner.
func (a fileStat) sameMeta(b fileStat) bool {
	return a.Mode.Perm == b.Mode.Perm && a.Uid == b.Uid && a.Gid == b.Gid
}

// entry is one guarded file of the snapshot.
type entry struct {
	Stat fileStat
	Set  string   // the policy set that guards it ("ledger", "read-only.raw-data", "domain-config")
	Sum  [32]byte // SHA-256 of the content; valid when Hashed
	// Hashed is false for files first seen but not read yet (a first sight
	// larger than its budget); Blob says the content is kept in the blob
	// store, so the file can be restored.
	Hashed, Blob bool
	// Pack says the kept content is in the project's pack at Off (Blob
	// is then true too); otherwise it is the blob file named by Sum.
	Pack bool
	Off  int64
	// Cold files (raw data) are stat'ed a slice per call and all at Stop.
	Cold bool
	// Tampered marks a changed file vibe could not restore (no blob): Sum
	// stays the content it should have, and Stop reports it until it does.
	Tampered bool
	// External marks a change made outside any tool call (a person,
	// another program), taken as it is and waiting for a person's choice:
	// `vibe tamper accept` keeps it, `vibe tamper restore` puts Prior back.
	// Gone says the file was removed that way (the entry stays for
	// restore). Prior is the version before that change (nil: the file did
	// not exist).
	External, Gone bool
	Prior          *entry

	abs  string // the absolute path, once built (not saved)
	seen uint64 // the check that last compared it (not saved)
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
	// Link is the target of the symlink the folder is reached through (a
	// raw-data folder kept on another disk); Stat is then the target's.
	Link string

	abs   string          // the absolute path, once built (not saved)
	names map[string]bool // the names of its last listing (not saved)
}

// index is one project's snapshot.
type index struct {
	Version int
	// ID names this rewrite of the index; its journal carries it.
	ID    [8]byte
	Root  string
	Files map[string]*entry    // project-relative, '/'-separated
	Dirs  map[string]*dirEntry // project-relative, "." for the root
	// BlobBytes is the content kept for this project, against
	// Options.MaxProjectBytes.
	BlobBytes int64
	// BriefSum is the SHA-256 of the brief copy whose bound files the
	// snapshot holds (extendForBrief).
	BriefSum [32]byte
}

func newIndex(root string) *index {
	return &index{Version: indexVersion, ID: newIndexID(), Root: root, Files: map[string]*entry{}, Dirs: map[string]*dirEntry{}}
}

// projectKey names a project's files under VIBE_HOME/tamper.
func projectKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// loadIndex reads a saved index; a missing one is (nil, nil), one of
// another version or project is (nil, nil) too (the snapshot is taken
// again).
func loadIndex(path, root string) (*index, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot index %s: %w", path, err)
	}
	ix, err := decodeIndex(raw)
	if err != nil {
		return nil, fmt.Errorf("decode snapshot index %s: %w (it is taken again from the files as they are now)", path, err)
	}
	if ix == nil || ix.Root != root {
		return nil, nil
	}
	return ix, nil
}

// save writes the index atomically (temporary file, then rename), 0600 in
// a 0700 folder.
func (ix *index) save(path string) error {
	return writeAtomic(path, ix.encode(), 0o600)
}

// indexMagic starts an index file. The format is a flat list of
// length-prefixed fields rather than gob: a process without the resident
// worker loads the index on every event, and gob took ~10x longer for 10k
// files (its per-entry reflection and map growth).
const indexMagic = "VTIX"

func (ix *index) encode() []byte {
	b := make([]byte, 0, 64+len(ix.Files)*120)
	b = append(b, indexMagic...)
	b = binary.AppendUvarint(b, uint64(ix.Version))
	b = append(b, ix.ID[:]...)
	b = appendString(b, ix.Root)
	b = binary.AppendVarint(b, ix.BlobBytes)
	b = append(b, ix.BriefSum[:]...)
	b = binary.AppendUvarint(b, uint64(len(ix.Files)))
	for rel, e := range ix.Files {
		b = appendEntry(b, rel, e)
	}
	b = binary.AppendUvarint(b, uint64(len(ix.Dirs)))
	for rel, d := range ix.Dirs {
		b = appendDir(b, rel, d)
	}
	return b
}

func flags(bits ...bool) byte {
	var f byte
	for i, v := range bits {
		if v {
			f |= 1 << i
		}
	}
	return f
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStat(b []byte, st fileStat) []byte {
	b = binary.AppendVarint(b, st.Size)
	b = binary.AppendVarint(b, st.Mtime)
	b = binary.AppendVarint(b, st.Ctime)
	b = binary.AppendUvarint(b, st.Ino)
	b = binary.AppendUvarint(b, st.Dev)
	b = append(b, byte(st.Mode.Kind))
	b = binary.AppendUvarint(b, uint64(st.Mode.Perm))
	b = binary.AppendUvarint(b, uint64(st.Uid))
	return binary.AppendUvarint(b, uint64(st.Gid))
}

// decoder reads the index format; the first error sticks.
type decoder struct {
	b   []byte
	err error
	set map[string]string // interned set names
}

var errCorrupt = errors.New("the file is cut short or not an index")

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if uint64(len(d.b)) < n {
		d.err = errCorrupt
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) str() string { return string(d.bytes(d.uvarint())) }

func (d *decoder) setName() string {
	raw := d.bytes(d.uvarint())
	if s, ok := d.set[string(raw)]; ok {
		return s
	}
	s := string(raw)
	d.set[s] = s
	return s
}

func (d *decoder) stat() fileStat {
	st := fileStat{Size: d.varint(), Mtime: d.varint(), Ctime: d.varint(), Ino: d.uvarint(), Dev: d.uvarint()}
	if k := d.bytes(1); k != nil {
		st.Mode.Kind = kind(k[0])
	}
	st.Mode.Perm = uint32(d.uvarint())
	st.Uid, st.Gid = uint32(d.uvarint()), uint32(d.uvarint())
	return st
}

func (d *decoder) flag() byte {
	if f := d.bytes(1); f != nil {
		return f[0]
	}
	return 0
}

// decodeIndex parses an index file; one of another version is nil.
func decodeIndex(raw []byte) (*index, error) {
	if !bytes.HasPrefix(raw, []byte(indexMagic)) {
		return nil, errCorrupt
	}
	d := &decoder{b: raw[len(indexMagic):], set: map[string]string{}}
	if v := d.uvarint(); d.err != nil || v != indexVersion {
		return nil, d.err
	}
	ix := newIndex("")
	copy(ix.ID[:], d.bytes(8))
	ix.Root = d.str()
	ix.BlobBytes = d.varint()
	copy(ix.BriefSum[:], d.bytes(32))
	n := d.uvarint()
	if n > uint64(len(raw)) {
		return nil, errCorrupt
	}
	ix.Files = make(map[string]*entry, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		rel, e := d.entry()
		ix.Files[rel] = e
	}
	n = d.uvarint()
	if n > uint64(len(raw)) {
		return nil, errCorrupt
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		rel, de := d.dir()
		ix.Dirs[rel] = de
	}
	if d.err != nil {
		return nil, d.err
	}
	return ix, nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path, so a reader sees the old file or the new one, never half. It
// does not fsync: the index is saved after every accepted write, and one
// lost in a crash only means the next check takes the snapshot again.
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
