package research

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// VibeDir is the project's research folder; gitignore rules never hide it.
const VibeDir = ".vibe-science"

// MaxBytes is the largest file recognition considers: a larger file is a
// dump, a model checkpoint or an archive, not an artifact the gates judge
// in a session (`vibe gate run` judges any file on request).
const MaxBytes = 1 << 30

// skipNames are folders that are never research, whatever they hold, and
// why.
var skipNames = map[string]string{
	"node_modules":     "dependencies",
	"bower_components": "dependencies",
	"vendor":           "dependencies",
	"site-packages":    "dependencies",
	"venv":             "a virtual environment",
	"__pycache__":      "a cache",
	"build":            "build output",
	"dist":             "build output",
	"target":           "build output",
	"_build":           "build output",
	"testdata":         "test fixtures",
	"htmlcov":          "a coverage report",
	"lightning_logs":   "training logs",
	"wandb":            "an experiment tracker's cache",
	"mlruns":           "an experiment tracker's store",
	"catboost_info":    "training logs",
	"renv":             "an R library",
	"packrat":          "an R library",
	"__MACOSX":         "an archive's metadata",
	"$RECYCLE.BIN":     "a trash folder",
}

// SkipName says why a folder of this name is never research ("" when it
// may be): hidden folders other than .vibe-science (version control,
// .venv, caches, editor settings), dependencies, virtual environments,
// caches, build output, test fixtures.
func SkipName(name string) string {
	if name == VibeDir {
		return ""
	}
	if strings.HasPrefix(name, ".") {
		switch name {
		case ".git", ".hg", ".svn", ".jj":
			return "version control"
		case ".venv", ".tox", ".nox", ".conda":
			return "a virtual environment"
		}
		return "a hidden folder"
	}
	if why := skipNames[name]; why != "" {
		return why
	}
	if strings.HasSuffix(name, ".egg-info") || strings.HasSuffix(name, ".dist-info") {
		return "build output"
	}
	return ""
}

// skipEntries says why a folder is not research by what it holds: a
// virtual environment (pyvenv.cfg) or a conda environment (conda-meta/).
func skipEntries(entries []fs.DirEntry) string {
	for _, e := range entries {
		switch e.Name() {
		case "pyvenv.cfg":
			if !e.IsDir() {
				return "a virtual environment"
			}
		case "conda-meta":
			if e.IsDir() {
				return "a conda environment"
			}
		}
	}
	return ""
}

// Ignore holds a project's skip rules: the folder names and markers above,
// and the project's .gitignore files (and .git/info/exclude), which hide
// folders, never single files: a `*.csv` line keeps tables out of git, it
// does not make them any less research. Inside .vibe-science/ and the
// research-question folders (RQ-*) at the root, vibe's own rules alone
// apply. Safe for concurrent use.
type Ignore struct {
	root string
	mu   sync.Mutex
	// files caches each folder's .gitignore rules by the file's size and
	// modification time.
	files map[string]ignoreFile
}

type ignoreFile struct {
	size, mtime int64
	rules       []ignoreRule
}

// NewIgnore returns the skip rules of the project rooted at root
// (absolute, symlinks resolved).
func NewIgnore(root string) *Ignore {
	return &Ignore{root: filepath.Clean(root), files: map[string]ignoreFile{}}
}

// Dir says why the folder abs, holding entries, is not research; "" when
// it is. Its parents are not looked at (Walk never enters a skipped
// folder; Path checks each).
func (ig *Ignore) Dir(abs string, entries []fs.DirEntry) string {
	if abs == ig.root {
		return ""
	}
	if why := SkipName(filepath.Base(abs)); why != "" {
		return why
	}
	if why := skipEntries(entries); why != "" {
		return why
	}
	if ig.vibeOwned(abs) {
		return ""
	}
	if ig.gitignored(abs) {
		return "listed in .gitignore"
	}
	return ""
}

