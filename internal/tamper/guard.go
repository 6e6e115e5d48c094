package tamper

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/verdict"
)

// The defaults of Options.
const (
	DefaultMaxFileBytes    = 64 << 20
	DefaultMaxProjectBytes = 4 << 30
	DefaultColdPerCall     = 64
	DefaultFirstSightBytes = 256 << 20
	DefaultCallHashBytes   = 8 << 20
	DefaultStopHashBytes   = 512 << 20
	DefaultMaxWalk         = 200_000
	DefaultFirstSightTime  = 1500 * time.Millisecond
	DefaultCallHashTime    = 20 * time.Millisecond
	DefaultStopHashTime    = 2 * time.Second
)

// SetDomainConfig is the set name of the domain configs
// (integritycheck.IsDomainConfig), guarded besides the policy's sets so that
// threshold drift made by any tool is judged.
const SetDomainConfig = "domain-config"

// Options tune a Guard; zero fields take the Default values.
type Options struct {
	// Home is VIBE_HOME; snapshots live in Home/tamper.
	Home string
	// MaxFileBytes is the largest file whose content is kept; a larger one
	// is kept as its hash only, and a change to it is blocked but cannot be
	// undone.
	MaxFileBytes int64
	// MaxProjectBytes caps the content kept per project; files beyond it
	// are kept as hashes, like large ones.
	MaxProjectBytes int64
	// ColdPerCall is how many raw-data files are stat'ed per tool call (a
	// rotating slice; Stop stats them all).
	ColdPerCall int
	// FirstSightBytes, CallHashBytes and StopHashBytes bound how much
	// content the first sight of a project, a tool call and a Stop read to
	// take snapshots of files not read yet.
	FirstSightBytes, CallHashBytes, StopHashBytes int64
	// FirstSightTime, CallHashTime and StopHashTime bound the same by
	// time, measured with Call.Clock: a first sight of 10k small files
	// costs seconds on a loaded machine, mostly in writing the copies.
	FirstSightTime, CallHashTime, StopHashTime time.Duration
	// MaxWalk bounds the entries the first sight looks at.
	MaxWalk int
}

func (o Options) withDefaults() Options {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxFileBytes, DefaultMaxFileBytes)
	def(&o.MaxProjectBytes, DefaultMaxProjectBytes)
	def(&o.FirstSightBytes, DefaultFirstSightBytes)
	def(&o.CallHashBytes, DefaultCallHashBytes)
	def(&o.StopHashBytes, DefaultStopHashBytes)
	if o.ColdPerCall <= 0 {
		o.ColdPerCall = DefaultColdPerCall
	}
	for _, d := range []struct {
		v *time.Duration
		d time.Duration
	}{{&o.FirstSightTime, DefaultFirstSightTime}, {&o.CallHashTime, DefaultCallHashTime}, {&o.StopHashTime, DefaultStopHashTime}} {
		if *d.v <= 0 {
			*d.v = d.d
		}
	}
	if o.MaxWalk <= 0 {
		o.MaxWalk = DefaultMaxWalk
	}
	return o
}

// Guard keeps the snapshots of every project seen under one VIBE_HOME. It
// is safe for concurrent use; the resident process keeps one per home (For)
// so a check costs stat calls only.
type Guard struct {
	opts  Options
	blobs blobs

	mu       sync.Mutex
	projects map[string]*state

	// clock is the open file fsNow writes to read the file system's time.
	clockMu sync.Mutex
	clock   *os.File
}

// New returns a Guard over opts.Home/tamper.
func New(opts Options) *Guard {
	opts = opts.withDefaults()
	return &Guard{opts: opts, blobs: newBlobs(filepath.Join(opts.Home, "tamper", "blobs")),
		projects: map[string]*state{}}
}

var (
	guardsMu sync.Mutex
	guards   = map[string]*Guard{}
)

// For returns the process's Guard for VIBE_HOME home with default options.
func For(home string) *Guard {
	guardsMu.Lock()
	defer guardsMu.Unlock()
	g := guards[home]
	if g == nil {
		g = New(Options{Home: home})
		guards[home] = g
	}
	return g
}

