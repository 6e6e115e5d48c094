package tamper

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vibe-science/vibe/internal/permission"
)

// noWriteTools are Claude Code's tools that change no file themselves (a
// Task's subagent changes files through calls of its own, each with its
// window).
var noWriteTools = map[string]bool{
	"Read": true, "Glob": true, "Grep": true, "LS": true, "WebFetch": true, "WebSearch": true,
	"TodoWrite": true, "Task": true, "Agent": true, "BashOutput": true, "KillShell": true, "KillBash": true,
	"ExitPlanMode": true, "NotebookRead": true, "ListMcpResourcesTool": true, "ReadMcpResourceTool": true,
	"AskUserQuestion": true,
}

// directTools write exactly the file their input names.
var directTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// capable reports whether a call of tool, naming named as written, can
// have made a change to rel (in the project at root): a Write or Edit
// changes only its file, a tool that writes nothing changes nothing,
// anything else (Bash, an MCP tool, a tool vibe does not know) anything.
// A Write's file is rel's also under another name: a hard link made
// earlier (`ln CLAIM-LEDGER.md /tmp/x`, then a Write of /tmp/x) or a
// symlink, which write rel's own bytes.
func capable(root, tool string, named []string, rel string) bool {
	switch {
	case directTools[tool]:
		for _, n := range named {
			if n == rel || strings.HasPrefix(n, rel+"/") { // the file, or a folder made for it
				return true
			}
		}
		return sameFile(root, named, rel)
	case noWriteTools[tool]:
		return false
	}
	return true
}

// blame is who a change is charged to.
type blame struct {
	w        *window // the call; nil with !external: the call checked now
	external bool    // no call's window explains it
	deferred bool    // a call still running may have made it: judged at its check
}

// attribute charges a change to a call only on evidence: the change's time
// (the file's ctime; for a removal, its folder's) must fall in the call's
// window, and the call must be able to make it (a Write changes only the
// file it names). The call checked now comes first; then the newest other
// window that explains it: a call still running (its check will judge the
// change), or one that has returned (a change found late, such as raw data
// reached by the rotation). A change no window explains was made outside
// any call. Until a project's calls are recorded (Begin), every change is
// the checked call's, as before windows existed.
func (sc *scan) attribute(rel, change string, st fileStat) blame {
	ws := &sc.s.win
	if !ws.used {
		return blame{}
	}
	t := sc.changeTime(rel, change, st)
	coarse := t%1e9 == 0 // a file system that keeps whole seconds
	if !sc.c.Full && sc.c.Tool != "" {
		if sc.x == nil {
			// No window for this call: its PreToolUse did not record it
			// (a tool PreToolUse does not see, a hook that did not run).
			if capable(sc.c.Root, sc.c.Tool, sc.c.Named, rel) && !noWriteTools[sc.c.Tool] {
				return blame{}
			}
		} else if capable(sc.c.Root, sc.x.Tool, sc.x.Named, rel) && sc.x.covers(t, coarse) {
			// Open to the present: what this check itself does is the
			// call's doing too, as far as dates go.
			return blame{}
		}
	}
	var best *window
	for _, w := range ws.byID {
		if w == sc.x || !w.covers(t, coarse) || !capable(sc.c.Root, w.Tool, w.Named, rel) {
			continue
		}
		if best == nil || w.Start > best.Start {
			best = w
		}
	}
	switch {
	case best == nil:
		return blame{external: true}
	case best.open() && !best.Background:
		return blame{w: best, deferred: true}
	}
	return blame{w: best}
}

// changeTime is when the change to rel happened, as the file system
// says: the file's change time, or for a removed file the change time of
// the nearest folder above it that is still there.
func (sc *scan) changeTime(rel, change string, st fileStat) int64 {
	if change != Deleted && st != (fileStat{}) {
		return changeTime(st)
	}
	for dir := parentRel(rel); ; dir = parentRel(dir) {
		if t, ok := sc.dirTimes[dir]; ok {
			return t
		}
		if pst, err := sc.lstat(dir); err == nil {
			return changeTime(pst)
		}
		if dir == "." {
			return 0
		}
	}
}