// vibeOwned reports a path inside .vibe-science/ or a research-question
// folder at the root.
func (ig *Ignore) vibeOwned(abs string) bool {
	rel, err := filepath.Rel(ig.root, abs)
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return first == VibeDir || IsRQ(first)
}

// gitignored applies the .gitignore files from the root down to abs's
// parent to the folder abs: the last matching rule wins, a deeper file's
// rules after a shallower one's.
func (ig *Ignore) gitignored(abs string) bool {
	rel, err := filepath.Rel(ig.root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	rel = filepath.ToSlash(rel)
	ignored := false
	apply := func(rules []ignoreRule, sub string) {
		for _, r := range rules {
			if r.match(sub, true) {
				ignored = !r.negate
			}
		}
	}
	apply(ig.rules(filepath.Join(ig.root, ".git", "info", "exclude")), rel)
	dir := ig.root
	segs := strings.Split(rel, "/")
	for i := range segs {
		apply(ig.rules(filepath.Join(dir, ".gitignore")), strings.Join(segs[i:], "/"))
		dir = filepath.Join(dir, segs[i])
	}
	return ignored
}

// rules returns the parsed rules of one ignore file, nil when there is
// none.
func (ig *Ignore) rules(p string) []ignoreRule {
	info, err := os.Stat(p)
	ig.mu.Lock()
	defer ig.mu.Unlock()
	if err != nil || !info.Mode().IsRegular() {
		delete(ig.files, p)
		return nil
	}
	if f, ok := ig.files[p]; ok && f.size == info.Size() && f.mtime == info.ModTime().UnixNano() {
		return f.rules
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	f := ignoreFile{size: info.Size(), mtime: info.ModTime().UnixNano(), rules: parseIgnore(raw)}
	ig.files[p] = f
	return f.rules
}

// Path says why the file or folder at abs is not research because of a
// folder it lies in (or, for a folder, the folder itself); "" when it may
// be. Outside the root is never research. It stats each folder's markers,
// so callers use it on the paths a call wrote, not in a walk.
func (ig *Ignore) Path(abs string) string {
	rel, err := filepath.Rel(ig.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "outside the project"
	}
	if rel == "." {
		return ""
	}
	segs := strings.Split(rel, string(filepath.Separator))
	dir := ig.root
	for i, s := range segs {
		dir = filepath.Join(dir, s)
		last := i == len(segs)-1
		if last {
			info, err := os.Stat(dir)
			if err != nil || !info.IsDir() {
				return ""
			}
		}
		if why := SkipName(s); why != "" {
			return why
		}
		if _, err := os.Stat(filepath.Join(dir, "pyvenv.cfg")); err == nil {
			return "a virtual environment"
		}
		if info, err := os.Stat(filepath.Join(dir, "conda-meta")); err == nil && info.IsDir() {
			return "a conda environment"
		}
		if !ig.vibeOwned(dir) && ig.gitignored(dir) {
			return "listed in .gitignore"
		}
	}
	return ""
}

// Walk calls fn for every regular file under the root that lies in no
// skipped folder, in lexical order, and visit (when not nil) for every
// folder it enters. Unreadable folders below the root are passed over;
// an unreadable root is the error.
func Walk(ig *Ignore, visit func(dir string, entries []fs.DirEntry), fn func(abs string, e fs.DirEntry)) error {
	entries, err := os.ReadDir(ig.root)
	if err != nil {
		return err
	}
	ig.walk(ig.root, entries, visit, fn)
	return nil
}

func (ig *Ignore) walk(dir string, entries []fs.DirEntry, visit func(string, []fs.DirEntry), fn func(string, fs.DirEntry)) {
	if visit != nil {
		visit(dir, entries)
	}
	for _, e := range entries {
		abs := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if SkipName(e.Name()) != "" {
				continue
			}
			sub, err := os.ReadDir(abs)
			if err != nil {
				continue
			}
			if ig.Dir(abs, sub) != "" {
				continue
			}
			ig.walk(abs, sub, visit, fn)
		case e.Type().IsRegular():
			fn(abs, e)
		}
	}
}
