package tamper

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
)

// The index is rewritten whole only at first sight, at Stop and when its
// journal grows past maxJournalBytes; between those, each check that
// changed entries appends them to the journal in one write. Rewriting the
// index of a 10k-file project costs about 7 ms (1 MB), which every accepted
// ledger edit paid before; an append costs tens of microseconds. The cap
// keeps the replay of a process without the resident worker short.
const maxJournalBytes = 256 << 10

// The journal's record kinds.
const (
	recFile byte = iota + 1
	recFileGone
	recDir
	recDirGone
)

// journalMagic starts a journal, followed by the ID of the index it
// extends; a journal of another index is ignored.
const journalMagic = "VTJL"

func newIndexID() [8]byte {
	var id [8]byte
	rand.Read(id[:])
	return id
}

// appendEntry encodes one file entry (shared by the index and the journal).
func appendEntry(b []byte, rel string, e *entry) []byte {
	b = appendString(b, rel)
	b = appendStat(b, e.Stat)
	b = appendString(b, e.Set)
	b = append(b, e.Sum[:]...)
	b = append(b, flags(e.Hashed, e.Blob, e.Cold, e.Tampered, e.Pack, e.External, e.Gone, e.Prior != nil))
	if e.Pack {
		b = binary.AppendVarint(b, e.Off)
	}
	if p := e.Prior; p != nil {
		b = appendStat(b, p.Stat)
		b = append(b, p.Sum[:]...)
		b = append(b, flags(p.Hashed, p.Blob, p.Pack))
		if p.Pack {
			b = binary.AppendVarint(b, p.Off)
		}
	}
	return b
}

func (d *decoder) entry() (string, *entry) {
	rel := d.str()
	e := &entry{Stat: d.stat(), Set: d.setName()}
	copy(e.Sum[:], d.bytes(32))
	f := d.flag()
	e.Hashed, e.Blob, e.Cold, e.Tampered, e.Pack = f&1 != 0, f&2 != 0, f&4 != 0, f&8 != 0, f&16 != 0
	e.External, e.Gone = f&32 != 0, f&64 != 0
	if e.Pack {
		e.Off = d.varint()
	}
	if f&128 != 0 {
		p := &entry{Stat: d.stat(), Set: e.Set, Cold: e.Cold}
		copy(p.Sum[:], d.bytes(32))
		pf := d.flag()
		p.Hashed, p.Blob, p.Pack = pf&1 != 0, pf&2 != 0, pf&4 != 0
		if p.Pack {
			p.Off = d.varint()
		}
		e.Prior = p
	}
	return rel, e
}

func appendDir(b []byte, rel string, de *dirEntry) []byte {
	b = appendString(b, rel)
	b = appendStat(b, de.Stat)
	b = appendString(b, de.Set)
	b = binary.AppendVarint(b, int64(de.Depth))
	b = append(b, flags(de.Cold))
	return appendString(b, de.Link)
}

func (d *decoder) dir() (string, *dirEntry) {
	rel := d.str()
	de := &dirEntry{Stat: d.stat(), Set: d.setName(), Depth: int(d.varint())}
	de.Cold = d.flag()&1 != 0
	de.Link = d.str()
	return rel, de
}

// journalRecords encodes the current state of the changed files and
// folders (a removed one as a tombstone), in a stable order.
func journalRecords(ix *index, files, dirs map[string]bool) []byte {
	var b []byte
	for _, rel := range sortedSet(files) {
		if e := ix.Files[rel]; e != nil {
			b = appendEntry(append(b, recFile), rel, e)
		} else {
			b = appendString(append(b, recFileGone), rel)
		}
	}
	for _, rel := range sortedSet(dirs) {
		if de := ix.Dirs[rel]; de != nil {
			b = appendDir(append(b, recDir), rel, de)
		} else {
			b = appendString(append(b, recDirGone), rel)
		}
	}
	return b
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// appendJournal appends records to the journal of the index with id,
// starting the journal when there is none (or one of another index).
func appendJournal(path string, id [8]byte, records []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	var head [len(journalMagic) + 8]byte
	n, _ := f.ReadAt(head[:], 0)
	if n < len(head) || string(head[:4]) != journalMagic || [8]byte(head[4:]) != id {
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("start %s: %w", path, err)
		}
		records = append(append([]byte(journalMagic), id[:]...), records...)
	}
	if _, err := f.Write(records); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// replayJournal applies the journal of ix (if any) to it. A record cut
// short (a write interrupted by a crash) ends the replay there, and clean
// is false: the caller rewrites the index, so later appends are not lost
// behind the cut.
func replayJournal(path string, ix *index) (clean bool, err error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	if len(raw) < len(journalMagic)+8 || string(raw[:4]) != journalMagic || [8]byte(raw[4:12]) != ix.ID {
		return true, nil
	}
	d := &decoder{b: raw[12:], set: map[string]string{}}
	for len(d.b) > 0 && d.err == nil {
		kind := d.flag()
		switch kind {
		case recFile:
			rel, e := d.entry()
			if d.err == nil {
				ix.Files[rel] = e
			}
		case recFileGone:
			rel := d.str()
			if d.err == nil {
				delete(ix.Files, rel)
			}
		case recDir:
			rel, de := d.dir()
			if d.err == nil {
				ix.Dirs[rel] = de
			}
		case recDirGone:
			rel := d.str()
			if d.err == nil {
				delete(ix.Dirs, rel)
			}
		default:
			return false, nil
		}
	}
	return d.err == nil, nil
}
