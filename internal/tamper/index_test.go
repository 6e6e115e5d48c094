package tamper

import (
	"os"
	"reflect"
	"testing"
)

func sampleIndex() *index {
	ix := newIndex("/p")
	ix.BlobBytes = 1234
	ix.Files["a/CLAIM-LEDGER.md"] = &entry{Stat: fileStat{Size: 10, Mtime: 1, Ctime: 2, Ino: 3, Dev: 4, Mode: fileMode{kindRegular, 0o644}},
		Set: "ledger", Sum: [32]byte{1, 2}, Hashed: true, Blob: true}
	ix.Files["raw/x.csv"] = &entry{Stat: fileStat{Size: -1}, Set: "read-only.raw-data", Cold: true, Tampered: true}
	ix.Dirs["."] = &dirEntry{Stat: fileStat{Mode: fileMode{kindDir, 0o755}}}
	ix.Dirs["raw"] = &dirEntry{Set: "read-only.raw-data", Depth: -1, Cold: true}
	return ix
}

func TestIndexRoundTrip(t *testing.T) {
	ix := sampleIndex()
	got, err := decodeIndex(ix.encode())
	if err != nil || !reflect.DeepEqual(got, ix) {
		t.Fatalf("round trip: %v\n%+v\nwant\n%+v", err, got, ix)
	}
	raw := ix.encode()
	for i := 0; i < len(raw); i++ {
		if got, err := decodeIndex(raw[:i]); err == nil && got != nil {
			t.Fatalf("a cut at %d of %d decoded", i, len(raw))
		}
	}
}

func FuzzDecodeIndex(f *testing.F) {
	f.Add(sampleIndex().encode())
	f.Add([]byte("VTIX"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ix, err := decodeIndex(raw)
		if err == nil && ix != nil {
			if _, err := decodeIndex(ix.encode()); err != nil {
				t.Fatalf("re-encoded index does not decode: %v", err)
			}
		}
	})
}

// TestJournalReplays: changes appended to the journal are what a fresh
// process loads; a journal of an older index is ignored; a record cut short
// ends the replay.
func TestJournalReplays(t *testing.T) {
	dir := t.TempDir()
	s := &state{file: dir + "/p.idx", journal: dir + "/p.jnl"}
	g := &Guard{}
	s.ix = sampleIndex()
	if err := g.save(s); err != nil {
		t.Fatal(err)
	}
	s.ix.Files["new.md"] = &entry{Set: "ledger", Hashed: true, Sum: [32]byte{9}}
	delete(s.ix.Files, "raw/x.csv")
	delete(s.ix.Dirs, "raw")
	if err := g.saveChanges(s, map[string]bool{"new.md": true, "raw/x.csv": true}, map[string]bool{"raw": true}); err != nil {
		t.Fatal(err)
	}
	fresh := &state{file: s.file, journal: s.journal}
	if err := g.load(fresh, "/p"); err != nil {
		t.Fatal(err)
	}
	if len(fresh.ix.Files) != 2 || fresh.ix.Files["new.md"] == nil || fresh.ix.Files["raw/x.csv"] != nil || fresh.ix.Dirs["raw"] != nil {
		t.Fatalf("replayed: files %v dirs %v", fresh.ix.Files, fresh.ix.Dirs)
	}
	if fresh.ix.BlobBytes != 10 {
		t.Fatalf("blob bytes %d, want 10 (the ledger's)", fresh.ix.BlobBytes)
	}
	// A cut record: the replay stops, what came before stands.
	raw, _ := os.ReadFile(s.journal)
	os.WriteFile(s.journal, raw[:len(raw)-3], 0o600)
	fresh = &state{file: s.file, journal: s.journal}
	if err := g.load(fresh, "/p"); err != nil || fresh.ix.Files["new.md"] == nil {
		t.Fatalf("cut journal: %v", err)
	}
	if _, err := os.Stat(s.journal); err == nil {
		t.Fatal("a cut journal must be folded into a rewritten index")
	}
	// A rewrite gets a new ID: the old journal no longer applies.
	os.WriteFile(s.journal, raw, 0o600)
	s.ix = sampleIndex()
	if err := g.save(s); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.journal, raw, 0o600)
	fresh = &state{file: s.file, journal: s.journal}
	if err := g.load(fresh, "/p"); err != nil || fresh.ix.Files["new.md"] != nil || len(fresh.ix.Files) != 2 {
		t.Fatalf("stale journal applied: %v %v", fresh.ix.Files, err)
	}
}
