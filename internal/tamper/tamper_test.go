package tamper

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/integritycheck"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

const (
	ledger = ".vibe-science/RQ-001/CLAIM-LEDGER.md"
	r2dir  = ".vibe-science/RQ-001/05-reviewer2"
	raw    = ".vibe-science/RQ-001/02-data/raw"
	config = ".vibe-science/domain-config.json"
)

type fixture struct {
	t    *testing.T
	root string
	home string
	g    *Guard
}

// newProject lays out a research project: a ledger, reviews, raw data, a
// domain config and agent configuration, plus files nothing guards.
func newProject(t *testing.T, files map[string]string, opts Options) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, root: root, home: t.TempDir()}
	base := map[string]string{
		".git/HEAD":                             "ref: refs/heads/main\n",
		ledger:                                  "# Claim ledger\n\n## C-001\nstatus: PROPOSED\n",
		r2dir + "/review-01.md":                 "# Review 1\nverdict: REJECT\n",
		r2dir + "/review-02.md":                 "# Review 2\nverdict: ACCEPT\n",
		r2dir + "/judge-reports/judge-01.md":    "# Judge 1\nscore: 3\n",
		raw + "/a.csv":                          "x,y\n1,2\n3,4\n",
		raw + "/b.csv":                          "x,y\n5,6\n",
		config:                                  `{"domain":"generic","dq2":{"min_auc":0.6}}` + "\n",
		".claude/settings.json":                 `{"hooks":{}}` + "\n",
		".vibe-science/RQ-001/03-analysis/a.py": "print(1)\n",
		"README.md":                             "# project\n",
	}
	for k, v := range files {
		base[k] = v
	}
	for rel, content := range base {
		f.write(rel, content)
	}
	opts.Home = f.home
	f.g = New(opts)
	return f
}

func (f *fixture) abs(rel string) string { return filepath.Join(f.root, filepath.FromSlash(rel)) }

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := f.abs(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(f.abs(rel))
	if err != nil {
		f.t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

// sh runs a shell command in the project, as Bash would, and fails the test
// when it does not succeed (the attack must really happen).
func (f *fixture) sh(cmd string) {
	f.t.Helper()
	c := exec.Command("bash", "-c", cmd)
	c.Dir = f.root
	if out, err := c.CombinedOutput(); err != nil {
		f.t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
}

func (f *fixture) check(c Call) Report {
	f.t.Helper()
	c.Root = f.root
	if c.Now.IsZero() {
		c.Now = t0
	}
	rep, err := f.g.Check(c)
	if err != nil {
		f.t.Fatalf("check: %v", err)
	}
	return rep
}

// bash is a Bash call whose targets come from the shell analyser, as
// AfterTool builds it.
func (f *fixture) bash(agent, cmd string) Call {
	req := permission.Request{ProjectRoot: f.root, Cwd: f.root, AgentType: agent, ToolName: "Bash",
		ToolInput: []byte(fmt.Sprintf(`{"command":%q}`, cmd))}
	return Call{AgentType: agent, Tool: "Bash", ToolUseID: "toolu_1",
		MoreNamed: func() []string { p, _ := permission.WrittenPaths(req); return p },
		Approved:  func(p *permission.Policy, rel string) bool { return DownloadApproved(p, req, rel) }}
}

// allowedBefore asserts that PreToolUse's analyser lets the command through:
// the trick is one it does not model, so only the snapshot can catch it.
func (f *fixture) allowedBefore(agent, cmd string) {
	f.t.Helper()
	p, err := permission.Load(f.root)
	if err != nil {
		f.t.Fatal(err)
	}
	req := permission.Request{ProjectRoot: f.root, Cwd: f.root, AgentType: agent, ToolName: "Bash",
		ToolInput: []byte(fmt.Sprintf(`{"command":%q}`, cmd))}
	if d := p.Check(req); d.Action != permission.Allow {
		f.t.Fatalf("the analyser already stops %q (%s: %s); the test needs a trick it does not model", cmd, d.Action, d.Reason)
	}
}

func outcomes(rep Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Change+" "+f.Path+" "+f.Outcome)
	}
	return out
}

func wantOutcomes(t *testing.T, rep Report, want ...string) {
	t.Helper()
	got := outcomes(rep)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFirstSightThenCleanPathHasNoVerdict(t *testing.T) {
	f := newProject(t, nil, Options{})
	rep := f.check(Call{Tool: "Read"})
	if !rep.FirstSight || rep.Files != 8 || rep.Pending != 0 {
		t.Fatalf("first sight: %+v", rep)
	}
	// Work that touches nothing guarded.
	f.write(".vibe-science/RQ-001/03-analysis/a.py", "print(2)\n")
	f.write(".vibe-science/RQ-001/03-analysis/b.py", "print(3)\n")
	f.write("notes.md", "x\n")
	for i := 0; i < 3; i++ {
		rep = f.check(Call{Tool: "Bash"})
		if len(rep.Findings) != 0 || rep.FirstSight {
			t.Fatalf("clean call %d: %v", i, outcomes(rep))
		}
		if vs := Verdicts(rep, Call{Tool: "Bash"}, verdict.Block); len(vs) != 0 {
			t.Fatalf("clean call gave verdicts: %+v", vs)
		}
	}
	// Snapshot folders and files are private.
	for _, p := range []string{filepath.Join(f.home, "tamper"), filepath.Join(f.home, "tamper", "projects")} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a 0700 folder", p, fi.Mode(), err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(f.home, "tamper", "projects", "*"))
	if len(files) != 2 {
		t.Fatalf("index and pack: %v", files)
	}
	for _, p := range files {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, fi.Mode())
		}
	}
}

