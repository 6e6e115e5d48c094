package tamper

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/permission"
)

// scan is one check of one project.
type scan struct {
	g  *Guard
	s  *state
	c  Call
	ix *index

	role  string       // the role the call ran as
	brief *brief.Brief // the brief the snapshot keeps (keptBrief)
	// x is the checked call's window (nil: none recorded).
	x *window
	// dirTimes are the watched folders' change times when the check began.
	dirTimes map[string]int64
	// treeBudget is what is left of newTreeBudget in this check.
	treeBudget int

	gen      uint64          // this check's number (entry.seen)
	seen     map[string]bool // created files already judged in this check
	names    map[string]bool // Named and MoreNamed, once asked
	findings []Finding
	dirty    bool // the index changed and must be saved
	lazy     bool // only stats changed: saved with the next change or at Stop
	// changedFiles and changedDirs are what the journal gets.
	changedFiles, changedDirs map[string]bool
	acted                     bool // a file was restored or moved: folder stats changed
	stats                     int  // stat calls made
}

// touchFile and touchDir note an entry changed (or went away).
func (sc *scan) touchFile(rel string) {
	if sc.changedFiles == nil {
		sc.changedFiles = map[string]bool{}
	}
	sc.changedFiles[rel], sc.dirty = true, true
}

func (sc *scan) touchDir(rel string) {
	if sc.changedDirs == nil {
		sc.changedDirs = map[string]bool{}
	}
	sc.changedDirs[rel], sc.dirty = true, true
}

// dirStat stats a watched folder, through its symlink when it has one.
func (sc *scan) dirStat(d *dirEntry) (fileStat, error) {
	sc.stats++
	if d.abs == "" {
		return fileStat{}, fs.ErrNotExist
	}
	if d.Link != "" {
		return stat(d.abs)
	}
	return lstat(d.abs)
}

// checkLink looks at the symlink a guarded folder is reached through: a
// link removed or pointed elsewhere by a role that may not write the
// folder is put back (what stood there moved to quarantine), so its files
// are compared, and restored, where they were.
func (sc *scan) checkLink(rel string, d *dirEntry) {
	sc.stats++
	if t, err := os.Readlink(d.abs); err == nil && t == d.Link {
		return
	}
	probe := joinRel(rel, ".vibe-probe")
	action, rule, instead := sc.c.Policy.WriteAction(sc.role, probe)
	if action == permission.Allow {
		if t, err := os.Readlink(d.abs); err == nil {
			d.Link = t // moved by a role that may: follow it
		} else {
			d.Link = ""
		}
		sc.touchDir(rel)
		return
	}
	f := Finding{Path: rel, Change: Modified, Set: d.Set, Rule: rule, Instead: instead, Outcome: Restored}
	sc.acted = true
	if _, err := lstat(d.abs); err == nil {
		q, err := sc.quarantine(rel)
		if err != nil {
			f.Outcome, f.Err = Unrestorable, err
			sc.findings = append(sc.findings, f)
			return
		}
		f.Quarantine = q
	}
	if err := os.Symlink(d.Link, d.abs); err != nil {
		f.Outcome, f.Err = Unrestorable, err
	}
	f.Link = d.Link
	sc.findings = append(sc.findings, f)
	sc.touchDir(rel)
}

// isHome reports whether the project folder rel is VIBE_HOME (kept inside
// the project, its quarantine would look like guarded files).
func (sc *scan) isHome(rel string) bool {
	return sc.abs(rel) == filepath.Clean(sc.g.opts.Home)
}

// lstat stats a project file and counts it (Report.Stats).
func (sc *scan) lstat(rel string) (fileStat, error) {
	sc.stats++
	return lstat(sc.abs(rel))
}

func (sc *scan) abs(rel string) string {
	if rel == "." {
		return sc.c.Root
	}
	return filepath.Join(sc.c.Root, filepath.FromSlash(rel))
}

