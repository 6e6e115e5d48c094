package artifact

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/research"
)

// Kinds of artifact beyond the gate inputs of gate.Domain.FileKind: what
// research.Recognize calls them.
const (
	// KindFindingsSource is the JSON a findings file reports from
	// (FINDINGS.json beside FINDINGS.md): when it changes, DQ4 judges the
	// findings file again, so a stale Markdown is caught while the gap lasts.
	KindFindingsSource = research.KindFindingsSource
	// KindDesign is a research question's DESIGN.md, DESIGN.json or
	// DEVIATIONS.md: DC0 judges it.
	KindDesign = research.KindDesign
	// KindDirection is a note that sets a research direction: the hook
	// judges L-1 on it, which needs the session's literature searches, so
	// no gate of this package does.
	KindDirection = research.KindDirection
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
	// Label is a feature table's label column as recognition found it.
	Label string
	// RQ is the research-question folder holding the file, "" for none.
	RQ string
	// InData says the file is under the research question's data folder.
	InData  bool
	Size    int64
	MtimeNS int64
	// Prev is what was seen before; nil for a new file.
	Prev *State
}

// artifact is the change as research.Recognize had it.
func (c Change) artifact() research.Artifact { return research.Artifact{Kind: c.Kind, Label: c.Label} }

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
	// Removed are project-relative paths of artifacts that are gone, or
	// that are no longer an artifact of a kind the gates judge.
	Removed []string
	// Outputs are JSON files in the watched folders that changed during
	// the call (modified since it began) and are no artifact the gates
	// judge: results all the same (a FINDINGS.json written before its
	// FINDINGS.md), whose lineage is recorded.
	Outputs []Change
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
// events); a fresh one rebuilds itself from the Loader and one look at the
// research folders.
type Tracker struct {
	mu       sync.Mutex
	projects map[string]*tree
}

// NewTracker returns an empty tracker.
func NewTracker() *Tracker { return &Tracker{projects: map[string]*tree{}} }

// Default is the process's tracker.
var Default = NewTracker()

// dirState is one watched folder.
type dirState struct {
	mtime int64
	names map[string]bool // regular files and folders in it
	rq    string          // research-question folder
	deep  bool            // its subfolders are watched too
	data  bool            // under a research question's data folder
	top   bool            // the root or .vibe-science: where research folders appear
}

// stamp is a file's size and modification time.
type stamp struct{ size, mtime int64 }