// TestComputedNameScriptRestored: the experimenter runs a Python script that
// writes the ledger through a name computed at run time. The analyser
// cannot see the target; the snapshot restores the ledger byte for byte.
func TestComputedNameScriptRestored(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(ledger)
	f.check(Call{})
	script := ".vibe-science/RQ-001/03-analysis/tidy.py"
	f.write(script, "import glob\np=glob.glob('.vibe-science/*/CLAIM-'+'LEDGER.md')[0]\nopen(p,'a').write('status: CONFIRMED\\n')\n")
	wantOutcomes(t, f.check(Call{AgentType: "vibe:experimenter", Tool: "Write", Named: []string{script}, Direct: true}))
	cmd := "python3 " + script
	f.allowedBefore("vibe:experimenter", cmd)
	f.sh(cmd)
	if f.read(ledger) == before {
		t.Fatal("the script did not change the ledger")
	}
	c := f.bash("vibe:experimenter", cmd)
	rep := f.check(c)
	wantOutcomes(t, rep, "modified "+ledger+" restored")
	if got := f.read(ledger); got != before {
		t.Fatalf("ledger after restore:\n%q\nwant\n%q", got, before)
	}
	q := rep.Findings[0].Quarantine
	if b, err := os.ReadFile(q); err != nil || !strings.Contains(string(b), "CONFIRMED") {
		t.Fatalf("changed version in quarantine %s: %q %v", q, b, err)
	}
	vs := Verdicts(rep, c, verdict.Block)
	if len(vs) != 1 || vs[0].Result != verdict.Block || vs[0].Check != CheckName {
		t.Fatalf("verdicts: %+v", vs)
	}
	for _, want := range []string{"vibe:experimenter modified " + ledger, "the claim ledger", "during Bash toolu_1",
		"experimenter role may not change", "rule experimenter.deny.ledger", "restored it from its snapshot"} {
		if !strings.Contains(vs[0].Reason, want) {
			t.Errorf("reason %q lacks %q", vs[0].Reason, want)
		}
	}
	// The next call sees nothing: the restore itself is not a change.
	wantOutcomes(t, f.check(Call{AgentType: "vibe:experimenter", Tool: "Read"}))
}

// TestHardLinkMadeEarlier: a hard link to the ledger made in an earlier
// call turns a permitted write into a ledger write. The ledger is restored
// and the link broken; the linked file keeps what was written.
func TestHardLinkMadeEarlier(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(ledger)
	f.check(Call{})
	link := r2dir + "/notes.md"
	if err := os.Link(f.abs(ledger), f.abs(link)); err != nil {
		t.Fatal(err)
	}
	// The link's own call: same content, a new file in reviewer2's folder.
	wantOutcomes(t, f.check(f.bash("vibe:reviewer2", "ln x y")))
	// Later, reviewer2 writes its "notes" with the Write tool.
	f.write(link, "# Claim ledger\n\n## C-001\nstatus: CONFIRMED\n")
	rep := f.check(Call{AgentType: "vibe:reviewer2", Tool: "Write", Named: []string{link}, Direct: true})
	wantOutcomes(t, rep, "modified "+ledger+" restored")
	if f.read(ledger) != before {
		t.Fatalf("ledger not restored: %q", f.read(ledger))
	}
	if !strings.Contains(f.read(link), "CONFIRMED") {
		t.Fatal("the linked file should keep what reviewer2 wrote")
	}
	a, _ := os.Stat(f.abs(ledger))
	b, _ := os.Stat(f.abs(link))
	if os.SameFile(a, b) {
		t.Fatal("the hard link still joins the ledger")
	}
}

// TestRawTruncatedByCompiledHelper: a compiled program truncates a raw data
// file; it is restored at once when raw data is checked every call, and at
// Stop when the per-call slice did not reach it.
func TestRawTruncatedByCompiledHelper(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	for _, tc := range []struct {
		name    string
		perCall int
	}{{"every call", 0}, {"only at Stop", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			extra := map[string]string{}
			for i := 0; i < 5; i++ {
				extra[fmt.Sprintf("%s/zz%d.csv", raw, i)] = "x\n"
			}
			f := newProject(t, extra, Options{ColdPerCall: tc.perCall})
			before := f.read(raw + "/b.csv")
			f.check(Call{})
			f.write("tools/trunc.c", "#include <unistd.h>\nint main(int c,char**v){return truncate(v[1],0);}\n")
			f.sh("cc -o tools/trunc tools/trunc.c")
			for i := 0; i < 3; i++ { // move the rotation past b.csv
				f.check(Call{Tool: "Read"})
			}
			cmd := "./tools/trunc $(ls -d .vibe-science/*/02-data/raw)/b.csv"
			f.allowedBefore("", cmd)
			f.sh(cmd)
			if f.read(raw+"/b.csv") != "" {
				t.Fatal("the helper did not truncate the file")
			}
			rep := f.check(f.bash("", cmd))
			if tc.perCall == 1 {
				wantOutcomes(t, rep)
				rep = f.check(Call{Full: true})
			}
			wantOutcomes(t, rep, "modified "+raw+"/b.csv restored")
			if f.read(raw+"/b.csv") != before {
				t.Fatalf("raw file after restore: %q", f.read(raw+"/b.csv"))
			}
		})
	}
}