// run compares, in order: the watched folders (relisted when their stat
// changed, to find created and removed files), the hot files, the files the
// call names, and a slice of the cold files (all of them with Full).
func (sc *scan) run() {
	hot, cold := sc.s.lists()
	// Every watched folder is stat'ed before anything is restored or moved
	// aside: a folder's change time dates the removals in it (changeTime),
	// and vibe's own undoing must not date them again.
	type dirSeen struct {
		st  fileStat
		err error
	}
	seen := make([]dirSeen, len(sc.s.dirs))
	for i, rel := range sc.s.dirs {
		d := sc.ix.Dirs[rel]
		if d == nil {
			continue
		}
		if d.abs == "" {
			d.abs = sc.abs(rel)
		}
		if d.Link != "" {
			sc.checkLink(rel, d)
		}
		seen[i].st, seen[i].err = sc.dirStat(d)
		if seen[i].err == nil {
			if sc.dirTimes == nil {
				sc.dirTimes = map[string]int64{}
			}
			sc.dirTimes[rel] = changeTime(seen[i].st)
		}
	}
	for i, rel := range sc.s.dirs {
		d := sc.ix.Dirs[rel]
		if d == nil {
			continue
		}
		st, err := seen[i].st, seen[i].err
		if err == nil && st.same(d.Stat) || err != nil && d.Stat == (fileStat{}) {
			continue
		}
		if d.Set != "" && d.Link == "" && sc.folderChanged(rel, d, st, err) {
			continue
		}
		sc.relist(rel, d, st, err)
	}
	for _, rel := range hot {
		if e := sc.ix.Files[rel]; e != nil {
			sc.compare(rel, e)
		}
	}
	for _, rel := range sc.c.Named {
		rel = strings.TrimPrefix(filepath.ToSlash(rel), "./")
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		if e := sc.ix.Files[rel]; e != nil {
			sc.compare(rel, e)
			continue
		}
		if set := guardedSet(sc.c.Policy, sc.brief, rel); set != "" {
			sc.created(rel, set)
		}
	}
	n := sc.g.opts.ColdPerCall
	if sc.c.Full || n >= len(cold) {
		n = len(cold)
	}
	for i := 0; i < n; i++ {
		if sc.s.cursor >= len(cold) {
			sc.s.cursor = 0
		}
		rel := cold[sc.s.cursor]
		sc.s.cursor++
		if e := sc.ix.Files[rel]; e != nil {
			sc.compare(rel, e)
		}
	}
	if sc.c.Full {
		reported := map[string]bool{}
		for _, f := range sc.findings {
			reported[f.Path] = true
		}
		for rel, e := range sc.ix.Files {
			if e.Tampered && e.Hashed && !reported[rel] {
				sc.stillTampered(rel, e)
			}
		}
	}
}

// relist looks at a watched folder whose stat changed: new guarded files
// are judged as created, new sub-folders are watched (and their files
// judged) when they lie in a guarded tree or a watched zone. Removed files
// are found by compare.
func (sc *scan) relist(rel string, d *dirEntry, st fileStat, err error) {
	sc.lazy = true // a folder stat alone is saved at the next real change or Stop
	if err != nil || st.Mode.Kind != kindDir {
		d.Stat = fileStat{} // gone: its files are judged as deleted
		return
	}
	d.Stat = st
	dir, err := os.Open(sc.abs(rel))
	if err != nil {
		return
	}
	names, err := dir.Readdirnames(-1)
	dir.Close()
	if err != nil {
		return
	}
	// Only names the last listing did not have are looked at: a folder of
	// analysis outputs gains one file, not a thousand stat calls.
	known := d.names
	d.names = make(map[string]bool, len(names))
	for _, name := range names {
		d.names[name] = true
		if known[name] {
			continue
		}
		child := joinRel(rel, name)
		cst, err := sc.lstat(child)
		if err != nil {
			continue
		}
		if cst.Mode.Kind == kindDir {
			if sc.ix.Dirs[child] != nil || skipDirs[name] || sc.isHome(child) {
				continue
			}
			tree := d.Set
			if tree == "" {
				tree, _ = sc.c.Policy.GuardedFolder(child)
			}
			depth := -2
			switch {
			case tree != "" || d.Depth == -1:
				depth = -1
			case d.Depth > 0:
				depth = d.Depth - 1
			}
			if z, ok := zoneDepth(child); ok && tree == "" {
				depth = z
			}
			switch {
			case tree != "":
				sc.newFolder(child, tree, depth, cst)
			case depth != -2:
				sc.watchNew(child, tree, depth)
			default:
				sc.newTree(child)
			}
			continue
		}
		if cst.Mode.Kind != kindRegular && !(d.Set != "" && cst.Mode.Kind == kindLink) {
			continue
		}
		if sc.ix.Files[child] != nil || sc.seen[child] {
			continue
		}
		set := d.Set
		if set == "" {
			set = guardedSet(sc.c.Policy, sc.brief, child)
		}
		if set != "" {
			sc.created(child, set)
		}
	}
	// A name that left the folder (removed, renamed) is a change to the
	// file it held, raw data included: compared now, not when the rotation
	// reaches it.
	for _, f := range sc.s.filesIn(rel) {
		if e := sc.ix.Files[f]; e != nil {
			sc.compare(f, e)
		}
	}
}

