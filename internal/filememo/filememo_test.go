package filememo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// later moves the package's clock past Settle, so files written by the
// test count as settled.
func later(t *testing.T) {
	now = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { now = time.Now })
}

func TestLoadBuildsOncePerVersion(t *testing.T) {
	later(t)
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

// TestLoadSeesARewriteWithinOneTick: a file rewritten with the same size
// and the same modification time (as happens within one tick of the file
// system's clock) is read again, because a file changed less than Settle
// ago is never kept.
func TestLoadSeesARewriteWithinOneTick(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.json")
	at := time.Now()
	var m Memo[string]
	build := func(raw []byte) (string, error) { return string(raw), nil }
	for _, text := range []string{"one", "two", "six"} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(file, at, at) // the same mtime each time
		if v, err := m.Load(file, build); v != text || err != nil {
			t.Fatalf("after writing %q: %q %v", text, v, err)
		}
	}
}

// TestLoadSeesAFileReplacedByRename: another file renamed over the path,
// with the old one's size and modification time (an unpacked archive, a
// restore that keeps times), is another file: it is read.
func TestLoadSeesAFileReplacedByRename(t *testing.T) {
	later(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	at := time.Now().Add(-time.Hour)
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, at, at)
	}
	var m Memo[string]
	builds := 0
	build := func(raw []byte) (string, error) { builds++; return string(raw), nil }
	write(file, "one")
	for range 2 {
		if v, err := m.Load(file, build); v != "one" || err != nil {
			t.Fatalf("%q %v", v, err)
		}
	}
	if builds != 1 {
		t.Fatalf("an unchanged settled file was built %d times", builds)
	}
	next := filepath.Join(dir, "next.json")
	write(next, "two")
	if err := os.Rename(next, file); err != nil {
		t.Fatal(err)
	}
	if v, err := m.Load(file, build); v != "two" || err != nil {
		t.Fatalf("after the rename: %q %v", v, err)
	}
}

// StatVersion: a missing path is a settled version of its own; making it,
// or adding an entry to a folder, gives a new version; a change younger
// than Settle is not settled.
func TestStatVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	missing, settled, err := StatVersion(dir)
	if err != nil || !settled {
		t.Fatalf("missing: settled %v, %v", settled, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	made, settled, err := StatVersion(dir)
	if err != nil || settled {
		t.Fatalf("just made: settled %v (want false), %v", settled, err)
	}
	if made == missing {
		t.Fatal("making the folder left its version")
	}
	later(t)
	if _, settled, _ := StatVersion(dir); !settled {
		t.Fatal("a folder older than Settle is not settled")
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if added, _, _ := StatVersion(dir); added == made {
		t.Fatal("adding a file left the folder's version")
	}
}
