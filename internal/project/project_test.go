package project

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	repo := filepath.Join(tmp, "repo")
	sub := filepath.Join(repo, "RQ-001", "02-data")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(sub, 0o755)
	plain := filepath.Join(tmp, "plain", "x")
	os.MkdirAll(plain, 0o755)
	wt := filepath.Join(tmp, "wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
	link := filepath.Join(tmp, "link")
	os.Symlink(repo, link)

	cases := []struct {
		cwd, root string
		git       bool
	}{
		{repo, repo, true},
		{sub, repo, true},
		{plain, plain, false},
		{wt, wt, true},
		{filepath.Join(link, "RQ-001"), repo, true},
	}
	for _, c := range cases {
		got := Resolve(c.cwd)
		if got.Root != c.root || got.Git != c.git {
			t.Errorf("Resolve(%s) = %+v, want %s git=%v", c.cwd, got, c.root, c.git)
		}
	}
	p := Project{Root: repo}
	if r := p.Rel(filepath.Join(sub, "a.csv")); r != "RQ-001/02-data/a.csv" {
		t.Errorf("Rel = %s", r)
	}
	if r := p.Rel("/etc/passwd"); r != "/etc/passwd" {
		t.Errorf("Rel outside = %s", r)
	}
}

// TestResolveEnv: CLAUDE_PROJECT_DIR wins over the cwd, so a nested
// repository or a subfolder of a project without git keeps the session's
// root; an unset, relative or missing folder falls back to Resolve.
func TestResolveEnv(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	plain := filepath.Join(tmp, "plain")
	sub := filepath.Join(plain, "RQ-001", "03-analysis")
	nested := filepath.Join(plain, "vendor", "lib")
	os.MkdirAll(sub, 0o755)
	os.MkdirAll(filepath.Join(nested, ".git"), 0o755)
	repo := filepath.Join(tmp, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvProjectDir {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		cwd, dir, root string
		git            bool
	}{
		{sub, plain, plain, false},
		{nested, plain, plain, false},
		{filepath.Join(repo, "x"), repo, repo, true},
		{sub, "", sub, false},
		{nested, "relative/dir", nested, true},
		{nested, filepath.Join(tmp, "missing"), nested, true},
	}
	for _, c := range cases {
		got := ResolveEnv(c.cwd, env(c.dir))
		if got.Root != c.root || got.Git != c.git {
			t.Errorf("ResolveEnv(%s, %q) = %+v, want %s git=%v", c.cwd, c.dir, got, c.root, c.git)
		}
	}
	if got := ResolveEnv(sub, nil); got.Root != sub {
		t.Errorf("ResolveEnv without env = %+v", got)
	}
}

// TestOptedIn: a project takes part when it or a folder above it holds
// .vibe-science, except vibe's own home (by path, or by its db folder).
func TestOptedIn(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(p ...string) string {
		d := filepath.Join(append([]string{tmp}, p...)...)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	plain := mk("plain", "repo")
	research := mk("research")
	mk("research", Dir, "RQ-001")
	nested := mk("research", "sub", "repo")
	user := mk("user")
	home := mk("user", Dir)
	mk("user", Dir, "db")
	underHome := mk("user", "code", "repo")
	mk("old", Dir, "db")
	underOld := mk("old", "repo")
	for _, c := range []struct {
		root string
		want bool
	}{
		{plain, false},
		{research, true},
		{nested, true},
		{underHome, false},
		{user, false},
		{underOld, false},
		{"", false},
	} {
		if got := OptedIn(c.root, home); got != c.want {
			t.Errorf("OptedIn(%q) = %v, want %v", c.root, got, c.want)
		}
	}
	// The home by path alone: a home without a db folder yet.
	os.Remove(filepath.Join(home, "db"))
	if OptedIn(underHome, home) {
		t.Error("a project under VIBE_HOME's parent is opted in by the home folder itself")
	}
}
