package tamper

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

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
	var done []string
	for _, rel := range rels {
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
	sc.restatDirs()
	s.listsDirty = true
	return done, g.save(s)
}

// acceptOne re-reads one file into the snapshot, or drops it when it is
// gone or not guarded.
func (sc *scan) acceptOne(rel string) bool {
	set := guardedSet(sc.c.Policy, rel)
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
