//go:build linux

package tamper

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/permission"
)

// manCommand is one line of internal/permission/testdata/manpages.jsonl.
type manCommand struct {
	ID, Page, Package, Command string
}

func readManPages(t *testing.T) []manCommand {
	t.Helper()
	f, err := os.Open("../permission/testdata/manpages.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []manCommand
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c manCommand
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// corpusFiles is the research project every command runs in: a ledger,
// reviews, raw data, a domain config, agent settings, a schema, the
// serendipity log, a source file a Critical brief constraint binds, and
// files nothing guards.
var corpusFiles = map[string]string{
	".vibe-science/RQ-001/CLAIM-LEDGER.md":                        "# Claim ledger\n\n## C-001\nstatus: PROPOSED\n",
	".vibe-science/RQ-001/05-reviewer2/review-01.md":              "# Review 1\nverdict: REJECT\n",
	".vibe-science/RQ-001/05-reviewer2/judge-reports/judge-01.md": "# Judge 1\nscore: 3\n",
	".vibe-science/RQ-001/02-data/raw/a.csv":                      "x,y\n1,2\n",
	".vibe-science/RQ-001/02-data/raw/b.csv":                      "x,y\n5,6\n",
	".vibe-science/RQ-001/03-analysis/a.py":                       "print(1)\n",
	".vibe-science/domain-config.json":                            `{"domain":"generic","dq2":{"min_auc":0.6}}` + "\n",
	".vibe-science/schemas/claim.schema.json":                     "{}\n",
	".claude/settings.json":                                       `{"hooks":{}}` + "\n",
	"SERENDIPITY.md":                                              "# Seeds\n",
	"README.md":                                                   "# project\n",
	"src/split.py":                                                "def make_splits(n):\n    return []\n",
	"notes.txt":                                                   "notes\n",
}

// corpusBrief binds src/split.py by a Critical Block constraint.
func corpusBrief(t *testing.T) string {
	raw, err := json.Marshal(brief.Brief{Title: "t", Constraints: []brief.Constraint{{ID: "BC-001", Title: "splits",
		Severity: brief.Critical, Action: brief.Block, AppliesTo: []string{"src/split.py#make_splits"}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// corpusPlacements are where a command runs: the project root, and inside
// raw data, where the files the command names become protected ones (the
// retargeting: a command that writes its operand writes raw data).
var corpusPlacements = []string{".", ".vibe-science/RQ-001/02-data/raw"}

// operandName is a word that looks like a file a command reads or writes.
var operandName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*\.[A-Za-z0-9]{1,6}$`)

// operands are the words of cmd that name files, to be made in the folder
// it runs in (the shell parser stays in internal/permission: words split
// on blanks and stripped of quotes are enough here).
func operands(cmd string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t|;&<>()", r) }) {
		if w = strings.Trim(w, `"'`); operandName.MatchString(w) && len(out) < 8 {
			out = append(out, w)
		}
	}
	return out
}

// pathState is what the test compares of one path.
type pathState struct {
	kind     kind
	perm     uint32
	uid, gid uint32
	sum      [32]byte
	link     string
}

// projectState reads every path of the project but .git.
func projectState(root string) map[string]pathState {
	out := map[string]pathState{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+"/"))
		if rel == ".git" || strings.HasPrefix(rel, "src/pkg") && d.IsDir() {
			return filepath.SkipDir // the repository, the filler: nothing guarded
		}
		st, err := lstat(p)
		if err != nil {
			return nil
		}
		ps := pathState{kind: st.Mode.Kind, perm: st.Mode.Perm, uid: st.Uid, gid: st.Gid}
		switch st.Mode.Kind {
		case kindRegular:
			if f, err := os.Open(p); err == nil {
				h := sha256.New()
				io.Copy(h, f)
				f.Close()
				copy(ps.sum[:], h.Sum(nil))
			}
		case kindLink:
			ps.link, _ = os.Readlink(p)
		}
		out[rel] = ps
		return nil
	})
	return out
}

// forbiddenDiffs lists the changes between two states that the role may
// not make: to guarded files (the policy's sets, domain configs, what the
// brief binds) and to folders of guarded trees. named are the files the
// call names (an asked-for file it names was approved).
func forbiddenDiffs(p *permission.Policy, b *brief.Brief, role string, named []string, before, after map[string]pathState) []string {
	var out []string
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	for rel := range keys {
		x, inX := before[rel]
		y, inY := after[rel]
		if inX && inY && x == y {
			continue
		}
		dir := inX && x.kind == kindDir || inY && y.kind == kindDir
		subject := rel
		if dir {
			if _, tree := p.GuardedFolder(parentRel(rel)); !tree {
				continue // folders outside guarded trees hold nothing guarded by themselves
			}
			if inX && inY {
				subject = rel + "/x" // the folder's own mode: judged as the tree's
			}
		} else if guardedSet(p, b, rel) == "" {
			continue
		}
		action, _, _ := p.WriteAction(role, subject)
		_, bound := briefSet(guardedSet(p, b, rel))
		forbidden := bound || action == permission.Deny || action == permission.Ask && !contains(named, rel)
		if !forbidden {
			continue
		}
		what := "modified"
		switch {
		case !inX:
			what = "created"
		case !inY:
			what = "deleted"
		case x.sum == y.sum && x.link == y.link && x.kind == y.kind:
			what = "mode"
		}
		out = append(out, what+" "+rel)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// corpusProject makes the template project under dir (a git repository
// with every file committed, when git is installed), with filler
// unguarded files when filler > 0.
func corpusProject(t *testing.T, dir string, filler int) {
	t.Helper()
	files := map[string]string{integritycheck.ProjectBriefFile: corpusBrief(t)}
	for k, v := range corpusFiles {
		files[k] = v
	}
	for i := 0; i < filler; i++ {
		files[fmt.Sprintf("src/pkg%02d/m%04d.txt", i%50, i)] = "filler\n"
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := exec.LookPath("git"); err == nil {
		// Two protected files are committed executable and made 0644
		// since: a command that checks the tree out again (git reset
		// --hard, git stash, git checkout-index -f) changes their mode.
		c := exec.Command("bash", "-c", "chmod 0755 .vibe-science/RQ-001/02-data/raw/b.csv .vibe-science/RQ-001/05-reviewer2/review-01.md && "+
			"git init -q && git add -A && git -c user.name=A -c user.email=a@example.org commit -qm init && "+
			"chmod 0644 .vibe-science/RQ-001/02-data/raw/b.csv .vibe-science/RQ-001/05-reviewer2/review-01.md")
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git: %v %s", err, out)
		}
	}
}

// copyProject copies the template: real copies of everything but the
// filler (src/pkg*), which is hard-linked (it is never compared).
func copyProject(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			return os.Symlink(l, target)
		case strings.HasPrefix(filepath.ToSlash(rel), "src/pkg"):
			return os.Link(p, target)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// corpusTally is what a run of the corpus found.
type corpusTally struct {
	mu                                             sync.Mutex
	runs, denied, asked, missing, inconclusive     int
	protectedChanges, restored, modes, folders     int
	falseDenials, unrestored, unblocked, sandboxed []string
}

// TestManPageCorpusInAProject runs the man-page corpus (see
// internal/permission/testdata/manpages.md) for real, each command in a
// fresh copy of a research project, from its root and from raw data
// (where what it names is protected), in the sandbox: PreToolUse's
// decision is taken as the hook takes it (with the net), the command is
// run, and then the net checks the project. No command that touches
// nothing protected (and exits 0) may be denied; every protected change a
// command let through makes (content, existence, names, modes and owners,
// folders) must be restored or moved aside, and the call blocked. Then the
// same in a project of thousands of files, for the commands whose targets
// a computation finds (find, xargs, globs, trees).
func TestManPageCorpusInAProject(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1700 commands for real")
	}
	if why := sandboxUsable(t); why != "" {
		t.Skipf("no sandbox to run the corpus in: %s", why)
	}
	corpus := readManPages(t)
	// CI runs every command; a developer's run takes one in four (set
	// VIBE_FULL_CORPUS=1 for all), the corpus being two minutes of work.
	every := 4
	if os.Getenv("CI") != "" || os.Getenv("VIBE_FULL_CORPUS") != "" {
		every = 1
	}
	computed := regexp.MustCompile(`\bfind\b|\bxargs\b|[*?]|\s-[A-Za-z]*[rR]\b|\brsync\b|\btar\b|\bunzip\b|\bgit (reset|stash|checkout|restore|clean|merge|pull|rm|am|apply)\b|\$\(|\bchmod\b|\bchown\b|\bmv\b|\bsed\b`)
	for _, size := range []struct {
		name   string
		filler int
	}{{"project", 0}, {"thousands", 3000}} {
		t.Run(size.name, func(t *testing.T) {
			tmpl := filepath.Join(t.TempDir(), "template")
			corpusProject(t, tmpl, size.filler)
			// A command whose program is not installed here runs nothing:
			// it is counted, not run.
			var jobs []manCommand
			missing := 0
			for i, c := range corpus {
				if size.filler > 0 && !computed.MatchString(c.Command) || i%every != 0 {
					continue
				}
				if !installed(c.Command) {
					missing++
					continue
				}
				jobs = append(jobs, c)
			}
			tally := &corpusTally{}
			work := make(chan [2]string)
			var wg sync.WaitGroup
			workers := runtime.NumCPU()
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for job := range work {
						runCorpusCommand(t, tmpl, job[0], job[1], tally)
					}
				}()
			}
			start := time.Now()
			for _, c := range jobs {
				for _, place := range corpusPlacements {
					if size.filler > 0 && place != "." {
						continue
					}
					work <- [2]string{c.ID + "\x00" + c.Command, place}
				}
			}
			close(work)
			wg.Wait()
			t.Logf("%s (one command in %d): %d commands run (%d not: their program is not installed here), %d runs in %v: %d denied (%d inconclusive: the command failed and touched nothing), %d asked, %d with a later program missing; "+
				"%d protected changes let through, %d restored or moved aside by the net (%d modes or owners, %d folders)",
				size.name, every, len(jobs), missing, tally.runs, time.Since(start).Round(time.Second), tally.denied, tally.inconclusive, tally.asked, tally.missing,
				tally.protectedChanges, tally.restored, tally.modes, tally.folders)
			for _, list := range []struct {
				what string
				l    []string
			}{{"denied although it touched nothing protected", tally.falseDenials},
				{"a protected change the net did not undo", tally.unrestored},
				{"a protected change undone without blocking the call", tally.unblocked},
				{"the sandbox failed", tally.sandboxed}} {
				sort.Strings(list.l)
				for _, e := range list.l {
					t.Errorf("%s: %s", list.what, e)
				}
			}
		})
	}
}

var installedProgs sync.Map

// installed reports whether the program a command starts with is on PATH
// (or a shell builtin).
func installed(cmd string) bool {
	fields := strings.Fields(cmd)
	name := ""
	for _, w := range fields {
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			continue // NAME=value before the program
		}
		name = w
		break
	}
	if name == "" || strings.ContainsAny(name, "$`(){}[]") {
		return true // an assignment, a loop, a computed name: run it
	}
	if v, ok := installedProgs.Load(name); ok {
		return v.(bool)
	}
	_, err := exec.LookPath(name)
	ok := err == nil || exec.Command("bash", "-c", "type -t "+name+" >/dev/null").Run() == nil
	installedProgs.Store(name, ok)
	return ok
}

