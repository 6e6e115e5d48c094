package clitest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// gatecheckTestdata is internal/gatecheck/testdata seen from a command
// package's folder (internal/cli/<noun>), where its tests run.
var gatecheckTestdata = filepath.Join("..", "..", "gatecheck", "testdata")

// GateProject copies gatecheck's clean fixture repository into a
// temporary project and applies the named fault overlays (see
// internal/gatecheck/testdata/README.md).
func GateProject(t testing.TB, faults ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(gatecheckTestdata, "repo"), root)
	for _, fault := range faults {
		copyTree(t, filepath.Join(gatecheckTestdata, "faults", fault), root)
		if raw, err := os.ReadFile(filepath.Join(root, "_remove")); err == nil {
			for _, p := range strings.Fields(string(raw)) {
				if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Fatal(err)
				}
			}
			os.Remove(filepath.Join(root, "_remove"))
		}
	}
	return root
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Session records a session id, started at at, in project root in f's
// store, and returns the store.
func Session(t testing.TB, f *cli.Factory, id, root string, at time.Time) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		return tx.UpsertSession(ctx, record.SessionSeen{ID: id, ProjectPath: root, At: at, Start: true})
	}); err != nil {
		t.Fatal(err)
	}
	return st
}

// ProjectFiles is a new project (see Project) holding files, each a path
// relative to the project with slashes → its content.
func ProjectFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	root := Project(t)
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
