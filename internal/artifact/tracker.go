package artifact

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/literature"
	"github.com/vibe-science/vibe/internal/project"
)

// Kinds of artifact beyond the gate inputs of gate.Domain.FileKind.
const (
	// KindFindingsSource is the JSON a findings file reports from
	// (FINDINGS.json beside FINDINGS.md): when it changes, DQ4 judges the
	// findings file again, so a stale Markdown is caught while the gap lasts.
	KindFindingsSource = "findings-source"
	// KindDesign is a research question's DESIGN.md, DESIGN.json or
	// DEVIATIONS.md: DC0 judges it.
	KindDesign = "design"
	// KindDirection is a research direction by its name
	// (literature.IsDirectionFile): the hook judges L-1 on it, which needs
	// the session's literature searches, so no gate of this package does.
	KindDirection = "direction"
)

// State is what was seen of one artifact.
type State struct {
	Rel     string // project-relative, forward slashes
	Kind    string
	Size    int64
	MtimeNS int64
	SHA256  string
	Status  string // of the last gate run on it, "" when never gated
	Profile []byte // DQ1's column profile, JSON
}

// Change is an artifact that is new or changed since it was last seen, or a
// new file in a data folder (Kind "" and InData: DC0's executed files).
type Change struct {
	Abs, Rel, Kind string
	// RQ is the research-question folder holding the file, "" for none.
	RQ string
	// InData says the file is under the research question's data folder.
	InData  bool
	Size    int64
	MtimeNS int64
	// Prev is what was seen before; nil for a new file.
	Prev *State
}

// Loader returns what was recorded of a project's artifacts; the Tracker
// calls it once per project and process.
type Loader func() ([]State, error)

// Scan is what one look at a project found.
type Scan struct {
	Root    string
	Changes []Change
	// Baseline are artifacts seen for the first time that were not written
	// by this call: recorded, not gated.
	Baseline []State
	// Removed are project-relative paths of artifacts that are gone.
	Removed []string
	// known are every tracked artifact after the scan (for the gates that
	// judge a file because another one changed); listed only when
	// something changed.
	known []known
}

type known struct {
	abs, kind, rq string
}

