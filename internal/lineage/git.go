package lineage

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxChanged bounds the uncommitted paths a record lists.
const maxChanged = 20

// gitDirs finds the repository holding root: its git folder (a worktree's
// own, for HEAD) and its common folder (for refs); "" when there is none.
func gitDirs(root string) (top, gitDir, common string) {
	for d := root; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".git")
		info, err := os.Stat(p)
		if err == nil {
			if info.IsDir() {
				return d, p, p
			}
			b, err := os.ReadFile(p) // a worktree or submodule: "gitdir: PATH"
			if err != nil {
				return "", "", ""
			}
			g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
			if !ok {
				return "", "", ""
			}
			g = strings.TrimSpace(g)
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			common = g
			if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
				cd := strings.TrimSpace(string(c))
				if !filepath.IsAbs(cd) {
					cd = filepath.Join(g, cd)
				}
				common = filepath.Clean(cd)
			}
			return d, g, common
		}
		if filepath.Dir(d) == d {
			return "", "", ""
		}
	}
}

// headCommit reads the commit HEAD names, and its branch, from the
// repository's files: no git needed.
func headCommit(root string) (commit, branch string) {
	_, gitDir, common := gitDirs(root)
	if gitDir == "" {
		return "", ""
	}
	b, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", ""
	}
	head := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(head, "ref:")
	if !ok {
		return head, "" // detached
	}
	ref = strings.TrimSpace(ref)
	branch = strings.TrimPrefix(ref, "refs/heads/")
	for _, d := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(b)), branch
		}
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return "", branch
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sum, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
			return sum, branch
		}
	}
	return "", branch // a branch with no commit yet
}

// gitState is the commit root is at and, when git may run, whether the
// tree has uncommitted changes (and the first of them). Files modified
// since the call began are its outputs, not changes to the code or data
// it ran on, and are left out.
func gitState(ctx context.Context, root string, runGit bool, path string, since time.Time) *Git {
	commit, branch := headCommit(root)
	if commit == "" {
		return nil
	}
	g := &Git{Commit: commit, Branch: branch}
	if !runGit {
		return g
	}
	git := lookPath("git", path)
	if git == "" {
		return g
	}
	out, err := run(ctx, root, git, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return g
	}
	top, _, _ := gitDirs(root)
	dirty := false
	for _, l := range strings.Split(string(out), "\n") {
		if len(l) < 4 {
			continue
		}
		name := strings.Trim(l[3:], `"`)
		if i := strings.Index(name, " -> "); i >= 0 {
			name = name[i+4:]
		}
		abs := filepath.Join(top, filepath.FromSlash(name))
		if abs == filepath.Join(root, filepath.FromSlash(MirrorFile)) {
			continue // vibe's own record
		}
		if info, err := os.Stat(abs); err == nil && !since.IsZero() && !info.ModTime().Before(since) {
			continue // written by the call
		}
		dirty = true
		if len(g.Changed) < maxChanged {
			g.Changed = append(g.Changed, strings.TrimSpace(l[3:]))
		}
	}
	g.Dirty = &dirty
	return g
}