type tree struct {
	mu     sync.Mutex
	root   string
	loaded bool
	ig     *research.Ignore
	dirs   map[string]*dirState
	files  map[string]*State // tracked artifacts by absolute path
	// other are files read and found to be no artifact the gates judge,
	// by their stamp then: not read again until they change.
	other map[string]stamp
	// prior is what the Loader recorded, during the first look only: a
	// recorded artifact whose stamp is unchanged keeps its kind unread.
	prior   map[string]State
	w       *watcher // kernel change reports, from the second look on
	noWatch bool     // watching failed: stat every look
	// read are the JSON files this look read and found to be no tracked
	// artifact (Scan.Outputs keeps those the call wrote).
	read []Change
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

// researchFolders are the names (after a numeric prefix such as 02-) of
// the folders at the project's root where research is written: they are
// watched whole, like the research questions.
var researchFolders = map[string]bool{"data": true, "analysis": true, "analyses": true, "results": true,
	"outputs": true, "output": true, "reports": true, "experiments": true, "evaluation": true, "eval": true,
	"metrics": true, "findings": true, "notebooks": true, "models": true}

// researchFolder reports whether a folder at the root is one where research
// is written (analysis/, results/, 02-data/…).
func researchFolder(name string) bool {
	return researchFolders[strings.TrimLeft(strings.ToLower(name), "0123456789-_")]
}

// dataFolder reports whether a research question's folder holds its data
// (02-data, data).
func dataFolder(name string) bool {
	n := strings.ToLower(name)
	return n == "data" || strings.HasSuffix(n, "-data") || strings.HasSuffix(n, "_data")
}

// Scan looks at the project rooted at root and returns the artifacts that
// changed since the last Scan (or, on first sight, since the Loader's
// record), plus written: the files the call is known to have written,
// which count wherever they lie in the project unless the folder is no
// research (research.Ignore); the folder of an artifact written there is
// watched from then on. Files first seen with a modification time before
// since are recorded as a baseline, not gated.
//
// Where it looks: the root and .vibe-science/ (for new research questions
// and research folders, and their own files), every research question
// (RQ-* at the root or in .vibe-science/) and every research folder at the
// root (analysis/, results/, data/, outputs/… see researchFolders) whole,
// and the folders of the artifacts recorded or written before. Other
// folders are never walked, so a large code base beside the research costs
// nothing.
func (t *Tracker) Scan(root string, d gate.Domain, written []string, since time.Time, load Loader) (s Scan) {
	tr := t.tree(root)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	s = Scan{Root: root}
	sinceNS := since.UnixNano()
	seen := map[string]bool{}
	tr.read = tr.read[:0]
	defer func() {
		for _, c := range tr.read {
			if c.MtimeNS >= sinceNS {
				s.Outputs = append(s.Outputs, c)
			}
		}
	}()
	if !tr.loaded {
		tr.dirs = map[string]*dirState{}
		tr.files = map[string]*State{}
		tr.other = map[string]stamp{}
		tr.ig = research.NewIgnore(root)
		var prior map[string]State
		if load != nil {
			if states, err := load(); err == nil {
				prior = make(map[string]State, len(states))
				for _, st := range states {
					prior[st.Rel] = st
				}
			}
		}
		tr.prior = prior
		tr.addDir(root, &dirState{top: true}, d, func(c Change) {
			if p, ok := prior[c.Rel]; ok {
				delete(prior, c.Rel)
				if c.Kind == "" {
					s.Removed = append(s.Removed, c.Rel) // no longer an artifact
					return
				}
				if p.Size == c.Size && p.MtimeNS == c.MtimeNS {
					st := p
					st.Kind = c.Kind
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
		tr.prior = nil
		for rel, st := range prior {
			abs := filepath.Join(root, filepath.FromSlash(rel))
			if _, err := os.Stat(abs); err != nil {
				s.Removed = append(s.Removed, rel)
				continue
			}
			// Recorded, and still there, outside the research folders (it
			// was written by path): keep watching it and its folder.
			tr.files[abs] = &st
			tr.watchFolder(filepath.Dir(abs))
		}
		sort.Strings(s.Removed)
		tr.loaded = true
	} else {
		tr.refresh(&s, d, seen)
	}
	for _, w := range written {
		w = filepath.Clean(w)
		if seen[w] || tr.ig.Path(w) != "" {
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
		tr.watchFolder(filepath.Dir(w))
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
	if ds, ok := tr.dirs[filepath.Dir(abs)]; ok && ds.rq != "" {
		return ds.rq
	}
	for dir := filepath.Dir(abs); ; {
		if research.IsRQ(filepath.Base(dir)) {
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

// classify stats one file and says what kind of artifact it is, by
// research.Recognize on its head: only kinds the gates judge are kept, and
// a file found to be none is not read again until it changes. Tables in a
// raw data folder, and files that cannot be a gate's input by their name,
// are not read at all.
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
	st := stamp{c.Size, c.MtimeNS}
	if prev, ok := tr.other[abs]; ok && prev == st {
		return c, true
	}
	if p, ok := tr.prior[c.Rel]; ok && p.Size == c.Size && p.MtimeNS == c.MtimeNS && research.Tracked(p.Kind) {
		// Recorded as it is now: what it was then, it still is (its
		// label is read again when it changes).
		c.Kind = p.Kind
		return c, true
	}
	if c.Size > research.MaxBytes || !research.MayBeGated(c.Rel, &d) {
		return c, true
	}
	f, err := research.ReadFile(abs, c.Rel)
	if err != nil {
		return c, true
	}
	a := research.Recognize(f, d)
	if !research.Tracked(a.Kind) {
		tr.other[abs] = st
		if strings.EqualFold(filepath.Ext(abs), ".json") {
			tr.read = append(tr.read, c)
		}
		return c, true
	}
	delete(tr.other, abs)
	c.Kind, c.Label = a.Kind, a.Label
	return c, true
}

// addDir starts watching a folder, unless it is no research
// (research.Ignore), and reports what is in it; subfolders of a deep
// folder, and research questions and research folders in a top folder,
// are watched too.
func (tr *tree) addDir(dir string, ds *dirState, d gate.Domain, found func(Change)) {
	if _, ok := tr.dirs[dir]; ok {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil || tr.ig.Dir(dir, entries) != "" {
		return
	}
	ds.mtime = mtime(dir)
	ds.names = make(map[string]bool, len(entries))
	tr.dirs[dir] = ds
	tr.watchAdd(dir)
	for _, e := range entries {
		ds.names[e.Name()] = true
		tr.entry(dir, ds, e.Name(), e.IsDir(), d, found)
	}
}

// watchFolder watches the folder of an artifact written outside the
// research folders, from now on: what is in it now is not reported.
func (tr *tree) watchFolder(dir string) {
	if _, ok := tr.dirs[dir]; ok {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil || tr.ig.Path(dir) != "" {
		return
	}
	ds := &dirState{rq: tr.rqOf(filepath.Join(dir, "x")), mtime: mtime(dir), names: make(map[string]bool, len(entries))}
	for _, e := range entries {
		ds.names[e.Name()] = true
	}
	tr.dirs[dir] = ds
	tr.watchAdd(dir)
}

func (tr *tree) watchAdd(dir string) {
	if tr.w != nil {
		if err := tr.w.add(dir); err != nil {
			// Past the watch limit: fall back to stat'ing everything.
			tr.w.close()
			tr.w, tr.noWatch = nil, true
		}
	}
}

// entry handles one name found in a watched folder.
func (tr *tree) entry(dir string, ds *dirState, name string, isDir bool, d gate.Domain, found func(Change)) {
	abs := filepath.Join(dir, name)
	if isDir {
		if research.SkipName(name) != "" {
			return
		}
		var child *dirState
		switch {
		case ds.deep:
			child = &dirState{rq: ds.rq, deep: true, data: ds.data || (dir == ds.rq && dataFolder(name))}
		case ds.top && research.IsRQ(name):
			child = &dirState{rq: abs, deep: true}
		case ds.top && dir == tr.root && name == project.Dir:
			child = &dirState{top: true}
		case ds.top && dir == tr.root && researchFolder(name):
			child = &dirState{deep: true}
		default:
			return
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

// refresh finds what changed since the last look: folders whose entries
// changed, artifacts whose size or time changed. In a long-lived process
// (the second look at a project onwards) the kernel says which folders and
// files were touched (inotify, watch_linux.go), so a call that changed
// nothing costs one read of an empty queue, and a file rewritten in place
// is read again whether or not it was an artifact before; otherwise, or
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
		for dir := range tr.dirs {
			dirs = append(dirs, dir)
		}
		for abs := range tr.files {
			files = append(files, abs)
		}
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
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
		if seen[abs] {
			continue
		}
		st, tracked := tr.files[abs]
		if !tracked {
			// Written in place in a watched folder (the kernel said so):
			// it may have become an artifact.
			if _, watched := tr.dirs[filepath.Dir(abs)]; !watched || strings.HasPrefix(filepath.Base(abs), ".") {
				continue
			}
			if c, ok := tr.classify(abs, d); ok && c.Kind != "" {
				report(c)
			}
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
		c, ok := tr.classify(abs, d)
		if !ok {
			continue
		}
		if c.Kind == "" {
			// Rewritten into something no gate judges.
			delete(tr.files, abs)
			s.Removed = append(s.Removed, st.Rel)
			continue
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
	delete(tr.other, abs)
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
	for abs := range tr.other {
		if strings.HasPrefix(abs, prefix) {
			delete(tr.other, abs)
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

// Judged records what the gates found of an artifact a Scan reported: the
// status of the gates run on it and DQ1's profile of a table (nil keeps
// the one seen before). The next change of the file in this process is
// then compared with this version, as a fresh process compares it with
// the record the Loader returns.
func (t *Tracker) Judged(root, abs, status string, profile []byte) {
	tr := t.tree(root)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if st, ok := tr.files[abs]; ok {
		st.Status = status
		if profile != nil {
			st.Profile = profile
		}
	}
}