// Tracker remembers, per project, what the gates last saw. One Tracker
// lives as long as the process (the resident worker keeps it across
// events); a fresh one rebuilds itself from the Loader and one walk.
type Tracker struct {
	mu       sync.Mutex
	projects map[string]*tree
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker { return &Tracker{projects: map[string]*tree{}} }

// Default is the process's tracker.
var Default = NewTracker()

type dirState struct {
	mtime int64
	names map[string]bool // regular files and folders in it
	rq    string          // research-question folder
	deep  bool            // walked recursively (data, analysis, results)
	data  bool            // under the data folder
}

type tree struct {
	mu      sync.Mutex
	root    string
	loaded  bool
	parents map[string]int64 // root and .vibe-science: where RQ folders appear
	dirs    map[string]*dirState
	files   map[string]*State // tracked artifacts by absolute path
	w       *watcher          // kernel change reports, from the second look on
	noWatch bool              // watching failed: stat every look
}

func (t *Tracker) tree(root string) *tree {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr, ok := t.projects[root]
	if !ok {
		tr = &tree{root: root}
		t.projects[root] = tr
	}
	return tr
}

// rqName matches a research-question folder: RQ-001 or RQ-001-slug.
var rqName = regexp.MustCompile(`^RQ-[0-9]{3,}(-.*)?$`)

// deepFolder reports whether a folder directly under a research question is
// watched recursively: its data, analysis, results and brainstorm folders
// (00-brainstorm, 02-data, 03-analysis, 04-results, or plain
// data/analysis/results/brainstorm).
func deepFolder(name string) (deep, data bool) {
	n := strings.ToLower(name)
	for _, s := range []string{"data", "analysis", "results", "brainstorm"} {
		if n == s || strings.HasSuffix(n, "-"+s) {
			return true, s == "data"
		}
	}
	return false, false
}

// skipName are folders never walked.
func skipName(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__"
}

// Scan looks at the project rooted at root and returns the artifacts that
// changed since the last Scan (or, on first sight, since the Loader's
// record), plus written: the files the call is known to have written,
// which count even outside the watched folders. Files first seen with a
// modification time before since are recorded as a baseline, not gated.
func (t *Tracker) Scan(root string, d gate.Domain, written []string, since time.Time, load Loader) Scan {
	tr := t.tree(root)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s := Scan{Root: root}
	sinceNS := since.UnixNano()
	seen := map[string]bool{}
	if !tr.loaded {
		tr.parents = map[string]int64{}
		tr.dirs = map[string]*dirState{}
		tr.files = map[string]*State{}
		var prior map[string]State
		if load != nil {
			if states, err := load(); err == nil {
				prior = make(map[string]State, len(states))
				for _, st := range states {
					prior[st.Rel] = st
				}
			}
		}
		tr.discover(&s, d, func(c Change) {
			if p, ok := prior[c.Rel]; ok {
				delete(prior, c.Rel)
				if p.Size == c.Size && p.MtimeNS == c.MtimeNS {
					st := p
					tr.files[c.Abs] = &st
					return
				}
				c.Prev = &p
			} else if c.MtimeNS < sinceNS {
				if c.Kind != "" {
					st := State{Rel: c.Rel, Kind: c.Kind, Size: c.Size, MtimeNS: c.MtimeNS}
					tr.files[c.Abs] = &st
					s.Baseline = append(s.Baseline, st)
				}
				return
			}
			tr.track(c)
			s.Changes = append(s.Changes, c)
			seen[c.Abs] = true
		})
		for rel, st := range prior {
			abs := filepath.Join(root, filepath.FromSlash(rel))
			if _, err := os.Stat(abs); err != nil {
				s.Removed = append(s.Removed, rel)
				continue
			}
			// Recorded, and still there, but outside the watched folders
			// (it was written by path): keep watching it.
			tr.files[abs] = &st
		}
		sort.Strings(s.Removed)
		tr.loaded = true
	} else {
		tr.refresh(&s, d, seen)
	}
	for _, w := range written {
		w = filepath.Clean(w)
		if seen[w] {
			continue
		}
		c, ok := tr.classify(w, d)
		if !ok || c.Kind == "" {
			continue
		}
		if prev, tracked := tr.files[w]; tracked {
			if prev.Size == c.Size && prev.MtimeNS == c.MtimeNS {
				continue
			}
			p := *prev
			c.Prev = &p
		}
		tr.track(c)
		s.Changes = append(s.Changes, c)
		seen[w] = true
	}
	if len(s.Changes) == 0 {
		return s // nothing to judge: the usual call stops here
	}
	for abs, st := range tr.files {
		s.known = append(s.known, known{abs: abs, kind: st.Kind, rq: tr.rqOf(abs)})
	}
	sort.Slice(s.known, func(i, j int) bool { return s.known[i].abs < s.known[j].abs })
	sort.Slice(s.Changes, func(i, j int) bool { return s.Changes[i].Abs < s.Changes[j].Abs })
	return s
}

// track records a change's new size and time as what was seen.
func (tr *tree) track(c Change) {
	if c.Kind == "" {
		return
	}
	st := State{Rel: c.Rel, Kind: c.Kind, Size: c.Size, MtimeNS: c.MtimeNS}
	if c.Prev != nil {
		st.Status, st.Profile, st.SHA256 = c.Prev.Status, c.Prev.Profile, c.Prev.SHA256
	}
	tr.files[c.Abs] = &st
}

// rel is abs relative to the project root, with forward slashes.
func (tr *tree) rel(abs string) string {
	return project.Project{Root: tr.root}.Rel(abs)
}

// rqOf is the research question holding abs, from the watched folders.
func (tr *tree) rqOf(abs string) string {
	if ds, ok := tr.dirs[filepath.Dir(abs)]; ok {
		return ds.rq
	}
	for dir := filepath.Dir(abs); ; {
		if rqName.MatchString(filepath.Base(dir)) {
			parent := filepath.Dir(dir)
			if parent == tr.root || parent == filepath.Join(tr.root, project.Dir) {
				return dir
			}
		}
		next := filepath.Dir(dir)
		if next == dir || !strings.HasPrefix(next, tr.root) {
			return ""
		}
		dir = next
	}
}

// classify stats one file and says what kind of artifact it is.
func (tr *tree) classify(abs string, d gate.Domain) (Change, bool) {
	info, err := os.Stat(abs)
	if err != nil || !info.Mode().IsRegular() {
		return Change{}, false
	}
	c := Change{Abs: abs, Rel: tr.rel(abs), Size: info.Size(), MtimeNS: info.ModTime().UnixNano()}
	c.RQ = tr.rqOf(abs)
	if ds, ok := tr.dirs[filepath.Dir(abs)]; ok {
		c.InData = ds.data
	}
	c.Kind = kindOf(c.Rel, c.RQ != "" && filepath.Dir(abs) == c.RQ, d)
	return c, true
}

// kindOf names the kind of artifact a project-relative path is, "" for none.
func kindOf(rel string, inRQRoot bool, d gate.Domain) string {
	if k := d.FileKind(rel); k != "" {
		return k
	}
	base := path.Base(rel)
	lower := strings.ToLower(base)
	if inRQRoot && (lower == "design.md" || lower == "design.json" || lower == "deviations.md") {
		return KindDesign
	}
	if literature.IsDirectionFile(rel) {
		return KindDirection
	}
	if strings.HasSuffix(lower, ".json") {
		md := strings.TrimSuffix(base, path.Ext(base)) + ".md"
		for _, pat := range d.Files.Findings {
			if gate.MatchPattern(pat, md) {
				return KindFindingsSource
			}
		}
	}
	return ""
}

// discover walks the project's research questions once, reporting every
// file with a kind and every data file.
func (tr *tree) discover(s *Scan, d gate.Domain, found func(Change)) {
	for _, parent := range []string{tr.root, filepath.Join(tr.root, project.Dir)} {
		tr.parents[parent] = mtime(parent)
		for _, rq := range rqFolders(parent) {
			tr.addRQ(rq, d, found)
		}
	}
}

func rqFolders(parent string) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && rqName.MatchString(e.Name()) {
			out = append(out, filepath.Join(parent, e.Name()))
		}
	}
	return out
}

