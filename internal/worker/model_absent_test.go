package worker

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/filememo"
)

// A model found missing is looked for again only when its folder changes:
// one stat of the folder instead of embed.Ready's three per call; a model
// installed into the folder (or the folder made) is loaded by the next
// call, and so is one the embed loop's tick found (note).
func TestAbsentModelCheckedOnFolderChange(t *testing.T) {
	settle := filememo.Settle
	t.Cleanup(func() { filememo.Settle = settle })
	filememo.Settle = 0 // what this test changes counts as settled at once

	dir := filepath.Join(t.TempDir(), "m")
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
	want := func(step string, wantChecks int) {
		t.Helper()
		for i := 0; i < 3; i++ {
			if err := acquire(); !errors.Is(err, errNoModel) {
				t.Fatalf("%s: %v", step, err)
			}
		}
		if checks != wantChecks {
			t.Fatalf("%s: %d checks in all, want %d", step, checks, wantChecks)
		}
	}
	want("no folder", 1)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want("empty folder", 2)
	// A folder whose last change is not yet settled is checked every time
	// (a file added within the same tick of the clock would not show).
	filememo.Settle = time.Hour
	want("unsettled folder", 5)
	filememo.Settle = 0
	// A file that does not make the model: the folder changed, one check.
	if err := os.WriteFile(filepath.Join(dir, embed.TokenizerFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	want("tokenizer only", 6)

	// The model file arrives with the folder's old modification time put
	// back (as cp -a and tar do): the status change time still moves.
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, embed.StaticFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(dir, st.ModTime(), st.ModTime())
	if err := acquire(); err != nil {
		t.Fatalf("installed model: %v", err)
	}
	if loader.loads() != 1 {
		t.Fatalf("%d loads, want 1", loader.loads())
	}
}

// The embed loop's tick checks the folder itself (note): when it finds the
// model installed, a verdict acquire kept is dropped, whatever the folder's
// version says.
func TestNoteInstalledDropsAbsentVerdict(t *testing.T) {
	settle := filememo.Settle
	t.Cleanup(func() { filememo.Settle = settle })
	filememo.Settle = 0
	dir := t.TempDir()
	checks := 0
	m := &models{load: (&fakeLoader{dims: 8}).Load, now: time.Now, dir: func(string) string { return dir }, retry: time.Minute,
		logf: func(string, ...any) {}, ready: func(d string) error { checks++; return embed.Ready(d) }}
	m.acquire("m", time.Now())
	m.acquire("m", time.Now())
	if checks != 1 {
		t.Fatalf("%d checks, want 1", checks)
	}
	m.note("m", true)
	m.acquire("m", time.Now())
	if checks != 2 {
		t.Fatalf("after the tick found the model: %d checks, want 2", checks)
	}
}
