package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vibe-science/vibe/internal/project"
)

// FindProject is the vibe project a project command works on: the project
// of dir (default the current folder) when it holds .vibe-science/, else
// the nearest folder above dir that does. vibe's own home (~/.vibe-science by
// default) is not a project, although it has the same name: from $HOME,
// `vibe gate check` used to check nothing and pass. Outside any project the
// error is a usage error (exit 2), so a CI job in the wrong folder fails.
func (f *Factory) FindProject(dir string) (project.Project, error) {
	p := project.Resolve(dir)
	home := f.Paths().Home
	isProject := func(root string) bool {
		vd := filepath.Join(root, project.Dir)
		info, err := os.Stat(vd)
		return err == nil && info.IsDir() && !sameDir(vd, home)
	}
	if isProject(p.Root) {
		return p, nil
	}
	start := dir
	if start == "" {
		start, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(start); err == nil {
		start = abs
	}
	if real, err := filepath.EvalSymlinks(start); err == nil {
		start = real
	}
	for d := start; ; {
		if isProject(d) {
			return project.Project{Root: d}, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if dir != "" {
		if _, err := os.Stat(start); errors.Is(err, os.ErrNotExist) {
			return project.Project{}, &UsageError{fmt.Errorf("--project %s: no such folder", dir)}
		}
	}
	return project.Project{}, &UsageError{fmt.Errorf("not a vibe project (no %s/ in %s or above); run `vibe init` there, or pass --project DIR", project.Dir, start)}
}

func sameDir(a, b string) bool {
	if b == "" {
		return false
	}
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ia, ib)
}

// ProjectRoot is the root of the project --project names (default: the
// current folder's); all (--all, or a filter that spans projects such as
// --session) means every project and returns "".
func (f *Factory) ProjectRoot(dir string, all bool) (string, error) {
	if all {
		return "", nil
	}
	p, err := f.FindProject(dir)
	if err != nil {
		return "", err
	}
	return p.Root, nil
}