// TestAllowedEditOfLedgerByLead: in TEAM mode the lead edits the ledger;
// the snapshot takes the new content, and a later forbidden change is
// undone back to the lead's version.
func TestAllowedEditOfLedgerByLead(t *testing.T) {
	f := newProject(t, map[string]string{".vibe-science/permissions.json": `{"mode":"team"}`}, Options{})
	f.check(Call{})
	edited := "# Claim ledger\n\n## C-001\nstatus: REVIEWED\n"
	f.write(ledger, edited)
	rep := f.check(Call{Tool: "Edit", Named: []string{ledger}, Direct: true})
	wantOutcomes(t, rep)
	if rep.Role != "lead" {
		t.Fatalf("role %q, want lead", rep.Role)
	}
	wantOutcomes(t, f.check(Call{Tool: "Read"}))
	f.write(ledger, "forged\n")
	rep = f.check(Call{AgentType: "vibe:judge", Tool: "Bash"})
	wantOutcomes(t, rep, "modified "+ledger+" restored")
	if f.read(ledger) != edited {
		t.Fatalf("restored to %q, want the lead's edit", f.read(ledger))
	}
}

func TestDeletedReviewRecreated(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(r2dir + "/review-02.md")
	f.check(Call{})
	cmd := `python3 -c "import os,glob; [os.remove(p) for p in glob.glob('.vibe-science/*/05-*/review-0[2]*')]"`
	f.sh(cmd)
	if _, err := os.Stat(f.abs(r2dir + "/review-02.md")); err == nil {
		t.Fatal("the review was not deleted")
	}
	rep := f.check(f.bash("", cmd))
	wantOutcomes(t, rep, "deleted "+r2dir+"/review-02.md restored")
	if f.read(r2dir+"/review-02.md") != before {
		t.Fatal("review not recreated byte for byte")
	}
	vs := Verdicts(rep, f.bash("", cmd), verdict.Block)
	if !strings.Contains(vs[0].Reason, "the main thread deleted "+r2dir+"/review-02.md") ||
		!strings.Contains(vs[0].Reason, "recreated it") {
		t.Fatalf("reason: %s", vs[0].Reason)
	}
	// A whole folder removed is recreated too.
	f.sh("rm -rf " + r2dir)
	rep = f.check(Call{AgentType: "vibe:experimenter", Tool: "Bash"})
	wantOutcomes(t, rep,
		"deleted "+r2dir+"/judge-reports/judge-01.md restored",
		"deleted "+r2dir+"/review-01.md restored",
		"deleted "+r2dir+"/review-02.md restored")
	wantOutcomes(t, f.check(Call{Tool: "Read"}))
}

func TestStrayRawFileQuarantinedDownloadAccepted(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	cmd := "python3 -c \"open('.vibe-science/RQ-001/02-data/raw/'+'c.csv','w').write('made up\\n')\""
	f.sh(cmd)
	rep := f.check(f.bash("", cmd))
	wantOutcomes(t, rep, "created "+raw+"/c.csv quarantined")
	first := rep.Findings[0].Quarantine
	f.write(raw+"/c.csv", "made up again\n")
	rep2 := f.check(Call{Tool: "Bash"}) // the same time: a second folder, nothing replaced
	wantOutcomes(t, rep2, "created "+raw+"/c.csv quarantined")
	if b, _ := os.ReadFile(first); string(b) != "made up\n" || rep2.Findings[0].Quarantine == first {
		t.Fatalf("the first quarantined version was replaced: %q", b)
	}
	if _, err := os.Stat(f.abs(raw + "/c.csv")); err == nil {
		t.Fatal("stray file still in raw/")
	}
	if b, err := os.ReadFile(rep.Findings[0].Quarantine); err != nil || string(b) != "made up\n" {
		t.Fatalf("quarantined copy: %q %v", b, err)
	}
	if !strings.HasPrefix(rep.Findings[0].Quarantine, filepath.Join(f.home, "tamper", "quarantine")) {
		t.Fatalf("quarantine outside VIBE_HOME: %s", rep.Findings[0].Quarantine)
	}
	// A download the user approved brings a new file (and folder) in. (The
	// shipped policy denies naming raw/ as a download's target, so such a
	// call ran only where the policy asks; Approved is what it answered.)
	dl := "wget https://example.org/d.csv"
	if c := f.bash("", dl); !c.Approved(permission.Default(), raw+"/new/d.csv") {
		t.Fatal("the policy does not ask for wget; the test's premise is wrong")
	}
	if c := f.bash("", "rm -r /tmp/x"); c.Approved(permission.Default(), raw+"/new/d.csv") {
		t.Fatal("an approved rm -r is not a download")
	}
	f.write(raw+"/new/d.csv", "downloaded\n")
	approved := f.bash("", dl)
	approved.Approved = func(*permission.Policy, string) bool { return true }
	wantOutcomes(t, f.check(approved))
	wantOutcomes(t, f.check(Call{Full: true}))
	if f.read(raw+"/new/d.csv") != "downloaded\n" {
		t.Fatal("downloaded file changed")
	}
	// Once in, it is raw data like the rest: changing it is undone.
	f.write(raw+"/new/d.csv", "edited\n")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified "+raw+"/new/d.csv restored")
}

