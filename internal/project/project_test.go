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