// roleFor is the role, the named files and whether the tool was a direct
// write, of the call a change is charged to.
func (sc *scan) roleFor(b blame) (role string, named func(string) bool, direct bool) {
	if b.w == nil || b.w == sc.x {
		return sc.role, sc.named, sc.c.Direct
	}
	w := b.w
	return sc.c.Policy.RoleFor(w.Agent, sc.c.Policy.TeamMode()),
		func(rel string) bool { return slices.Contains(w.Named, rel) }, directTools[w.Tool]
}

// retry leaves a change for a later check: the folder of a created file is
// listed again then.
func (sc *scan) retry(rel string) {
	if d := sc.ix.Dirs[parentRel(rel)]; d != nil {
		delete(d.names, path.Base(rel))
		d.Stat = fileStat{}
		sc.lazy = true
	}
}

// external takes a change made outside any call as it is: the snapshot
// holds the file now, the version before it is kept (Prior) for `vibe
// tamper restore`, and the change is reported once.
func (sc *scan) external(rel string, e *entry, change string, st fileStat) {
	sc.touchFile(rel)
	f := Finding{Path: rel, Change: change, Set: e.Set, Outcome: External}
	prior := e.version()
	if e.External {
		prior = e.Prior // the version before the first outside change is the one to go back to
	}
	if _, inIndex := sc.ix.Files[rel]; !inIndex {
		prior = nil // created: before, there was no file
	}
	if change == Deleted {
		if e.Blob {
			sc.ix.BlobBytes -= e.Stat.Size
		}
		sc.ix.Files[rel] = &entry{Set: e.Set, Cold: e.Cold, External: true, Gone: true, Prior: prior}
		sc.s.listsDirty = true
		sc.findings = append(sc.findings, f)
		return
	}
	if change == ModeChanged {
		f.Meta = metaChange(e.Stat, st)
	}
	ne := &entry{Set: e.Set, Cold: e.Cold}
	if old := sc.ix.Files[rel]; old != nil && old.Blob {
		sc.ix.BlobBytes -= old.Stat.Size
	}
	sc.read(rel, ne)
	ne.External, ne.Prior = true, prior
	if sc.ix.Files[rel] == nil {
		sc.s.listsDirty = true
	}
	sc.ix.Files[rel] = ne
	sc.watchParent(rel, e.Set)
	sc.findings = append(sc.findings, f)
}

// version is the entry as a version to go back to (its stat and kept
// content), nil for a file that is gone.
func (e *entry) version() *entry {
	if e.Gone {
		return e.Prior
	}
	return &entry{Stat: e.Stat, Set: e.Set, Cold: e.Cold, Sum: e.Sum, Hashed: e.Hashed, Blob: e.Blob, Pack: e.Pack, Off: e.Off}
}

// metaChange describes a mode or owner change.
func metaChange(from, to fileStat) string {
	s := ""
	if from.Mode.Perm != to.Mode.Perm {
		s = fmt.Sprintf("mode %04o -> %04o", from.Mode.Perm, to.Mode.Perm)
	}
	if from.Uid != to.Uid || from.Gid != to.Gid {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("owner %d:%d -> %d:%d", from.Uid, from.Gid, to.Uid, to.Gid)
	}
	return s
}