// watchNew starts watching a new folder and judges the guarded files in it
// (and, in a tree or zone, in its sub-folders) as created.
func (sc *scan) watchNew(rel, tree string, depth int) {
	st, err := sc.lstat(rel)
	if err != nil || st.Mode.Kind != kindDir {
		return
	}
	sc.ix.Dirs[rel] = &dirEntry{Stat: st, Set: tree, Depth: depth, Cold: isCold(tree)}
	sc.touchDir(rel)
	sc.s.listsDirty = true
	sc.relist(rel, sc.ix.Dirs[rel], st, nil)
}

// compare judges one snapshotted file: an unchanged stat costs nothing
// more; a changed one is hashed and, when the content differs, judged.
func (sc *scan) compare(rel string, e *entry) {
	if e.seen == sc.gen {
		return
	}
	e.seen = sc.gen
	if e.abs == "" {
		e.abs = sc.abs(rel)
	}
	sc.stats++
	st, err := lstat(e.abs)
	if e.Gone {
		// Removed outside any call: back now, it is a new file.
		if err == nil {
			sc.judge(rel, e, Created, st)
		}
		return
	}
	switch {
	case err != nil && e.Stat == (fileStat{}):
		return // already known to be gone (an undo that failed)
	case err != nil:
		if !errors.Is(err, fs.ErrNotExist) {
			return // cannot tell; the next check tries again
		}
		sc.judge(rel, e, Deleted, fileStat{})
		return
	case st.same(e.Stat):
		return
	}
	if st.Mode.Kind != kindRegular || !e.Hashed {
		if !e.Hashed && st.Mode.Kind == kindRegular {
			// Not read yet (first sight over budget): nothing to compare
			// with; take it as it is now.
			e.Stat = st
			sc.lazy = true
			return
		}
		sc.judge(rel, e, Modified, st)
		return
	}
	sum, _, err := sc.g.blobs.hashFile(sc.abs(rel), false)
	if err != nil {
		return
	}
	if sum == e.Sum {
		if !st.sameMeta(e.Stat) && e.Stat.Mode.Kind == kindRegular {
			sc.judge(rel, e, ModeChanged, st)
			return
		}
		e.Stat = st // touched, linked: same content, mode and owner
		sc.lazy = true
		if e.Tampered {
			e.Tampered = false
			sc.touchFile(rel)
		}
		return
	}
	sc.judge(rel, e, Modified, st)
}

// created judges a guarded file that is not in the snapshot.
func (sc *scan) created(rel, set string) {
	if sc.seen[rel] {
		return
	}
	if sc.seen == nil {
		sc.seen = map[string]bool{}
	}
	sc.seen[rel] = true
	st, err := sc.lstat(rel)
	if err != nil || (st.Mode.Kind != kindRegular && st.Mode.Kind != kindLink) {
		return
	}
	sc.judge(rel, &entry{Set: set, Cold: isCold(set)}, Created, st)
}