// runCorpusCommand runs one command in one placement and tallies it.
func runCorpusCommand(t *testing.T, tmpl, job, place string, tally *corpusTally) {
	id, cmd, _ := strings.Cut(job, "\x00")
	base, err := os.MkdirTemp(filepath.Dir(tmpl), "run-")
	if err != nil {
		t.Error(err)
		return
	}
	defer os.RemoveAll(base)
	proj := filepath.Join(base, "proj")
	if err := copyProject(tmpl, proj); err != nil {
		t.Error(err)
		return
	}
	cwd := filepath.Join(proj, filepath.FromSlash(place))
	for _, o := range operands(cmd) {
		p := filepath.Join(cwd, o)
		if _, err := os.Lstat(p); err != nil {
			os.WriteFile(p, []byte("x\n"), 0o644)
		}
	}
	g := New(Options{Home: filepath.Join(base, "vibehome")})
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return t0 }
	if _, err := g.Check(Call{Root: proj, Now: t0}); err != nil {
		t.Error(err)
		return
	}
	policy := permission.Default()
	in, _ := json.Marshal(map[string]string{"command": cmd})
	req := permission.Request{ProjectRoot: proj, Cwd: cwd, ToolName: "Bash", ToolInput: in, Net: g.Net(proj, now)}
	d := policy.Check(req)
	var b brief.Brief
	json.Unmarshal([]byte(corpusBrief(t)), &b)
	role := policy.RoleFor("", false)
	before := projectState(proj)
	if d.Action != permission.Deny {
		g.Begin(CallStart{Root: proj, Session: "s", ToolUseID: "toolu_" + id, Tool: "Bash", Named: d.Paths})
	}
	res, err := runSandboxed(base, cwd, cmd, 500*time.Millisecond)
	name := fmt.Sprintf("%s in %s: %s", id, place, cmd)
	tally.mu.Lock()
	tally.runs++
	tally.mu.Unlock()
	if err != nil {
		tally.mu.Lock()
		tally.sandboxed = append(tally.sandboxed, fmt.Sprintf("%s: %v", name, err))
		tally.mu.Unlock()
		return
	}
	after := projectState(proj)
	diffs := forbiddenDiffs(policy, &b, role, d.Paths, before, after)
	missing := res.exit == 127 && strings.Contains(res.output, "command not found")
	if d.Action == permission.Deny {
		touched := len(diffs) > 0 || len(res.outside) > 0
		tally.mu.Lock()
		defer tally.mu.Unlock()
		tally.denied++
		if missing {
			tally.missing++
		}
		switch {
		case touched:
		case res.exit != 0:
			tally.inconclusive++
		default:
			tally.falseDenials = append(tally.falseDenials, fmt.Sprintf("%s (rule %s: %s)", name, d.Rule, d.Reason))
		}
		return
	}
	// As the hook builds it: the analysis after the call needs no net.
	after1 := req
	after1.Net = nil
	wp := func() []string { p, _ := permission.WrittenPaths(after1); return p }
	rep, err := g.Check(Call{Root: proj, Tool: "Bash", ToolUseID: "toolu_" + id, Session: "s", Now: t0,
		MoreNamed: wp, Approved: func(p *permission.Policy, rel string) bool { return DownloadApproved(p, after1, rel) }})
	final := projectState(proj)
	tally.mu.Lock()
	defer tally.mu.Unlock()
	if missing {
		tally.missing++
	}
	if d.Action == permission.Ask {
		tally.asked++
	}
	if err != nil {
		tally.unrestored = append(tally.unrestored, fmt.Sprintf("%s: the check failed: %v", name, err))
		return
	}
	if len(diffs) == 0 {
		return
	}
	tally.protectedChanges += len(diffs)
	for _, diff := range diffs {
		what, rel, _ := strings.Cut(diff, " ")
		x, inBefore := before[rel]
		y, inFinal := final[rel]
		back := !inBefore && !inFinal || inBefore && inFinal && x == y
		if x.kind == kindDir && inBefore && inFinal {
			back = x.perm == y.perm && x.uid == y.uid && x.gid == y.gid
		}
		if !back {
			tally.unrestored = append(tally.unrestored, fmt.Sprintf("%s: %s (findings %v)", name, diff, outcomes(rep)))
			continue
		}
		tally.restored++
		if what == "mode" {
			tally.modes++
		}
		if x.kind == kindDir || after[rel].kind == kindDir {
			tally.folders++
		}
	}
	if !rep.Blocks() {
		tally.unblocked = append(tally.unblocked, fmt.Sprintf("%s: %v (findings %v)", name, diffs, outcomes(rep)))
	}
}