// state is one project's snapshot in memory.
type state struct {
	mu         sync.Mutex
	ix         *index
	file       string              // the saved index
	journal    string              // its journal
	saved      fileStat            // the index's stat when last read or written
	savedJ     fileStat            // the journal's
	cold       []string            // cold files, sorted, for the rotation
	hot        []string            // the other files, sorted
	unread     []string            // files not read yet, hot ones first
	dirs       []string            // watched folders, sorted (parents first)
	byDir      map[string][]string // the files of each folder
	listsDirty bool
	cursor     int
	gen        uint64 // checks made, to mark files compared in this one

	pack pack // small kept contents

	policySum [32]byte // the kept policy file policy was built from
	policy    *permission.Policy
	briefSum  [32]byte // the kept brief copy brief was read from
	brief     *brief.Brief

	win windows // the calls' windows (window.go)
}

// content returns a file's kept content, checked against its hash.
func (g *Guard) content(s *state, e *entry) ([]byte, error) {
	if e.Pack {
		return s.pack.read(e.Off, e.Stat.Size, e.Sum)
	}
	return g.blobs.read(e.Sum)
}

// keptPolicy is the policy built from the snapshot's copy of the project's
// permissions.json, or the default when the snapshot holds none (or a copy
// that no longer parses, which keeps every default protection).
func (g *Guard) keptPolicy(s *state) *permission.Policy {
	e := s.ix.Files[permission.ProjectFile]
	if e == nil || !e.Blob {
		return permission.Default()
	}
	if s.policy != nil && s.policySum == e.Sum {
		return s.policy
	}
	p := permission.Default()
	if raw, err := g.content(s, e); err == nil {
		if parsed, err := permission.Parse(raw); err == nil {
			p = parsed
		}
	}
	s.policy, s.policySum = p, e.Sum
	return p
}

// keptBrief is the brief read from the snapshot's copy of the project's
// brief (integritycheck.ProjectBriefFile), nil when it holds none: a brief
// changed by the call being checked does not decide what is guarded.
func (g *Guard) keptBrief(s *state) *brief.Brief {
	e := s.ix.Files[integritycheck.ProjectBriefFile]
	if e == nil || !e.Blob || e.Gone {
		return nil
	}
	if s.brief != nil && s.briefSum == e.Sum {
		return s.brief
	}
	raw, err := g.content(s, e)
	if err != nil {
		return nil
	}
	b, ok := integritycheck.ReadProjectBrief(raw)
	if !ok {
		return nil
	}
	s.brief, s.briefSum = &b, e.Sum
	return s.brief
}

func (g *Guard) state(root string) *state {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.projects[root]
	if s == nil {
		base := filepath.Join(g.opts.Home, "tamper", "projects", projectKey(root))
		s = &state{file: base + ".idx", journal: base + ".jnl", pack: pack{path: base + ".pack"}, win: windows{path: base + ".calls"}}
		g.projects[root] = s
	}
	return s
}

// Call is one tool call (or a Stop) to check the project after.
type Call struct {
	// Root is the project root, absolute and resolved.
	Root string
	// Policy judges the changes. Nil means the policy the snapshot holds:
	// the project's permissions.json as last accepted (else the default),
	// so a policy file changed by the call never judges its own change.
	// The first sight of a project loads the one on disk.
	Policy *permission.Policy
	// AgentType is the event's agent_type ("" on the main thread); the
	// role is the policy's RoleFor it.
	AgentType string
	// Tool and ToolUseID name the call; empty at Stop. Session is the
	// session the call or Stop belongs to: a Stop ends the windows its
	// session's calls left open.
	Tool, ToolUseID, Session string
	// Named are the project-relative files the call names as written: a
	// Write or Edit's file_path, what the shell analyser found in a Bash
	// command. PreToolUse judged these (and asked the user where the policy
	// asks), so a change to one of them by a role that may write it is an
	// allowed write. Direct says Named came from a Write, Edit, MultiEdit or
	// NotebookEdit (whose domain-config drift PreToolUse already judged).
	Named  []string
	Direct bool
	// MoreNamed adds the names that cost an analysis to find (a Bash
	// command's targets); it is called only when a changed file must be
	// judged.
	MoreNamed func() []string
	// Approved reports whether the new raw-data file rel came from a
	// download the user approved: the call downloads into rel, or policy p
	// (the one judging the check) asks the user before this call as a
	// download or clone. Called only when such a file appears.
	Approved func(p *permission.Policy, rel string) bool
	// Full stats every guarded file (Stop) instead of a slice of the cold
	// ones.
	Full bool
	// Drift judges a change of a domain config from old to new content (nil
	// old: no snapshot); a blocking verdict has the change undone.
	Drift func(rel string, old, new []byte) (verdict.Verdict, bool)
	// Veto judges every other allowed change (nil: none is judged), so a
	// caller can hold a file to rules of its own (the claim ledger's
	// promotions, internal/handler). A blocking verdict has the change
	// undone like a forbidden one; another is reported with the accepted
	// change.
	Veto Veto
	// Now dates quarantine folders; Clock, when set, is read to keep the
	// reading of not yet read files inside its time budget.
	Now   time.Time
	Clock func() time.Time
}