// addRQ starts watching a research question: its own files and its data,
// analysis and results folders.
func (tr *tree) addRQ(rq string, d gate.Domain, found func(Change)) {
	tr.addDir(rq, &dirState{rq: rq}, d, found)
}

// addDir starts watching a folder and reports what is in it; deep folders
// are walked.
func (tr *tree) addDir(dir string, ds *dirState, d gate.Domain, found func(Change)) {
	if _, ok := tr.dirs[dir]; ok {
		return
	}
	ds.mtime = mtime(dir)
	ds.names = map[string]bool{}
	tr.dirs[dir] = ds
	if tr.w != nil {
		if err := tr.w.add(dir); err != nil {
			// Past the watch limit: fall back to stat'ing everything.
			tr.w.close()
			tr.w, tr.noWatch = nil, true
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		ds.names[e.Name()] = true
		tr.entry(dir, ds, e.Name(), e.IsDir(), d, found)
	}
}

// entry handles one name found in a watched folder.
func (tr *tree) entry(dir string, ds *dirState, name string, isDir bool, d gate.Domain, found func(Change)) {
	abs := filepath.Join(dir, name)
	if isDir {
		if skipName(name) {
			return
		}
		child := &dirState{rq: ds.rq, deep: ds.deep, data: ds.data}
		if !ds.deep {
			deep, data := deepFolder(name)
			if !deep || dir != ds.rq {
				return
			}
			child.deep, child.data = true, data
		}
		tr.addDir(abs, child, d, found)
		return
	}
	if strings.HasPrefix(name, ".") {
		return
	}
	c, ok := tr.classify(abs, d)
	if !ok {
		return
	}
	if c.Kind == "" && !(c.InData && !strings.EqualFold(filepath.Ext(name), ".md")) {
		return
	}
	found(c)
}

// refresh finds what changed since the last look: new research questions,
// folders whose entries changed, artifacts whose size or time changed. In
// a long-lived process (the second look at a project onwards) the kernel
// says which folders and files were touched (inotify, watch_linux.go), so a
// call that changed nothing costs one read of an empty queue; otherwise, or
// when the kernel dropped events, every watched folder and artifact is
// stat'ed.
func (tr *tree) refresh(s *Scan, d gate.Domain, seen map[string]bool) {
	report := func(c Change) {
		if c.Kind != "" {
			if prev, ok := tr.files[c.Abs]; ok {
				if prev.Size == c.Size && prev.MtimeNS == c.MtimeNS {
					return
				}
				p := *prev
				c.Prev = &p
			}
		}
		tr.track(c)
		s.Changes = append(s.Changes, c)
		seen[c.Abs] = true
	}
	var dirs, files []string
	full := true
	if tr.w == nil && !tr.noWatch {
		// The second look at this project in this process: from now on
		// the kernel reports changes. This look still checks everything,
		// since nothing watched the folders before it.
		tr.startWatching()
	} else if tr.w != nil {
		dirtyDirs, dirtyFiles, ok := tr.w.drain()
		if ok {
			full = false
			dirs, files = dirtyDirs, dirtyFiles
		}
	}
	if full {
		for parent := range tr.parents {
			dirs = append(dirs, parent)
		}
		for dir := range tr.dirs {
			dirs = append(dirs, dir)
		}
		for abs := range tr.files {
			files = append(files, abs)
		}
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		if old, ok := tr.parents[dir]; ok {
			if m := mtime(dir); m != old {
				tr.parents[dir] = m
				for _, rq := range rqFolders(dir) {
					tr.addRQ(rq, d, report)
				}
			}
			continue
		}
		ds, ok := tr.dirs[dir]
		if !ok {
			continue // dropped with a parent, or not watched
		}
		m := mtime(dir)
		if m == ds.mtime && full {
			continue
		}
		if m == 0 {
			tr.dropDir(dir, s)
			continue
		}
		ds.mtime = m
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		now := make(map[string]bool, len(entries))
		for _, e := range entries {
			name := e.Name()
			now[name] = true
			if ds.names[name] {
				continue
			}
			tr.entry(dir, ds, name, e.IsDir(), d, report)
		}
		for name := range ds.names {
			if !now[name] {
				tr.gone(filepath.Join(dir, name), s)
			}
		}
		ds.names = now
	}
	sort.Strings(files)
	for _, abs := range files {
		st, ok := tr.files[abs]
		if !ok || seen[abs] {
			continue
		}
		info, err := os.Stat(abs)
		if err != nil {
			tr.gone(abs, s)
			continue
		}
		if info.Size() == st.Size && info.ModTime().UnixNano() == st.MtimeNS {
			continue
		}
		c := Change{Abs: abs, Rel: st.Rel, Kind: st.Kind, RQ: tr.rqOf(abs), Size: info.Size(), MtimeNS: info.ModTime().UnixNano()}
		if ds, ok := tr.dirs[filepath.Dir(abs)]; ok {
			c.InData = ds.data
		}
		report(c)
	}
}

// startWatching asks the kernel to report changes in every watched folder;
// where it cannot (another system, the watch limit), the tree keeps
// stat'ing.
func (tr *tree) startWatching() {
	w, err := newWatcher()
	if err != nil {
		tr.noWatch = true
		return
	}
	for dir := range tr.parents {
		if err := w.add(dir); err != nil {
			w.close()
			tr.noWatch = true
			return
		}
	}
	for dir := range tr.dirs {
		if err := w.add(dir); err != nil {
			w.close()
			tr.noWatch = true
			return
		}
	}
	tr.w = w
}

// gone forgets a file or folder that disappeared.
func (tr *tree) gone(abs string, s *Scan) {
	if st, ok := tr.files[abs]; ok {
		delete(tr.files, abs)
		s.Removed = append(s.Removed, st.Rel)
	}
	if _, ok := tr.dirs[abs]; ok {
		tr.dropDir(abs, s)
	}
}

func (tr *tree) dropDir(dir string, s *Scan) {
	prefix := dir + string(filepath.Separator)
	for d := range tr.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(tr.dirs, d)
		}
	}
	for abs, st := range tr.files {
		if strings.HasPrefix(abs, prefix) {
			delete(tr.files, abs)
			s.Removed = append(s.Removed, st.Rel)
		}
	}
}

// mtime is a path's modification time in nanoseconds, 0 when it is gone.
func mtime(p string) int64 {
	info, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return info.ModTime().UnixNano()
}
