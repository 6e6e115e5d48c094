package filememo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLoadBuildsOncePerVersion(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.json")
	at := time.Now().Add(-time.Hour)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Second)
		os.Chtimes(file, at, at)
	}
	var m Memo[string]
	builds := 0
	build := func(raw []byte) (string, error) {
		builds++
		if string(raw) == "bad!" {
			return "", errors.New("bad text")
		}
		return string(raw), nil
	}
	if _, err := m.Load(file, build); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, new(*ReadError)) {
		t.Fatalf("missing file: %v", err)
	}
	write("one")
	for range 3 {
		if v, err := m.Load(file, build); v != "one" || err != nil {
			t.Fatalf("%q %v", v, err)
		}
	}
	if builds != 1 {
		t.Errorf("unchanged file built %d times", builds)
	}
	write("two") // same length, later mtime
	if v, err := m.Load(file, build); v != "two" || err != nil || builds != 2 {
		t.Fatalf("changed file: %q %v after %d builds", v, err, builds)
	}
	write("bad!")
	for range 2 {
		if _, err := m.Load(file, build); err == nil || errors.As(err, new(*ReadError)) {
			t.Fatalf("a failed build must be reported as build's error, each time: %v", err)
		}
	}
	if builds != 4 {
		t.Errorf("a failed build was kept (%d builds)", builds)
	}
}