// TestAskedFileNeedsTheCallToNameIt: the policy asks before the researcher
// writes permissions.json; a change the call named was asked about and
// approved, one it did not name was not. .claude/ settings are locked for
// every role: even a named Edit is undone.
func TestAskedFileNeedsTheCallToNameIt(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	f.write(".claude/settings.json", `{"disableAllHooks":true}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified .claude/settings.json restored")
	f.write(".claude/settings.json", `{"hooks":{"x":1}}`)
	wantOutcomes(t, f.check(Call{Tool: "Edit", Named: []string{".claude/settings.json"}, Direct: true}), "modified .claude/settings.json restored")
	f.write(".vibe-science/permissions.json", `{"mode": "solo"}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "created .vibe-science/permissions.json quarantined")
	f.write(".vibe-science/permissions.json", `{"mode": "solo"}`)
	wantOutcomes(t, f.check(Call{Tool: "Write", Named: []string{".vibe-science/permissions.json"}, Direct: true}))
	f.write(".vibe-science/permissions.json", `{"mode": "team"}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified .vibe-science/permissions.json restored")
	// Claude Code's own write of a "don't ask again" rule is no tool call;
	// anything else in the local settings is an agent's doing.
	f.write(".claude/settings.local.json", `{"permissions":{"allow":[]},"env":{"A":"1"}}`)
	wantOutcomes(t, f.check(Call{Tool: "Edit", Named: []string{".claude/settings.local.json"}, Direct: true}), "created .claude/settings.local.json quarantined")
	f.write(".claude/settings.local.json", `{"permissions":{"allow":["Bash(ls)"]}}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}))
	f.write(".claude/settings.local.json", `{"permissions":{"allow":[]},"env":{"A":"1"}}`)
	wantOutcomes(t, f.check(Call{Tool: "Edit", Named: []string{".claude/settings.local.json"}, Direct: true}), "modified .claude/settings.local.json restored")
	f.write(".claude/settings.local.json", `{"permissions":{"allow":[]}}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}))
	f.write(".claude/settings.local.json", `{"permissions":{"allow":["Bash(make test)"]}}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}))
	f.write(".claude/settings.local.json", `{"permissions":{"allow":[]},"disableAllHooks":true}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified .claude/settings.local.json restored")
	f.write(".claude/agents/evil.md", "x")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "created .claude/agents/evil.md quarantined", "created .claude/agents quarantined")
}

// TestTamperedPolicyDoesNotJudgeItself: a call that loosens the policy and
// writes the ledger is judged by the policy the snapshot holds.
func TestTamperedPolicyDoesNotJudgeItself(t *testing.T) {
	f := newProject(t, map[string]string{".vibe-science/permissions.json": `{"mode":"solo"}`}, Options{})
	f.check(Call{})
	policy := f.read(".vibe-science/permissions.json")
	f.write(".vibe-science/permissions.json", `{"mode":"solo","roles":{"reviewer2":{"summary":"x","tools":["*"]}}}`)
	f.write(ledger, "forged\n")
	rep := f.check(Call{AgentType: "vibe:reviewer2", Tool: "Bash"})
	wantOutcomes(t, rep,
		"modified "+ledger+" restored",
		"modified .vibe-science/permissions.json restored")
	if f.read(".vibe-science/permissions.json") != policy {
		t.Fatal("policy not restored")
	}
}

// TestLargeFileBlockedWithoutRestore: beyond the size cap only the hash is
// kept; the change is blocked, said to be unrestorable, and Stop says it
// again until the file is right.
func TestLargeFileBlockedWithoutRestore(t *testing.T) {
	f := newProject(t, map[string]string{raw + "/big.bin": strings.Repeat("0123456789", 200)}, Options{MaxFileBytes: 1000})
	f.check(Call{})
	f.write(raw+"/big.bin", "short")
	rep := f.check(Call{Tool: "Bash"})
	wantOutcomes(t, rep, "modified "+raw+"/big.bin unrestorable")
	vs := Verdicts(rep, Call{Tool: "Bash"}, verdict.Block)
	if !strings.Contains(vs[0].Reason, "could not restore it: it is larger than the 0 MB") && !strings.Contains(vs[0].Reason, "larger than") {
		t.Fatalf("reason: %s", vs[0].Reason)
	}
	if !strings.Contains(vs[0].Recommendation, "sha256") {
		t.Fatalf("recommendation: %s", vs[0].Recommendation)
	}
	wantOutcomes(t, f.check(Call{Tool: "Read"}))
	wantOutcomes(t, f.check(Call{Full: true}), "modified "+raw+"/big.bin unrestorable")
	f.write(raw+"/big.bin", strings.Repeat("0123456789", 200))
	wantOutcomes(t, f.check(Call{Full: true}))
}

// TestDriftBySedRestored: sed -i loosens a threshold by 4000 bps, which
// PreToolUse never judged (it only judges Write and Edit); the config is
// restored and the call blocked. A small change is accepted with its WARN.
func TestDriftBySedRestored(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(config)
	proj := project.Project{Root: f.root, Git: true}
	drift := configDrift(context.Background(), func() integritycheck.Store[*store.Tx] { return nil }, proj, t0)
	f.check(Call{})
	cmd := "sed -i 's/0.6/0.36/' " + config
	f.sh(cmd)
	c := f.bash("", cmd)
	c.Drift = drift
	rep := f.check(c)
	wantOutcomes(t, rep, "modified "+config+" restored")
	if f.read(config) != before {
		t.Fatalf("config not restored: %q", f.read(config))
	}
	vs := Verdicts(rep, c, verdict.Block)
	if len(vs) != 1 || !strings.Contains(vs[0].Reason, "drift cap") || !strings.Contains(vs[0].Reason, "dq2.min_auc") {
		t.Fatalf("verdicts: %+v", vs)
	}
	cmd = "sed -i 's/0.6/0.55/' " + config
	f.sh(cmd)
	c = f.bash("", cmd)
	c.Drift = drift
	rep = f.check(c)
	wantOutcomes(t, rep, "modified "+config+" accepted")
	if vs := Verdicts(rep, c, verdict.Block); len(vs) != 1 || vs[0].Result != verdict.Warn {
		t.Fatalf("small change verdicts: %+v", vs)
	}
	if !bytes.Contains([]byte(f.read(config)), []byte("0.55")) {
		t.Fatal("an accepted change was undone")
	}
}

// TestLargerFileRestoredFromBlob: a content above PackMaxBytes is kept in a
// blob file of its own (0600 in a 0700 folder) and restored from it.
func TestLargerFileRestoredFromBlob(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", PackMaxBytes/16+100)
	f := newProject(t, map[string]string{raw + "/big.csv": big}, Options{})
	f.check(Call{})
	f.write(raw+"/big.csv", "x")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified "+raw+"/big.csv restored")
	if f.read(raw+"/big.csv") != big {
		t.Fatal("not restored byte for byte")
	}
	blobs, _ := filepath.Glob(filepath.Join(f.home, "tamper", "blobs", "*", "*"))
	if len(blobs) != 1 {
		t.Fatalf("blobs: %v", blobs)
	}
	for _, p := range []string{blobs[0], filepath.Dir(blobs[0]), filepath.Join(f.home, "tamper", "blobs")} {
		fi, _ := os.Stat(p)
		if want := os.FileMode(0o700); !fi.IsDir() && fi.Mode().Perm() != 0o600 || fi.IsDir() && fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v", p, fi.Mode())
		}
	}
}

// TestDamagedCopyIsNotRestored: a kept copy changed behind vibe's back is
// not written into the project.
func TestDamagedCopyIsNotRestored(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	packs, _ := filepath.Glob(filepath.Join(f.home, "tamper", "projects", "*.pack"))
	raw, _ := os.ReadFile(packs[0])
	os.WriteFile(packs[0], bytes.ReplaceAll(raw, []byte("PROPOSED"), []byte("CONFIRMD")), 0o600)
	f.write(ledger, "forged\n")
	rep := f.check(Call{AgentType: "vibe:judge", Tool: "Bash"})
	wantOutcomes(t, rep, "modified "+ledger+" unrestorable")
	if f.read(ledger) != "forged\n" {
		t.Fatal("a damaged copy was restored")
	}
	if !strings.Contains(Verdicts(rep, Call{AgentType: "vibe:judge"}, verdict.Block)[0].Reason, "changed since it was taken") {
		t.Fatal("the reason does not say the copy is damaged")
	}
}

// TestAcceptTakesAPersonsChange: a dataset a person copies into raw/ is
// moved aside at the next call; after `vibe tamper accept` on the folder it
// is part of the snapshot and stays.
func TestAcceptTakesAPersonsChange(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.check(Call{})
	f.write(raw+"/survey/s1.csv", "a\n1\n")
	rep := f.check(Call{Tool: "Read"})
	wantOutcomes(t, rep, "created "+raw+"/survey/s1.csv quarantined", "created "+raw+"/survey quarantined")
	os.MkdirAll(f.abs(raw+"/survey"), 0o755)
	if err := os.Rename(rep.Findings[0].Quarantine, f.abs(raw+"/survey/s1.csv")); err != nil {
		t.Fatal(err)
	}
	got, err := f.g.Accept(f.root, []string{raw + "/survey"}, t0)
	if err != nil || strings.Join(got, ",") != raw+"/survey/s1.csv" {
		t.Fatalf("accept: %v %v", got, err)
	}
	wantOutcomes(t, f.check(Call{Tool: "Read"}))
	wantOutcomes(t, f.check(Call{Full: true}))
	// Accepted content is guarded like the rest.
	f.write(raw+"/survey/s1.csv", "a\n2\n")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified "+raw+"/survey/s1.csv restored")

	// A person's edit of the settings, then the whole project accepted by
	// another Guard (the CLI's process): the resident one follows.
	f.write(".claude/settings.json", `{"hooks":{"Stop":[]}}`)
	if _, err := New(Options{Home: f.home}).Accept(f.root, nil, t0); err != nil {
		t.Fatal(err)
	}
	wantOutcomes(t, f.check(Call{Tool: "Bash"}))
	if f.read(".claude/settings.json") != `{"hooks":{"Stop":[]}}` {
		t.Fatal("accepted settings were undone")
	}
	f.write(ledger, "forged\n")
	wantOutcomes(t, f.check(Call{AgentType: "vibe:judge", Tool: "Bash"}), "modified "+ledger+" restored")
}

// TestFolderSwappedForSymlink: the reviews folder is replaced by a link to
// a folder of forged reviews; the restore does not write through the link
// but moves it aside and recreates the folder.
func TestFolderSwappedForSymlink(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(r2dir + "/review-01.md")
	f.check(Call{})
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "review-01.md"), []byte("forged\n"), 0o644)
	f.sh("mv " + r2dir + " " + filepath.Join(t.TempDir(), "gone") + " && ln -s " + elsewhere + " " + r2dir)
	rep := f.check(Call{AgentType: "vibe:experimenter", Tool: "Bash"})
	wantOutcomes(t, rep,
		"deleted "+r2dir+"/judge-reports/judge-01.md restored",
		"deleted "+r2dir+"/review-01.md restored", // the link was moved aside by the first restore
		"deleted "+r2dir+"/review-02.md restored")
	if fi, err := os.Lstat(f.abs(r2dir)); err != nil || !fi.IsDir() {
		t.Fatalf("reviews folder is not a real folder again: %v %v", fi.Mode(), err)
	}
	if f.read(r2dir+"/review-01.md") != before {
		t.Fatalf("review: %q", f.read(r2dir+"/review-01.md"))
	}
	if b, _ := os.ReadFile(filepath.Join(elsewhere, "review-01.md")); string(b) != "forged\n" {
		t.Fatal("the restore wrote through the link")
	}
}

// TestConcurrentChecks: parallel tool calls of one project (subagents) are
// checked one at a time; the change is undone once.
func TestConcurrentChecks(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(ledger)
	f.check(Call{})
	f.write(ledger, "forged\n")
	results := make(chan Report, 8)
	for i := 0; i < 8; i++ {
		go func() {
			rep, err := f.g.Check(Call{Root: f.root, AgentType: "vibe:reviewer2", Tool: "Bash", Now: t0})
			if err != nil {
				t.Error(err)
			}
			results <- rep
		}()
	}
	restored := 0
	for i := 0; i < 8; i++ {
		restored += len((<-results).Findings)
	}
	if restored != 1 || f.read(ledger) != before {
		t.Fatalf("restored %d times; ledger %q", restored, f.read(ledger))
	}
}

// TestHomeInsideTheProject: a VIBE_HOME kept inside the project is not
// walked, so its quarantined ledgers are not taken for guarded files.
func TestHomeInsideTheProject(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.home = f.abs("vibe-home")
	f.g = New(Options{Home: f.home})
	f.check(Call{})
	f.write(ledger, "forged\n")
	rep := f.check(Call{AgentType: "vibe:judge", Tool: "Bash"})
	wantOutcomes(t, rep, "modified "+ledger+" restored")
	g2 := New(Options{Home: f.home}) // a first sight now would see the quarantine
	os.Remove(filepath.Join(f.home, "tamper", "projects", projectKey(f.root)+".idx"))
	rep, err := g2.Check(Call{Root: f.root, Now: t0})
	if err != nil || rep.Files != 8 {
		t.Fatalf("first sight with the home inside: %d files, %v", rep.Files, err)
	}
}

// TestRawDataKeptElsewhere: raw/ is a symlink to a folder on another disk.
// Its files are guarded through the link; a repointed link is put back.
func TestRawDataKeptElsewhere(t *testing.T) {
	f := newProject(t, nil, Options{})
	store := t.TempDir()
	os.WriteFile(filepath.Join(store, "big.csv"), []byte("x\n1\n"), 0o644)
	f.sh("rm -rf " + raw + " && ln -s " + store + " " + raw)
	rep := f.check(Call{})
	if rep.Files != 7 {
		t.Fatalf("first sight: %d files", rep.Files)
	}
	wantOutcomes(t, f.check(Call{Tool: "Read"}))
	// Changed through the link: restored where it lives.
	os.WriteFile(filepath.Join(store, "big.csv"), []byte("forged\n"), 0o644)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified "+raw+"/big.csv restored")
	if b, _ := os.ReadFile(filepath.Join(store, "big.csv")); string(b) != "x\n1\n" {
		t.Fatalf("big.csv: %q", b)
	}
	// A new file in the folder elsewhere is moved aside.
	os.WriteFile(filepath.Join(store, "extra.csv"), []byte("e\n"), 0o644)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "created "+raw+"/extra.csv quarantined")
	// The link pointed at forged data: the link is put back.
	forged := t.TempDir()
	os.WriteFile(filepath.Join(forged, "big.csv"), []byte("forged\n"), 0o644)
	f.sh("rm " + raw + " && ln -s " + forged + " " + raw)
	rep = f.check(Call{AgentType: "vibe:experimenter", Tool: "Bash"})
	wantOutcomes(t, rep, "modified "+raw+" restored")
	if got, _ := os.Readlink(f.abs(raw)); got != store {
		t.Fatalf("link points to %q, want %q", got, store)
	}
	if !strings.Contains(Verdicts(rep, Call{AgentType: "vibe:experimenter"}, verdict.Block)[0].Reason, "put the link back") {
		t.Fatal("reason does not say the link was put back")
	}
	wantOutcomes(t, f.check(Call{Full: true}))
	if b, _ := os.ReadFile(filepath.Join(forged, "big.csv")); string(b) != "forged\n" {
		t.Fatal("the forged folder was written")
	}
}

// TestCleanSessionSeesNoBlock is the control: a session the way
// researchers work (scripts writing analyses and processed data, the
// researcher's ledger edits, reviewer2's and the judge's reports,
// serendipity's log, a commit, Stops) must not be blocked once.
func TestCleanSessionSeesNoBlock(t *testing.T) {
	f := newProject(t, nil, Options{ColdPerCall: 1})
	f.sh("git init -q . 2>/dev/null; true")
	f.check(Call{})
	rq := ".vibe-science/RQ-001/"
	steps := []struct {
		agent, tool string
		write       map[string]string // what the call writes
		cmd         string            // or runs
	}{
		{"", "Write", map[string]string{rq + "03-analysis/clean.py": "import csv\n"}, ""},
		{"", "Bash", nil, "mkdir -p " + rq + "02-data/processed && python3 -c \"open('" + rq + "02-data/processed/t.csv','w').write('1\\n')\""},
		{"", "Bash", nil, "python3 -c \"import glob; [open(p).read() for p in glob.glob('" + rq + "02-data/raw/*')]\""},
		{"", "Edit", map[string]string{ledger: "# Claim ledger\n\n## C-001\nstatus: PROPOSED\n\n## C-002\nstatus: PROPOSED\n"}, ""},
		{"vibe:reviewer2", "Write", map[string]string{rq + "05-reviewer2/review-03.md": "# Review 3\nverdict: ACCEPT\n"}, ""},
		{"vibe:judge", "Write", map[string]string{rq + "05-reviewer2/judge-reports/judge-02.md": "# Judge 2\n"}, ""},
		{"vibe:serendipity", "Write", map[string]string{rq + "SERENDIPITY.md": "# Seeds\n"}, ""},
		{"", "Bash", nil, "echo '\n## C-003\nstatus: PROPOSED' >> " + ledger},
		{"", "Bash", nil, "git add -A >/dev/null 2>&1; git -c user.email=a@b -c user.name=a commit -qm wip >/dev/null 2>&1; true"},
		{"", "Stop", nil, ""},
		{"vibe:experimenter", "Bash", nil, "python3 -c \"open('" + rq + "03-analysis/out.txt','w').write('auc 0.7')\""},
		{"", "Stop", nil, ""},
	}
	for i, s := range steps {
		var c Call
		switch {
		case s.tool == "Stop":
			c = Call{AgentType: s.agent, Full: true}
		case s.cmd != "":
			f.sh(s.cmd)
			c = f.bash(s.agent, s.cmd)
		default:
			var named []string
			for rel, content := range s.write {
				f.write(rel, content)
				named = append(named, rel)
			}
			c = Call{AgentType: s.agent, Tool: s.tool, Named: named, Direct: true}
		}
		if rep := f.check(c); len(rep.Findings) != 0 {
			t.Fatalf("step %d (%s %s): %v", i, s.agent, s.tool, outcomes(rep))
		}
	}
	if !strings.Contains(f.read(ledger), "C-003") {
		t.Fatal("the researcher's ledger append was undone")
	}
}

// TestLinkLoopInAGuardedFolder: links inside the reviews folder that lead
// back up (r2 -> .., root -> ../..) do not send the first look round in
// circles (it took the hook past its time budget); the reviews are still
// guarded, and a forged one is still restored.
func TestLinkLoopInAGuardedFolder(t *testing.T) {
	f := newProject(t, nil, Options{})
	f.sh("ln -s .. " + r2dir + "/r2 && ln -s ../.. " + r2dir + "/root")
	start := time.Now()
	rep := f.check(Call{})
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the first look took %v", d)
	}
	if !rep.FirstSight || rep.Files < 3 {
		t.Fatalf("first look: %+v", rep)
	}
	before := f.read(r2dir + "/review-01.md")
	f.write(r2dir+"/review-01.md", "forged\n")
	wantOutcomes(t, f.check(Call{AgentType: "vibe:experimenter", Tool: "Bash"}), "modified "+r2dir+"/review-01.md restored")
	if f.read(r2dir+"/review-01.md") != before {
		t.Fatal("the forged review was not restored")
	}
}

// TestFirstLookStopsInTime: the first look's walk stops after
// FirstSightTime, as after MaxWalk entries, however large the tree.
func TestFirstLookStopsInTime(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 1500; i++ {
		files[fmt.Sprintf("%s/f%04d.csv", raw, i)] = "x\n"
	}
	f := newProject(t, files, Options{FirstSightTime: time.Nanosecond})
	rep := f.check(Call{})
	if !rep.FirstSight || rep.Files == 0 || rep.Files >= 1500 {
		t.Fatalf("a walk bounded by 1 ns indexed %d files of 1500+", rep.Files)
	}
	g := New(Options{Home: t.TempDir()})
	if rep, err := g.Check(Call{Root: f.root, Now: t0}); err != nil || rep.Files < 1500 {
		t.Fatalf("with the default time the walk indexed %d files (%v)", rep.Files, err)
	}
}

// TestVetoUndoesAnAllowedChange: a change the role may make goes to the
// caller's Veto with the snapshot's content and the file's; a blocking
// verdict has it undone like a forbidden one (the block says why in the
// veto's words), a warning is reported with the accepted change, and no
// opinion leaves the change accepted in silence. A new file comes with no
// old content.
func TestVetoUndoesAnAllowedChange(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(ledger)
	f.check(Call{})
	var seen []string
	veto := func(answer verdict.Result) Veto {
		return func(rel string, content func() (old, cur []byte, err error)) (verdict.Verdict, bool) {
			old, cur, err := content()
			seen = append(seen, fmt.Sprintf("%s old=%q cur=%q err=%v", rel, old, cur, err))
			if answer == verdict.Pass {
				return verdict.Verdict{}, false
			}
			v := verdict.New("claim-promotion", answer, verdict.High, "C-001 cannot become PROMOTED: no review.", nil)
			v.Recommendation = "Keep C-001 PROVISIONAL."
			v.Evidence.Claims = []string{"C-001"}
			return v, true
		}
	}
	f.write(ledger, "promoted\n")
	c := Call{Tool: "Bash", Veto: veto(verdict.Block)}
	rep := f.check(c)
	wantOutcomes(t, rep, "modified "+ledger+" restored")
	if f.read(ledger) != before {
		t.Fatalf("ledger not restored: %q", f.read(ledger))
	}
	if want := fmt.Sprintf("%s old=%q cur=%q err=<nil>", ledger, before, "promoted\n"); len(seen) != 1 || seen[0] != want {
		t.Fatalf("the veto saw %q, want %q", seen, want)
	}
	vs := Verdicts(rep, c, verdict.Block)
	if len(vs) != 1 || vs[0].Result != verdict.Block || !strings.Contains(vs[0].Reason, "and C-001 cannot become PROMOTED: no review. vibe restored it") ||
		!strings.HasPrefix(vs[0].Recommendation, "Leave "+ledger+" as restored; Keep C-001 PROVISIONAL.") || strings.Contains(vs[0].Recommendation, "tamper accept") ||
		len(vs[0].Evidence.Claims) != 1 {
		t.Fatalf("verdicts: %+v", vs)
	}

	f.write(ledger, "warned\n")
	c = Call{Tool: "Bash", Veto: veto(verdict.Warn)}
	rep = f.check(c)
	wantOutcomes(t, rep, "modified "+ledger+" accepted")
	if vs := Verdicts(rep, c, verdict.Block); len(vs) != 1 || vs[0].Result != verdict.Warn || f.read(ledger) != "warned\n" {
		t.Fatalf("warned change: %+v, ledger %q", vs, f.read(ledger))
	}

	seen = nil
	f.write("CLAIM-LEDGER.md", "new\n")
	c = Call{Tool: "Bash", Veto: veto(verdict.Pass)}
	rep = f.check(c)
	wantOutcomes(t, rep)
	if want := fmt.Sprintf("%s old=%q cur=%q err=<nil>", "CLAIM-LEDGER.md", []byte(nil), "new\n"); len(seen) != 1 || seen[0] != want {
		t.Fatalf("the veto saw %q, want %q", seen, want)
	}
}

// TestComputeRaiseByCommandRestored: a command that writes a compute
// allowance into the domain config (PreToolUse asks only before a Write
// or Edit of it) is undone and the call blocked, since only the user sets
// the allowance; lowering it is accepted (issue 34 item 4).
func TestComputeRaiseByCommandRestored(t *testing.T) {
	f := newProject(t, nil, Options{})
	before := f.read(config)
	proj := project.Project{Root: f.root, Git: true}
	drift := configDrift(context.Background(), func() integritycheck.Store[*store.Tx] { return nil }, proj, t0)
	f.check(Call{})
	raised := strings.Replace(before, "{", `{"compute": {"max_time": "48:00:00", "max_gpu_hours": 100},`, 1)
	cmd := "python3 -c 'open(\"" + config + "\", \"w\").write(...)'"
	f.write(config, raised)
	c := f.bash("", cmd)
	c.Drift = drift
	rep := f.check(c)
	wantOutcomes(t, rep, "modified "+config+" restored")
	if f.read(config) != before {
		t.Fatalf("config not restored: %q", f.read(config))
	}
	vs := Verdicts(rep, c, verdict.Block)
	want := "and it raised compute.max_time from none to 48:00:00 and compute.max_gpu_hours from 0 to 100, which would let larger jobs run without the user's approval; only the user sets the allowance"
	if len(vs) != 1 || vs[0].Result != verdict.Block || !strings.Contains(vs[0].Reason, want) {
		t.Fatalf("verdicts: %+v\nwant a block saying %q", vs, want)
	}
	lowered := strings.Replace(before, "{", `{"compute": {"max_time": "00:00:00"},`, 1)
	f.write(config, lowered)
	c = f.bash("", cmd)
	c.Drift = drift
	wantOutcomes(t, f.check(c), "modified "+config+" accepted")
}
