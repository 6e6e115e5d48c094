package handler

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/vibe-science/vibe/internal/hookrun"
)

// TestHashingALargeFileIsHeavy: the resident process hears of the hashing
// of a file of heavyBytes or more (hookrun.Env.Heavy), not of a small one.
func TestHashingALargeFileIsHeavy(t *testing.T) {
	var began, ended int
	env := &hookrun.Env{Wide: func() func() { began++; return func() { ended++ } }}
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.csv"), filepath.Join(dir, "big.csv")
	os.WriteFile(small, []byte("a,b\n1,2\n"), 0o644)
	data := make([]byte, heavyBytes)
	os.WriteFile(big, data, 0o644)
	if _, n := checksum(small, env); n != 8 || began != 0 {
		t.Errorf("small file: %d bytes, heavy %d times", n, began)
	}
	want := sha256.Sum256(data)
	if sum, n := checksum(big, env); sum != hex.EncodeToString(want[:]) || n != heavyBytes || began != 1 || ended != 1 {
		t.Errorf("large file: %s, %d bytes; heavy began %d times, ended %d", sum, n, began, ended)
	}
	if sum, _ := checksum(big, nil); sum != hex.EncodeToString(want[:]) {
		t.Errorf("without an Env: %s", sum)
	}
}
