package tamper

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/permission"
)

// Accept takes guarded files as they are now into the project's snapshot,
// for a person who changed them outside a tool call (a git pull of
// colleagues' reviews, a dataset copied into raw/, an edit of
// .claude/settings.json in an editor): rels are project-relative paths
// (files, or folders for everything guarded under them); none means the
// whole project, whose snapshot is taken again. The project's policy on
// disk decides what is guarded. It returns the paths accepted (a file that
// is gone is dropped from the snapshot).
func (g *Guard) Accept(root string, rels []string, now time.Time) ([]string, error) {
	if root == "" {
		return nil, errors.New("tamper accept: no project root")
	}
	policy, err := permission.Load(root)
	if err != nil {
		return nil, fmt.Errorf("tamper accept: %w (fix the policy first: the snapshot follows it)", err)
	}
	s := g.state(root)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := g.load(s, root); err != nil {
		return nil, err
	}
	c := Call{Root: root, Policy: policy, Now: now}
	if s.ix == nil || len(rels) == 0 {
		s.ix = nil
		rep, err := g.firstSight(s, c)
		if err != nil {
			return nil, err
		}
		return []string{fmt.Sprintf("the whole project (%d protected files)", rep.Files)}, nil
	}
	s.gen++
	sc := scan{g: g, s: s, c: c, ix: s.ix, gen: s.gen}
	// The brief copy first: the files it binds are judged guarded by it.
	sort.SliceStable(rels, func(i, j int) bool { return rels[i] == integritycheck.ProjectBriefFile && rels[j] != rels[i] })
	var done []string
	for _, rel := range rels {
		sc.brief = g.keptBrief(s)
		rel = strings.TrimPrefix(path.Clean(filepath.ToSlash(rel)), "./")
		if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			return done, fmt.Errorf("tamper accept: %s is outside the project %s", rel, root)
		}
		targets := []string{rel}
		if st, err := sc.lstat(rel); err == nil && st.Mode.Kind == kindDir {
			targets = nil
			for f := range s.ix.Files {
				if f == rel || strings.HasPrefix(f, rel+"/") || rel == "." {
					targets = append(targets, f)
				}
			}
			sc.findNew(rel, &targets, 0)
		}
		for _, t := range targets {
			if sc.acceptOne(t) {
				done = append(done, t)
			}
		}
	}
	sc.brief = g.keptBrief(s)
	sc.extendForBrief()
	sc.restatDirs()
	s.listsDirty = true
	return done, g.save(s)
}

// acceptOne re-reads one file into the snapshot, or drops it when it is
// gone or not guarded.
func (sc *scan) acceptOne(rel string) bool {
	set := guardedSet(sc.c.Policy, sc.brief, rel)
	if e := sc.ix.Files[rel]; e != nil && e.Set != "" && set == "" {
		set = e.Set // inside a guarded tree
	}
	if t, ok := sc.c.Policy.GuardedFolder(parentRel(rel)); ok && set == "" {
		set = t
	}
	st, err := sc.lstat(rel)
	if set == "" || err != nil || st.Mode.Kind != kindRegular {
		if e := sc.ix.Files[rel]; e != nil {
			if e.Blob {
				sc.ix.BlobBytes -= e.Stat.Size
			}
			delete(sc.ix.Files, rel)
			return true
		}
		return false
	}
	e := &entry{Set: set, Cold: isCold(set)}
	if old := sc.ix.Files[rel]; old != nil && old.Blob {
		sc.ix.BlobBytes -= old.Stat.Size
	}
	sc.read(rel, e)
	sc.ix.Files[rel] = e
	sc.watchParent(rel, set)
	return true
}

// findNew lists the files under dir that the snapshot does not hold yet.
func (sc *scan) findNew(dir string, found *[]string, depth int) {
	if depth > 32 {
		return
	}
	ents, err := os.ReadDir(sc.abs(dir))
	if err != nil {
		return
	}
	for _, de := range ents {
		child := joinRel(dir, de.Name())
		if de.IsDir() {
			if !skipDirs[de.Name()] && !sc.isHome(child) {
				sc.findNew(child, found, depth+1)
			}
			continue
		}
		if _, ok := sc.ix.Files[child]; !ok && de.Type().IsRegular() {
			*found = append(*found, child)
		}
	}
}