// Veto judges an allowed change of the guarded file rel (not a deletion);
// content gives the snapshot's content (nil when it kept none: a new file,
// or one kept as its hash only) and the file's content now. ok false: no
// opinion.
type Veto func(rel string, content func() (old, cur []byte, err error)) (v verdict.Verdict, ok bool)

// The changes a check finds.
const (
	Modified = "modified"
	Deleted  = "deleted"
	Created  = "created"
	// ModeChanged: the content is the same, the mode or the owner is not.
	ModeChanged = "mode changed"
)

// The outcomes of a finding.
const (
	// Accepted: an allowed write; the snapshot now holds the new content.
	Accepted = "accepted"
	// Restored: the file is back as it was (recreated when deleted); the
	// changed version, if any, was moved to Quarantine.
	Restored = "restored"
	// Quarantined: a file created where its creation is forbidden was
	// moved to Quarantine.
	Quarantined = "quarantined"
	// Unrestorable: a forbidden change vibe could not undo (the file was
	// larger than the snapshot cap, or the kept copy is damaged).
	Unrestorable = "unrestorable"
	// External: a change no call's window explains (a person, another
	// program): kept as it is, reported once, and left to a person's
	// `vibe tamper accept` or `vibe tamper restore`.
	External = "external"
)

// Finding is one changed guarded file and what was done about it.
type Finding struct {
	Path       string // project-relative
	Change     string // Modified, Deleted, Created
	Set        string // the guarding set (Policy.Guarded, SetDomainConfig)
	Outcome    string
	Rule       string // the policy rule that forbids the change, when it was undone
	Instead    string // what the role may do instead
	Quarantine string // where the changed or created version was moved
	Size       int64  // the restored content's size
	Sum        string // the restored content's SHA-256
	Err        error  // why an undo failed (Unrestorable)
	Link       string // for a folder kept elsewhere: the symlink target put back
	Drift      *verdict.Verdict
	Veto       *verdict.Verdict // Call.Veto's verdict on the change
	// Folder: Path is a folder (created, removed or changed in a guarded
	// tree); Meta describes a mode or owner change ("mode 0644 -> 0777").
	Folder bool
	Meta   string
	// ByTool, ByID and ByAgent name the call the change is charged to when
	// it is not the call checked now (a change found later, in that call's
	// window).
	ByTool, ByID, ByAgent string
}

// Report is the result of a check.
type Report struct {
	// FirstSight says the project had no snapshot: one was taken and
	// nothing was judged.
	FirstSight bool
	// Files is how many guarded files the snapshot holds; Pending how many
	// of them are not read yet.
	Files, Pending int
	Findings       []Finding
	// Stats is how many stat calls the check made in the project.
	Stats int
	// Policy judged the changes and Role is the role it gave the call.
	Policy *permission.Policy
	Role   string
}

// Blocks reports whether some finding undid (or could not undo) a change.
func (r Report) Blocks() bool {
	for _, f := range r.Findings {
		if f.Outcome != Accepted && f.Outcome != External {
			return true
		}
	}
	return false
}