// stillTampered reports, at Stop, a file whose forbidden change could not be
// undone and that still differs from its snapshot.
func (sc *scan) stillTampered(rel string, e *entry) {
	sum, _, err := sc.g.blobs.hashFile(sc.abs(rel), false)
	if err == nil && sum == e.Sum {
		e.Tampered = false
		sc.touchFile(rel)
		return
	}
	sc.findings = append(sc.findings, Finding{Path: rel, Change: Modified, Set: e.Set, Outcome: Unrestorable,
		Sum: hex.EncodeToString(e.Sum[:]), Size: e.Stat.Size,
		Err: errors.New("it still differs from the snapshot taken before the forbidden change")})
}

// named reports whether the call names rel as a file it writes.
func (sc *scan) named(rel string) bool {
	if sc.names == nil {
		sc.names = map[string]bool{}
		list := sc.c.Named
		if sc.c.MoreNamed != nil {
			list = append(append([]string(nil), list...), sc.c.MoreNamed()...)
		}
		for _, n := range list {
			sc.names[strings.TrimPrefix(filepath.ToSlash(n), "./")] = true
		}
	}
	return sc.names[rel]
}

// judge decides one change: an allowed write is taken into the snapshot,
// anything else is undone. Allowed means the role may write the file
// (Policy.WriteAction allows it), or the policy asks and the call named the
// file (the user was asked and approved), or a raw-data file is new and the
// call was a download the user approved.
func (sc *scan) judge(rel string, e *entry, change string, st fileStat) {
	b := sc.attribute(rel, change, st)

	switch {
	case b.deferred:
		if change == Created {
			sc.retry(rel)
		}
		return
	case b.external:
		sc.external(rel, e, change, st)
		return
	}
	sc.touchFile(rel)
	role, named, direct := sc.roleFor(b)
	action, rule, instead := sc.c.Policy.WriteAction(role, rel)
	if set, ok := briefSet(e.Set); ok {
		action, rule, instead = permission.Deny, set, "the research brief's Critical constraint "+strings.TrimPrefix(set, SetBriefPrefix)+" protects this file: no role changes it."
	}
	accept := false
	switch action {
	case permission.Allow:
		accept = true
	case permission.Ask:
		accept = named(rel)
	case permission.Deny:
		accept = change == Created && isCold(e.Set) && st.Mode.Kind == kindRegular && b.w == nil &&
			sc.c.Approved != nil && sc.c.Approved(sc.c.Policy, rel)
	}
	// Claude Code itself writes a "don't ask again" rule into the local
	// settings when the user chooses it: no agent's doing, whatever the
	// policy says of agents writing there.
	if !accept && action != permission.Allow && rel == claudeLocalSettings && st.Mode.Kind == kindRegular {
		old, err1 := []byte("{}"), error(nil)
		if change == Modified && e.Blob {
			old, err1 = sc.g.content(sc.s, e)
		}
		cur, err2 := os.ReadFile(sc.abs(rel))
		accept = (change == Created || change == Modified) && err1 == nil && err2 == nil && onlyPermissionsChanged(old, cur)
	}
	f := Finding{Path: rel, Change: change, Set: e.Set}
	sc.by(&f, b)
	if change == ModeChanged {
		f.Meta = metaChange(e.Stat, st)
	}
	if accept && e.Set == SetDomainConfig && change != Deleted && sc.c.Drift != nil && !(direct && named(rel)) {
		var old []byte
		if e.Blob {
			old, _ = sc.g.content(sc.s, e)
		}
		if cur, err := os.ReadFile(sc.abs(rel)); err == nil {
			if v, ok := sc.c.Drift(rel, old, cur); ok {
				f.Drift = &v
				if v.Result.Blocks() {
					accept = false
					rule, instead = "drift."+v.Check, v.Recommendation
				}
			}
		}
	}
	if accept && e.Set != SetDomainConfig && change != Deleted && sc.c.Veto != nil {
		content := func() (old, cur []byte, err error) {
			if change == Modified && e.Blob {
				if old, err = sc.g.content(sc.s, e); err != nil {
					return nil, nil, err
				}
			}
			cur, err = os.ReadFile(sc.abs(rel))
			return old, cur, err
		}
		if v, ok := sc.c.Veto(rel, content); ok {
			f.Veto = &v
			if v.Result.Blocks() {
				accept = false
				rule, instead = "veto."+v.Check, v.Recommendation
			}
		}
	}
	if accept {
		sc.accept(rel, e, change)
		// An accepted domain-config change is reported even without a
		// verdict, so its threshold changes are recorded: small loosenings
		// by a script must add up in the drift history like edits do.
		if f.Drift != nil || f.Veto != nil || e.Set == SetDomainConfig && change != Deleted {
			f.Outcome = Accepted
			sc.findings = append(sc.findings, f)
		}
		return
	}
	f.Rule, f.Instead = rule, instead
	sc.undo(&f, e, st)
	sc.findings = append(sc.findings, f)
}

