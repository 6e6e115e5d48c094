package handler

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// TestChecksum: a written file's hash and size; a file over
// MaxChecksumBytes gets its size and no hash, a missing one neither.
func TestChecksum(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.csv"), filepath.Join(dir, "big.csv")
	os.WriteFile(small, []byte("a,b\n1,2\n"), 0o644)
	data := make([]byte, 1<<20)
	os.WriteFile(big, data, 0o644)
	if _, n := checksum(small); n != 8 {
		t.Errorf("small file: %d bytes", n)
	}
	want := sha256.Sum256(data)
	if sum, n := checksum(big); sum != hex.EncodeToString(want[:]) || n != 1<<20 {
		t.Errorf("large file: %s, %d bytes", sum, n)
	}
	if sum, n := checksum(filepath.Join(dir, "gone.csv")); sum != "" || n != 0 {
		t.Errorf("missing file: %q, %d", sum, n)
	}
	huge := filepath.Join(dir, "huge.bin")
	f, _ := os.Create(huge)
	f.Truncate(MaxChecksumBytes + 1)
	f.Close()
	if sum, n := checksum(huge); sum != "" || n != MaxChecksumBytes+1 {
		t.Errorf("file over the cap: %q, %d", sum, n)
	}
}
