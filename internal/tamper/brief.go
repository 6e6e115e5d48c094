package tamper

import (
	"os"
	"path"
	"strings"

	"github.com/vibe-science/vibe/internal/integritycheck"
)

// SetBriefPrefix starts the set name of a file a Critical brief constraint
// protects ("brief.BC-001"): no role changes it, whatever the policy says.
const SetBriefPrefix = "brief."

// briefSet reports whether set is a brief constraint's.
func briefSet(set string) (string, bool) { return set, strings.HasPrefix(set, SetBriefPrefix) }

// extendForBrief adds to the snapshot the files the kept brief's Critical
// constraints bind and the snapshot does not hold yet (a brief ingested
// after the first snapshot), as they are now: nothing is judged; files
// only an earlier version bound are released. It runs once per version of
// the brief.
func (sc *scan) extendForBrief() {
	e := sc.ix.Files[integritycheck.ProjectBriefFile]
	if sc.brief == nil || e == nil || e.Sum == sc.ix.BriefSum {
		return
	}
	sc.ix.BriefSum = e.Sum
	sc.dirty = true
	// Files the earlier brief bound and this one does not are released.
	for rel, fe := range sc.ix.Files {
		if _, ok := briefSet(fe.Set); !ok {
			continue
		}
		if set := guardedSet(sc.c.Policy, sc.brief, rel); set != fe.Set {
			if set == "" {
				if fe.Blob {
					sc.ix.BlobBytes -= fe.Stat.Size
				}
				delete(sc.ix.Files, rel)
			} else {
				fe.Set = set
			}
			sc.touchFile(rel)
			sc.s.listsDirty = true
		}
	}
	budget := sc.g.opts.MaxWalk
	var visit func(rel string, depth int)
	visit = func(rel string, depth int) {
		st, err := sc.lstat(rel)
		if err != nil || budget <= 0 || depth > 32 {
			return
		}
		budget--
		switch st.Mode.Kind {
		case kindRegular:
			if sc.ix.Files[rel] != nil {
				return
			}
			if c, ok := sc.brief.Binding(rel); ok {
				ne := &entry{Set: SetBriefPrefix + c.ID}
				sc.read(rel, ne)
				sc.ix.Files[rel] = ne
				sc.s.listsDirty = true
				sc.watchParent(rel, ne.Set)
			}
		case kindDir:
			if skipDirs[path.Base(rel)] || sc.isHome(rel) {
				return
			}
			names, err := os.ReadDir(sc.abs(rel))
			if err != nil {
				return
			}
			for _, d := range names {
				visit(joinRel(rel, d.Name()), depth+1)
			}
		}
	}
	for _, root := range sc.brief.BindingRoots() {
		if root == ".." || strings.HasPrefix(root, "../") || path.IsAbs(root) {
			continue
		}
		visit(root, 0)
	}
}