// accept takes the file as it is now into the snapshot.
func (sc *scan) accept(rel string, e *entry, change string) {
	if change == Deleted {
		if e.Blob {
			sc.ix.BlobBytes -= e.Stat.Size
		}
		delete(sc.ix.Files, rel)
		sc.s.listsDirty = true
		return
	}
	ne := &entry{Set: e.Set, Cold: e.Cold}
	if old := sc.ix.Files[rel]; old != nil && old.Blob {
		sc.ix.BlobBytes -= old.Stat.Size
	}
	sc.read(rel, ne)
	if sc.ix.Files[rel] == nil {
		sc.s.listsDirty = true
	}
	sc.ix.Files[rel] = ne
	sc.watchParent(rel, e.Set)
}

// watchParent makes sure the folder of a guarded file is watched, so its
// removal or replacement by a rename is seen.
func (sc *scan) watchParent(rel, set string) {
	dir := parentRel(rel)
	if sc.ix.Dirs[dir] != nil {
		return
	}
	if st, err := sc.lstat(dir); err == nil && st.Mode.Kind == kindDir {
		tree := ""
		if t, ok := sc.c.Policy.GuardedFolder(dir); ok && t == set {
			tree = t
		}
		depth := 0
		if tree != "" {
			depth = -1
		}
		sc.ix.Dirs[dir] = &dirEntry{Stat: st, Set: tree, Depth: depth, Cold: isCold(tree)}
		sc.s.listsDirty = true
		sc.touchDir(dir)
	}
}

// read hashes the file into e, keeping its content when it fits the caps.
func (sc *scan) read(rel string, e *entry) {
	st, err := sc.lstat(rel)
	if err != nil || st.Mode.Kind != kindRegular {
		e.Stat, e.Hashed = st, false
		return
	}
	keep := st.Size <= sc.g.opts.MaxFileBytes && sc.ix.BlobBytes+st.Size <= sc.g.opts.MaxProjectBytes
	var sum [32]byte
	var n, off int64
	packed := keep && st.Size <= PackMaxBytes
	if packed {
		data, rerr := os.ReadFile(sc.abs(rel))
		err = rerr
		if err == nil {
			sum, n = sha256.Sum256(data), int64(len(data))
			off, err = sc.s.pack.add(data)
		}
	} else {
		sum, n, err = sc.g.blobs.hashFile(sc.abs(rel), keep)
	}
	if err != nil {
		e.Stat, e.Hashed = st, false
		return
	}
	if after, err := sc.lstat(rel); err == nil && !after.same(st) {
		st = fileStat{} // changed while read: compared again next time
	}
	if st != (fileStat{}) && n != st.Size {
		st = fileStat{}
	}
	e.Stat, e.Sum, e.Hashed, e.Blob, e.Tampered, e.Pack, e.Off = st, sum, true, keep, false, packed, off
	if keep {
		sc.ix.BlobBytes += n
	}
	sc.touchFile(rel)
}

// readPending reads files first seen but not read yet, hot ones first,
// until budget bytes were read or, with a Call.Clock, limit has passed.
func (sc *scan) readPending(budget int64, limit time.Duration) {
	sc.s.lists()
	var used int64
	read := false
	var deadline time.Time
	if sc.c.Clock != nil {
		deadline = sc.c.Clock().Add(limit)
	}
	for _, rel := range sc.s.unread {
		if used >= budget || sc.c.Clock != nil && sc.c.Clock().After(deadline) {
			break
		}
		e := sc.ix.Files[rel]
		if e == nil || e.Hashed {
			continue
		}
		sc.read(rel, e)
		used += e.Stat.Size
		read = true
	}
	if read {
		sc.s.listsDirty = true
	}
}