// Pending is a change made outside any tool call, kept as it is until a
// person accepts it or restores the earlier version.
type Pending struct {
	Path   string `json:"path"`
	Change string `json:"change"` // Modified, Created, Deleted, ModeChanged
	Set    string `json:"set"`
}

// Pending lists the project's changes made outside any tool call that no
// person has accepted or restored yet, by path.
func (g *Guard) Pending(root string) ([]Pending, error) {
	s, unlock, err := g.loaded(root)
	if s == nil {
		return nil, err
	}
	defer unlock()
	var out []Pending
	for rel, e := range s.ix.Files {
		if !e.External {
			continue
		}
		p := Pending{Path: rel, Set: e.Set, Change: Modified}
		switch {
		case e.Gone:
			p.Change = Deleted
		case e.Prior == nil:
			p.Change = Created
		case e.Prior.Sum == e.Sum:
			p.Change = ModeChanged
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Restore puts back, for each pending change made outside any call at or
// under the project-relative paths rels (none: all of them), the version
// before it: a changed or removed file gets its earlier content, mode and
// owner back (what stands there now is moved to quarantine), a created one
// is moved to quarantine. It returns the paths restored.
func (g *Guard) Restore(root string, rels []string, now time.Time) ([]string, error) {
	if root == "" {
		return nil, errors.New("tamper restore: no project root")
	}
	s, unlock, err := g.loaded(root)
	if s == nil {
		return nil, err
	}
	defer unlock()
	s.gen++
	sc := scan{g: g, s: s, c: Call{Root: root, Now: now}, ix: s.ix, gen: s.gen}
	under := func(f string) bool {
		if len(rels) == 0 {
			return true
		}
		for _, r := range rels {
			r = strings.TrimPrefix(path.Clean(filepath.ToSlash(r)), "./")
			if r == "." || f == r || strings.HasPrefix(f, r+"/") {
				return true
			}
		}
		return false
	}
	var done []string
	var errs []error
	for _, rel := range sortedKeysOf(s.ix.Files) {
		e := s.ix.Files[rel]
		if !e.External || !under(rel) {
			continue
		}
		if err := sc.restoreVersion(rel, e); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", rel, err))
			continue
		}
		done = append(done, rel)
	}
	sc.restatDirs()
	s.listsDirty = true
	if err := g.save(s); err != nil {
		errs = append(errs, err)
	}
	return done, errors.Join(errs...)
}

// loaded locks and loads the project's snapshot; s is nil (with the error,
// if any) when there is none, and then nothing is left locked.
func (g *Guard) loaded(root string) (s *state, unlock func(), err error) {
	s = g.state(root)
	s.mu.Lock()
	if err := g.load(s, root); err != nil || s.ix == nil {
		s.mu.Unlock()
		return nil, nil, err
	}
	return s, s.mu.Unlock, nil
}

// restoreVersion puts the version before an outside change back at rel.
func (sc *scan) restoreVersion(rel string, e *entry) error {
	p := e.Prior
	if _, err := sc.lstat(rel); err == nil {
		if _, err := sc.quarantine(rel); err != nil {
			return err
		}
	}
	if p == nil { // created outside any call: moved aside, no longer guarded
		delete(sc.ix.Files, rel)
		return nil
	}
	if !p.Blob {
		return errors.New("vibe kept only its hash (larger than the snapshot cap): restore it from your own copy")
	}
	if err := sc.realParents(rel); err != nil {
		return err
	}
	perm := fs.FileMode(p.Stat.Mode.Perm) & fs.ModePerm
	var staged string
	var err error
	if p.Pack {
		var data []byte
		if data, err = sc.s.pack.read(p.Off, p.Stat.Size, p.Sum); err == nil {
			staged, err = stageData(filepath.Dir(sc.abs(rel)), data, perm)
		}
	} else {
		staged, err = sc.g.blobs.stage(p.Sum, filepath.Dir(sc.abs(rel)), perm)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(staged, sc.abs(rel)); err != nil {
		os.Remove(staged)
		return err
	}
	now, err := lstat(sc.abs(rel))
	if err != nil {
		return err
	}
	if err := setMeta(sc.abs(rel), now, p.Stat); err != nil {
		return err
	}
	now, _ = lstat(sc.abs(rel))
	ne := *p
	ne.Stat, ne.External, ne.Gone, ne.Prior = now, false, false, nil
	sc.ix.Files[rel] = &ne
	sc.touchFile(rel)
	return nil
}

func sortedKeysOf(m map[string]*entry) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