// folderChanged judges a change to a folder of a guarded tree itself:
// removed (recreated, with its mode and owner; its files are restored by
// their own comparison) or given another mode or owner (put back). It
// reports whether the folder was put back, so its listing is not read as
// the call's.
func (sc *scan) folderChanged(rel string, d *dirEntry, st fileStat, err error) bool {
	probe := joinRel(rel, ".vibe-probe")
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		b := sc.attribute(probe, Deleted, fileStat{})
		if b.deferred || b.external {
			return false // its files say the rest
		}
		role, _, _ := sc.roleFor(b)
		action, rule, instead := sc.c.Policy.WriteAction(role, probe)
		if action == permission.Allow {
			return false
		}
		// A folder that held guarded files comes back with them, which
		// their findings tell; an empty one is a finding of its own.
		silent := false
		for f := range sc.ix.Files {
			if strings.HasPrefix(f, rel+"/") {
				silent = true
				break
			}
		}
		f := Finding{Path: rel, Change: Deleted, Set: d.Set, Folder: true, Rule: rule, Instead: instead, Outcome: Restored}
		sc.by(&f, b)
		sc.acted = true
		if err := sc.realParents(probe); err == nil {
			err = os.MkdirAll(sc.abs(rel), 0o755)
			if err == nil {
				now, _ := lstat(sc.abs(rel))
				err = setMeta(sc.abs(rel), now, d.Stat)
			}
			if err != nil {
				f.Outcome, f.Err = Unrestorable, err
			}
		} else {
			f.Outcome, f.Err = Unrestorable, err
		}
		if !silent || f.Outcome != Restored {
			sc.findings = append(sc.findings, f)
		}
		if now, err := lstat(sc.abs(rel)); err == nil {
			d.Stat = now
			d.names = nil
		}
		sc.touchDir(rel)
		return f.Outcome == Restored
	case err == nil && st.Mode.Kind == kindDir && d.Stat != (fileStat{}) && !st.sameMeta(d.Stat):
		b := sc.attribute(probe, ModeChanged, st)
		if b.deferred {
			return false
		}
		f := Finding{Path: rel, Change: ModeChanged, Set: d.Set, Folder: true, Meta: metaChange(d.Stat, st)}
		if b.external {
			f.Outcome = External
			sc.findings = append(sc.findings, f)
			return false
		}
		role, _, _ := sc.roleFor(b)
		action, rule, instead := sc.c.Policy.WriteAction(role, probe)
		if action == permission.Allow {
			return false
		}
		f.Rule, f.Instead, f.Outcome = rule, instead, Restored
		sc.by(&f, b)
		sc.acted = true
		if err := setMeta(sc.abs(rel), st, d.Stat); err != nil {
			f.Outcome, f.Err = Unrestorable, err
		}
		sc.findings = append(sc.findings, f)
		return false
	}
	return false
}

// newFolder judges a folder created inside a guarded tree: it is watched
// and what it holds judged file by file (a download the user approved
// stays); when the call's role may not create it there and nothing in it
// stayed, the folder itself is moved to quarantine too, so no empty
// folder is left where the role may not make one.
func (sc *scan) newFolder(rel, tree string, depth int, st fileStat) {
	b := sc.attribute(rel, Created, st)
	if b.deferred {
		sc.retry(rel)
		return
	}
	if b.external {
		sc.findings = append(sc.findings, Finding{Path: rel, Change: Created, Set: tree, Folder: true, Outcome: External})
		sc.watchNew(rel, tree, depth)
		return
	}
	sc.watchNew(rel, tree, depth)
	role, _, _ := sc.roleFor(b)
	action, rule, instead := sc.c.Policy.WriteAction(role, rel)
	if action == permission.Allow {
		return
	}
	if ents, err := os.ReadDir(sc.abs(rel)); err != nil || len(ents) > 0 {
		return
	}
	f := Finding{Path: rel, Change: Created, Set: tree, Folder: true, Rule: rule, Instead: instead}
	sc.by(&f, b)
	sc.acted = true
	if q, err := sc.quarantine(rel); err != nil {
		f.Outcome, f.Err = Unrestorable, err
	} else {
		f.Outcome, f.Quarantine = Quarantined, q
		delete(sc.ix.Dirs, rel)
		sc.s.listsDirty = true
		sc.touchDir(rel)
	}
	sc.findings = append(sc.findings, f)
}

// by names, in a finding, the call it is charged to when that is not the
// call checked now.
func (sc *scan) by(f *Finding, b blame) {
	if b.w != nil && b.w != sc.x {
		f.ByTool, f.ByID, f.ByAgent = b.w.Tool, b.w.ID, b.w.Agent
	}
}

// sameFile reports whether one of named (project-relative or absolute) is
// rel's file under another name, as the file system says now: a hard link
// or a symlink to it. Only a change to rel asks, so the stats are few.
func sameFile(root string, named []string, rel string) bool {
	if root == "" || len(named) == 0 {
		return false
	}
	target, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	for _, n := range named {
		p := filepath.FromSlash(n)
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if st, err := os.Stat(p); err == nil && os.SameFile(st, target) {
			return true
		}
	}
	return false
}