// undo reverses a forbidden change: a changed or deleted file is restored
// from its kept content (the changed version moved to quarantine first); a
// created file is moved to quarantine. Nothing is deleted.
func (sc *scan) undo(f *Finding, e *entry, st fileStat) {
	sc.acted = true
	path := sc.abs(f.Path)
	if f.Change == Created {
		q, err := sc.quarantine(f.Path)
		if err != nil {
			f.Outcome, f.Err = Unrestorable, err
			return
		}
		f.Outcome, f.Quarantine = Quarantined, q
		return
	}
	f.Sum, f.Size = hex.EncodeToString(e.Sum[:]), e.Stat.Size
	if f.Change == ModeChanged {
		if err := setMeta(path, st, e.Stat); err != nil {
			f.Outcome, f.Err = Unrestorable, err
			return
		}
		f.Outcome = Restored
		if after, err := lstat(path); err == nil {
			e.Stat = after
		}
		return
	}
	if !e.Blob {
		f.Outcome = Unrestorable
		if e.Hashed {
			f.Err = fmt.Errorf("it is larger than the %d MB vibe keeps a copy of; only its hash was kept", sc.g.opts.MaxFileBytes>>20)
		} else {
			f.Err = errors.New("vibe had not read it yet when it changed")
		}
		e.Stat, e.Tampered = st, true
		return
	}
	perm := fs.FileMode(e.Stat.Mode.Perm) & fs.ModePerm
	if perm == 0 {
		perm = 0o644
	}
	// A folder on the way replaced by a symlink would carry the restore
	// elsewhere: such a link is moved aside and the folder made again.
	if err := sc.realParents(f.Path); err != nil {
		f.Outcome, f.Err = Unrestorable, err
		e.Stat, e.Tampered = st, true
		return
	}
	// The kept content is written and checked beside the file first, so a
	// damaged copy leaves the file as it is.
	var staged string
	var err error
	if e.Pack {
		var data []byte
		if data, err = sc.s.pack.read(e.Off, e.Stat.Size, e.Sum); err == nil {
			staged, err = stageData(filepath.Dir(path), data, perm)
		}
	} else {
		staged, err = sc.g.blobs.stage(e.Sum, filepath.Dir(path), perm)
	}
	if err != nil {
		f.Outcome, f.Err = Unrestorable, err
		e.Stat, e.Tampered = st, true
		return
	}
	if f.Change == Modified {
		if q, err := sc.quarantine(f.Path); err == nil {
			f.Quarantine = q
		} else if st.Mode.Kind == kindDir {
			os.Remove(staged)
			f.Outcome, f.Err = Unrestorable, fmt.Errorf("a folder now stands in its place and could not be moved aside: %w", err)
			e.Stat, e.Tampered = st, true
			return
		}
	}
	if err := os.Rename(staged, path); err != nil {
		os.Remove(staged)
		f.Outcome, f.Err = Unrestorable, err
		e.Stat, e.Tampered = st, true
		return
	}
	f.Outcome = Restored
	if after, err := lstat(path); err == nil {
		if err := setMeta(path, after, e.Stat); err != nil {
			f.Err = err // the content is back; its owner could not be
		}
		if after, err := lstat(path); err == nil {
			e.Stat = after
		}
	}
	e.Tampered = false
}

// realParents makes sure every folder between the root and rel is a real
// folder: a symlink or file standing where one should be is moved to
// quarantine (missing folders are created by the restore).
func (sc *scan) realParents(rel string) error {
	parts := strings.Split(parentRel(rel), "/")
	if parentRel(rel) == "." {
		return nil
	}
	for i := range parts {
		dir := strings.Join(parts[:i+1], "/")
		st, err := lstat(sc.abs(dir))
		if err != nil {
			return nil // missing from here on: created by the restore
		}
		if st.Mode.Kind == kindDir {
			continue
		}
		if d := sc.ix.Dirs[dir]; d != nil && d.Link != "" && st.Mode.Kind == kindLink {
			if t, err := os.Readlink(sc.abs(dir)); err == nil && t == d.Link {
				continue // the folder kept elsewhere, as recorded
			}
		}
		if _, err := sc.quarantine(dir); err != nil {
			return fmt.Errorf("%s is no longer a folder and could not be moved aside: %w", dir, err)
		}
		return nil
	}
	return nil
}

