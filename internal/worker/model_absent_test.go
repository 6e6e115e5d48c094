package worker

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
)

// A model found missing is looked for again only when its folder changes:
// one stat of the folder instead of embed.Ready's three per call, and a
// model installed into the folder (or the folder made) is loaded by the
// next call.
func TestAbsentModelCheckedOnFolderChange(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "m")
	loader := &fakeLoader{dims: 8}
	checks := 0
	m := &models{load: loader.Load, now: time.Now, dir: func(string) string { return dir }, retry: time.Minute,
		logf: func(string, ...any) {}, ready: func(d string) error { checks++; return embed.Ready(d) }}
	acquire := func() error {
		_, release, err := m.acquire("m", time.Now())
		if err == nil {
			release()
		}
		return err
	}
	old := time.Now().Add(-time.Hour)

	// No folder: checked once, then trusted while it stays absent.
	for i := 0; i < 3; i++ {
		if err := acquire(); !errors.Is(err, errNoModel) {
			t.Fatalf("no folder: %v", err)
		}
	}
	if checks != 1 {
		t.Fatalf("no folder: %d checks for three calls, want 1", checks)
	}

	// The folder appears, empty: checked again, once while it stays so.
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(dir, old, old)
	for i := 0; i < 3; i++ {
		if err := acquire(); !errors.Is(err, errNoModel) {
			t.Fatalf("empty folder: %v", err)
		}
	}
	if checks != 2 {
		t.Fatalf("empty folder: %d checks, want 2", checks)
	}

	// A folder changed within the last two seconds is not trusted (a file
	// added in the same tick of a coarse clock would not show).
	os.Chtimes(dir, time.Now(), time.Now())
	acquire()
	acquire()
	if checks != 4 {
		t.Fatalf("fresh folder: %d checks, want 4", checks)
	}

	// The model is installed: the folder changed, the next call loads it.
	for _, f := range []string{embed.StaticFile, embed.TokenizerFile} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(dir, old.Add(time.Minute), old.Add(time.Minute))
	if err := acquire(); err != nil {
		t.Fatalf("installed model: %v", err)
	}
	if loader.loads() != 1 {
		t.Fatalf("%d loads, want 1", loader.loads())
	}
}
