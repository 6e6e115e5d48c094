// Package project holds project identity and the project's research files:
// the root (CLAUDE_PROJECT_DIR in a hook, else the git top level of cwd,
// else cwd), the `.vibe-science/` folder and paths inside it. It touches the file system with stat calls only and never
// runs git, because it sits on every hook's hot path.
package project

import (
	"os"
	"path/filepath"

	"github.com/vibe-science/vibe/internal/vibehome"
)

// Dir is the per-project research folder.
const Dir = ".vibe-science"

// Project is a resolved project.
type Project struct {
	Root string // absolute, symlinks resolved
	Git  bool   // Root is a git top level
}

// Resolve finds the project for cwd: the nearest ancestor holding `.git`
// (a folder, or a file in worktrees and submodules), else cwd itself.
func Resolve(cwd string) Project {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		abs = filepath.Clean(cwd)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for dir := abs; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return Project{Root: dir, Git: true}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return Project{Root: abs}
}

// EnvProjectDir is the variable Claude Code sets, for every hook, to the
// folder the session was started in; it stays there when the shell's cwd
// moves.
const EnvProjectDir = "CLAUDE_PROJECT_DIR"

// ResolveEnv is the project of a hook event: CLAUDE_PROJECT_DIR when the
// hook's environment names an existing folder, so a cd into a nested
// repository or into a subfolder of a project without git does not move
// the root (and with it the protected raw data and policy); else Resolve.
func ResolveEnv(cwd string, getenv func(string) string) Project {
	if getenv != nil {
		if dir := getenv(EnvProjectDir); dir != "" && filepath.IsAbs(dir) {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				root := filepath.Clean(dir)
				if real, err := filepath.EvalSymlinks(root); err == nil {
					root = real
				}
				_, err := os.Lstat(filepath.Join(root, ".git"))
				return Project{Root: root, Git: err == nil}
			}
		}
	}
	return Resolve(cwd)
}

// VibeDir is <root>/.vibe-science.
func (p Project) VibeDir() string { return filepath.Join(p.Root, Dir) }

// Path joins elements under the research folder.
func (p Project) Path(elem ...string) string {
	return filepath.Join(append([]string{p.VibeDir()}, elem...)...)
}

// Rel makes an absolute path project-relative with forward slashes; a path
// outside the project is returned absolute.
func (p Project) Rel(abs string) string {
	rel, err := filepath.Rel(p.Root, abs)
	if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == ".."+string(filepath.Separator) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// Name is the project's folder name.
func (p Project) Name() string { return filepath.Base(p.Root) }

// OptedIn reports whether the project rooted at root takes part in vibe:
// the root or a folder above it holds a .vibe-science folder (`vibe init`
// makes it), vibe's own home (VIBE_HOME, or a .vibe-science folder holding a
// database folder) excepted. The rule is vibehome.OptedIn's, which the hook
// clients share; it costs a stat or two per folder up to the file system's
// root.
func OptedIn(root, home string) bool {
	if root == "" {
		return false
	}
	isDir := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.IsDir()
	}
	return vibehome.OptedIn(filepath.Clean(root), filepath.Clean(home), isDir)
}