// Check compares the project's guarded files with their snapshot, undoes
// the changes the call's role may not make and takes the allowed ones into
// the snapshot. The first check of a project takes the snapshot.
func (g *Guard) Check(c Call) (Report, error) {
	if c.Root == "" {
		return Report{}, errors.New("tamper check: no project root")
	}
	s := g.state(c.Root)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := g.load(s, c.Root); err != nil {
		return Report{}, err
	}
	// The windows: a Stop first ends the ones its session left open (every
	// call of the turn has returned); a call's window ends with this check
	// (its first snapshot included).
	if err := s.win.load(); err != nil {
		return Report{}, err
	}
	end, err := g.fsNow()
	if err != nil {
		return Report{}, err
	}
	if c.Full && c.Session != "" {
		if err := s.win.append(windowRecord{Op: "stop", window: window{Session: c.Session, End: end}}); err != nil {
			return Report{}, err
		}
	}
	var x *window
	if !c.Full && c.ToolUseID != "" {
		x = s.win.byID[c.ToolUseID]
	}
	endCall := func() error {
		if x != nil && x.open() {
			return s.win.append(windowRecord{Op: "end", window: window{ID: x.ID, End: end}})
		}
		return nil
	}
	if s.ix == nil {
		if c.Policy == nil {
			p, err := permission.Load(c.Root)
			if err != nil {
				p = permission.Default()
			}
			c.Policy = p
		}
		rep, err := g.firstSight(s, c)
		if err == nil {
			err = endCall()
		}
		return rep, err
	}
	if c.Policy == nil {
		c.Policy = g.keptPolicy(s)
	}
	s.gen++
	sc := scan{g: g, s: s, c: c, ix: s.ix, gen: s.gen, brief: g.keptBrief(s), x: x,
		role: c.Policy.RoleFor(c.AgentType, c.Policy.TeamMode())}
	sc.extendForBrief()
	sc.run()
	if err := endCall(); err != nil {
		return Report{}, err
	}
	if c.Full {
		sc.readPending(g.opts.StopHashBytes, g.opts.StopHashTime)
	} else {
		sc.readPending(g.opts.CallHashBytes, g.opts.CallHashTime)
	}
	rep := Report{Findings: sc.findings, Policy: c.Policy, Role: sc.role}
	if sc.acted {
		sc.restatDirs()
	}
	rep.Files, rep.Pending, rep.Stats = len(s.ix.Files), s.pending(), sc.stats
	switch {
	case c.Full && (sc.dirty || sc.lazy):
		if err := g.save(s); err != nil {
			return rep, err
		}
	case sc.dirty:
		if err := g.saveChanges(s, sc.changedFiles, sc.changedDirs); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// load reads the saved index when it is not in memory or another process
// saved a newer one.
func (g *Guard) load(s *state, root string) error {
	st, err := lstat(s.file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("tamper: stat %s: %w", s.file, err)
		}
		if s.ix != nil && s.saved != (fileStat{}) {
			s.ix = nil // the index was removed: take the snapshot again
			s.pack.close()
		}
		return nil
	}
	jst, _ := lstat(s.journal)
	if s.ix != nil && st.same(s.saved) && jst.same(s.savedJ) {
		return nil
	}
	ix, err := loadIndex(s.file, root)
	if err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	clean := true
	if ix != nil {
		if clean, err = replayJournal(s.journal, ix); err != nil {
			return fmt.Errorf("tamper: %w", err)
		}
		ix.BlobBytes = 0
		for _, e := range ix.Files {
			if e.Blob {
				ix.BlobBytes += e.Stat.Size
			}
		}
	}
	s.ix, s.saved, s.savedJ, s.listsDirty = ix, st, jst, true
	s.pack.close() // another process may have started a new pack
	if ix != nil && !clean {
		return g.save(s)
	}
	return nil
}

// save rewrites the index whole under a new ID (its journal then no
// longer applies and is removed).
func (g *Guard) save(s *state) error {
	s.ix.ID = newIndexID()
	if err := s.ix.save(s.file); err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	os.Remove(s.journal)
	if st, err := lstat(s.file); err == nil {
		s.saved = st
	}
	s.savedJ = fileStat{}
	return nil
}

// saveChanges appends the changed entries to the journal, or rewrites the
// index when the journal has grown past maxJournalBytes.
func (g *Guard) saveChanges(s *state, files, dirs map[string]bool) error {
	if s.savedJ.Size > maxJournalBytes {
		return g.save(s)
	}
	if err := appendJournal(s.journal, s.ix.ID, journalRecords(s.ix, files, dirs)); err != nil {
		return fmt.Errorf("tamper: %w", err)
	}
	if st, err := lstat(s.journal); err == nil {
		s.savedJ = st
	}
	return nil
}

// pending counts the files not read yet.
func (s *state) pending() int {
	s.lists()
	n := 0
	for _, rel := range s.unread {
		if e := s.ix.Files[rel]; e != nil && !e.Hashed {
			n++
		}
	}
	return n
}

// lists returns the hot and the cold files, each sorted (so findings come
// in a stable order and the rotation visits every cold file in turn).
// The lists are rebuilt only when the set of files changed, so a check
// that finds nothing does not walk the index.
func (s *state) lists() (hot, cold []string) {
	if s.listsDirty || s.cold == nil && s.hot == nil {
		// New slices, not the old ones emptied: a scan may hold the lists
		// it took while a change it judges has them rebuilt.
		s.cold, s.hot, s.unread = nil, nil, nil
		s.byDir = make(map[string][]string, len(s.ix.Dirs))
		var unreadCold []string
		for rel, e := range s.ix.Files {
			dir := parentRel(rel)
			s.byDir[dir] = append(s.byDir[dir], rel)
			if e.Cold {
				s.cold = append(s.cold, rel)
			} else {
				s.hot = append(s.hot, rel)
			}
			switch {
			case e.Hashed:
			case e.Cold:
				unreadCold = append(unreadCold, rel)
			default:
				s.unread = append(s.unread, rel)
			}
		}
		sort.Strings(s.cold)
		sort.Strings(s.hot)
		for _, files := range s.byDir {
			sort.Strings(files)
		}
		s.dirs = nil
		for rel := range s.ix.Dirs {
			s.dirs = append(s.dirs, rel)
		}
		sort.Strings(s.dirs)
		sort.Strings(s.unread)
		sort.Strings(unreadCold)
		s.unread = append(s.unread, unreadCold...)
		s.listsDirty = false
	}
	return s.hot, s.cold
}

// filesIn lists the snapshot's files in the folder dir.
func (s *state) filesIn(dir string) []string {
	s.lists()
	return s.byDir[dir]
}

// guardedSet names the set guarding a file, "" when none: the policy's
// sets, the domain configs, the files a Critical brief constraint binds
// (b, the brief as the snapshot keeps it; nil for none).
func guardedSet(p *permission.Policy, b *brief.Brief, rel string) string {
	if set, ok := p.Guarded(rel); ok {
		return set
	}
	if integritycheck.IsDomainConfig(rel) {
		return SetDomainConfig
	}
	if b != nil {
		if c, ok := b.Binding(rel); ok {
			return SetBriefPrefix + c.ID
		}
	}
	return ""
}

func isCold(set string) bool { return strings.HasPrefix(set, "read-only.") }

// zoneDepth is how deep new folders are watched below the folders where
// guarded files usually appear: the root's own entries, .vibe-science down
// to a research question's data folder, all of .claude.
func zoneDepth(rel string) (int, bool) {
	switch rel {
	case ".":
		return 0, true
	case ".vibe-science":
		return 2, true
	case ".claude":
		return -1, true
	}
	return 0, false
}

// skipDirs are never walked at first sight: they hold no research files
// and can be huge.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".venv": true, "venv": true,
	"__pycache__": true, ".tox": true, ".mypy_cache": true, ".pytest_cache": true}

