package hookrun

import (
	"context"
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

// TestAfterReplyOrderedGoesWhereTheProcessSays: ordered after-reply work
// goes to AfterOrdered, else to After, else runs at once (a hook binary).
func TestAfterReplyOrderedGoesWhereTheProcessSays(t *testing.T) {
	var got []string
	into := func(name string) func(func(context.Context)) {
		return func(func(context.Context)) { got = append(got, name) }
	}
	work := func(context.Context) { got = append(got, "now") }
	for _, c := range []struct {
		env  *Env
		want string
	}{
		{&Env{After: into("after"), AfterOrdered: into("ordered")}, "ordered"},
		{&Env{After: into("after")}, "after"},
		{&Env{}, "now"},
	} {
		got = nil
		c.env.AfterReplyOrdered(context.Background(), work)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%+v: went to %v, want %s", c.env, got, c.want)
		}
	}
	got = nil
	(&Env{After: into("after"), AfterOrdered: into("ordered")}).AfterReply(context.Background(), work)
	if len(got) != 1 || got[0] != "after" {
		t.Errorf("plain after-reply work went to %v", got)
	}
}