// quarantine moves a file (or whatever stands at its path) into
// VIBE_HOME/tamper/quarantine/<project>/<time>/<path>.
func (sc *scan) quarantine(rel string) (string, error) {
	stamp := sc.c.Now.UTC().Format("20060102T150405Z")
	base := filepath.Join(sc.g.opts.Home, "tamper", "quarantine", projectKey(sc.c.Root), stamp)
	dst := filepath.Join(base, filepath.FromSlash(rel))
	for i := 2; ; i++ { // never replace an earlier quarantined version
		if _, err := os.Lstat(dst); err != nil {
			break
		}
		dst = filepath.Join(base+"-"+strconv.Itoa(i), filepath.FromSlash(rel))
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", fmt.Errorf("move %s aside: %w", rel, err)
	}
	// The name leaves its folder: a file created again under it is new.
	if d := sc.ix.Dirs[parentRel(rel)]; d != nil {
		delete(d.names, path.Base(rel))
	}
	src := sc.abs(rel)
	if err := os.Rename(src, dst); err == nil {
		return dst, nil
	}
	// Another file system: copy, then remove the original.
	st, err := lstat(src)
	if err != nil || st.Mode.Kind != kindRegular {
		return "", fmt.Errorf("move %s aside: it is not a regular file on the same file system as %s", rel, sc.g.opts.Home)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("move %s aside: %w", rel, err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		return "", fmt.Errorf("move %s aside: %w", rel, err)
	}
	if err := os.Remove(src); err != nil {
		return "", fmt.Errorf("move %s aside: %w", rel, err)
	}
	return dst, nil
}

// restatDirs refreshes the watched folders' stats after an undo changed
// them, so the next check does not relist them for vibe's own writes.
func (sc *scan) restatDirs() {
	for rel, d := range sc.ix.Dirs {
		if d.abs == "" {
			d.abs = sc.abs(rel)
		}
		st, err := sc.dirStat(d)
		if err != nil {
			if rel != "." {
				delete(sc.ix.Dirs, rel)
				sc.s.listsDirty = true
				sc.touchDir(rel)
			}
			continue
		}
		d.Stat = st
		sc.touchDir(rel)
	}
}

// newTreeBudget bounds the entries one check reads in new folders outside
// the watched zone.
const newTreeBudget = 4096

// newTree looks through a folder just made outside the watched zone for
// guarded files (a copy of the project's tree made inside it, a checkout
// of the repository under a new folder): each is judged as created, and a
// guarded tree in it is judged like one made in place.
func (sc *scan) newTree(rel string) {
	if sc.treeBudget == 0 {
		sc.treeBudget = newTreeBudget
	}
	var visit func(dir string, depth int)
	visit = func(dir string, depth int) {
		ents, err := os.ReadDir(sc.abs(dir))
		if err != nil || depth > 32 {
			return
		}
		for _, de := range ents {
			if sc.treeBudget--; sc.treeBudget <= 0 {
				sc.treeBudget = -1
				return
			}
			child := joinRel(dir, de.Name())
			switch {
			case de.IsDir():
				if skipDirs[de.Name()] || sc.isHome(child) || sc.ix.Dirs[child] != nil {
					continue
				}
				if tree, ok := sc.c.Policy.GuardedFolder(child); ok {
					if st, err := sc.lstat(child); err == nil {
						sc.newFolder(child, tree, -1, st)
					}
					continue
				}
				visit(child, depth+1)
			case de.Type().IsRegular():
				if sc.ix.Files[child] != nil || sc.seen[child] {
					continue
				}
				if set := guardedSet(sc.c.Policy, sc.brief, child); set != "" {
					sc.created(child, set)
				}
			}
		}
	}
	visit(rel, 0)
}
