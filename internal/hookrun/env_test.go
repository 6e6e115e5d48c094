package hookrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vibe-science/vibe/internal/project"
)

// TestEnvProjectIsTheEventsProject: Env.Project answers what
// project.ResolveEnv answers (CLAUDE_PROJECT_DIR first, else the folder
// holding cwd), remembers it for the event, and resolves again for another
// cwd.
func TestEnvProjectIsTheEventsProject(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{filepath.Join(a, ".git"), filepath.Join(a, "sub"), filepath.Join(b, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{}
	env := &Env{Getenv: func(k string) string { return vars[k] }}
	if got, want := env.Project(filepath.Join(a, "sub")), project.ResolveEnv(filepath.Join(a, "sub"), env.Getenv); got != want || filepath.Base(got.Root) != "a" || !got.Git {
		t.Fatalf("cwd a/sub: %+v, want %+v (a, a git repository)", got, want)
	}
	if got := env.Project(b); filepath.Base(got.Root) != "b" {
		t.Errorf("another cwd resolves again: %+v, want b", got)
	}
	vars[project.EnvProjectDir] = a
	env = &Env{Getenv: func(k string) string { return vars[k] }}
	if got := env.Project(b); filepath.Base(got.Root) != "a" {
		t.Errorf("with CLAUDE_PROJECT_DIR=a, cwd b: %+v, want a", got)
	}
	os.RemoveAll(a) // resolved once per event: the answer stays
	if got := env.Project(b); filepath.Base(got.Root) != "a" {
		t.Errorf("second ask in the same event: %+v, want the first answer (a)", got)
	}
}
