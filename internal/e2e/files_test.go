package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// Helpers for the files a test makes, shared by the tests with and without
// the e2e tag.

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// optedIn makes project a vibe project (`vibe init` creates .vibe-science/).
func optedIn(t *testing.T, project string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(project, ".vibe-science"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(src)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, info.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}