// firstSight walks the project once, records every guarded file and the
// folders to watch, and reads content up to FirstSightBytes (small and
// policy files first, raw data last); the rest is read by later checks.
func (g *Guard) firstSight(s *state, c Call) (Report, error) {
	ix := newIndex(c.Root)
	s.ix, s.listsDirty = ix, true
	s.pack.reset()
	s.gen++
	sc := scan{g: g, s: s, c: c, ix: ix, gen: s.gen}
	// The brief's copy as it is now, like the policy: what it binds is
	// guarded from the first snapshot on.
	if raw, err := os.ReadFile(filepath.Join(c.Root, filepath.FromSlash(integritycheck.ProjectBriefFile))); err == nil {
		if b, ok := integritycheck.ReadProjectBrief(raw); ok {
			sc.brief = &b
			ix.BriefSum = sha256.Sum256(raw)
		}
	}
	seen := 0
	// The folders on the way down, by device and inode: a followed link
	// that leads back up (05-reviewer2/r2 -> ..) is not walked again,
	// or the walk would go round until MaxWalk (seconds, past the hook's
	// time budget).
	above := map[[2]uint64]bool{}
	// The walk, like the reading after it, stops after FirstSightTime (a
	// project root of / or a home folder): as past MaxWalk, what it did not
	// reach is not in the snapshot.
	walkEnd := time.Now().Add(g.opts.FirstSightTime)
	var walk func(rel string, depth int, tree, link string)
	walk = func(rel string, depth int, tree, link string) {
		abs := sc.abs(rel)
		st, err := lstat(abs)
		if link != "" {
			st, err = stat(abs)
		}
		if err != nil || st.Mode.Kind != kindDir {
			return
		}
		id := [2]uint64{st.Dev, st.Ino}
		if above[id] {
			return
		}
		above[id] = true
		defer delete(above, id)
		ents, err := os.ReadDir(abs)
		if err != nil {
			return
		}
		if tree == "" {
			if set, ok := c.Policy.GuardedFolder(rel); ok && rel != "." {
				tree = set
			}
		}
		if d, ok := zoneDepth(rel); ok && tree == "" {
			depth = d
		}
		watch := tree != "" || depth >= 0 || depth == -1
		var holds bool
		for _, de := range ents {
			if seen++; seen > g.opts.MaxWalk || (seen%1024 == 0 && time.Now().After(walkEnd)) {
				return
			}
			child := joinRel(rel, de.Name())
			if de.IsDir() {
				if skipDirs[de.Name()] || sc.isHome(child) {
					continue
				}
				next := depth - 1
				if depth == -1 {
					next = -1
				}
				if depth == 0 || depth == -2 {
					next = -2 // below the watched zone: walked, not watched
				}
				walk(child, next, tree, "")
				continue
			}
			if de.Type()&fs.ModeSymlink != 0 {
				// A guarded folder kept elsewhere (raw data on another
				// disk) is followed; its files are reached through the link.
				if _, ok := c.Policy.GuardedFolder(child); ok || tree != "" {
					if t, err := os.Readlink(sc.abs(child)); err == nil {
						if fst, err := stat(sc.abs(child)); err == nil && fst.Mode.Kind == kindDir {
							walk(child, -1, tree, t)
						}
					}
				}
				continue
			}
			if !de.Type().IsRegular() {
				continue
			}
			set := tree
			if set == "" {
				set = guardedSet(c.Policy, sc.brief, child)
			}
			if set == "" {
				continue
			}
			holds = true
			if fst, err := lstat(sc.abs(child)); err == nil {
				ix.Files[child] = &entry{Stat: fst, Set: set, Cold: isCold(set)}
			}
		}
		if watch || holds {
			d := depth
			if d == -2 {
				d = 0
			}
			if tree != "" {
				d = -1
			}
			ix.Dirs[rel] = &dirEntry{Stat: st, Set: tree, Depth: d, Cold: isCold(tree), Link: link}
		}
	}
	walk(".", 0, "", "")
	sc.readPending(g.opts.FirstSightBytes, g.opts.FirstSightTime)
	if err := g.save(s); err != nil {
		return Report{FirstSight: true}, err
	}
	return Report{FirstSight: true, Files: len(ix.Files), Pending: s.pending()}, nil
}

func joinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

func parentRel(rel string) string {
	d := path.Dir(rel)
	if d == "" {
		return "."
	}
	return d
}
