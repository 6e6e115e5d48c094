package tamper

import (
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
