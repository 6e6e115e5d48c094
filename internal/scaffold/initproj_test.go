package scaffold

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/permission"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/resume"
	"github.com/vibe-science/vibe/internal/seeds"
)

var update = flag.Bool("update", false, "rewrite golden files")

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func newProject(t *testing.T) project.Project {
	t.Helper()
	root := filepath.Join(t.TempDir(), "offtarget")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return project.Project{Root: root}
}

var wantCreated = []string{
	".vibe-science/",
	".vibe-science/RQ-001/",
	".vibe-science/RQ-001/00-brainstorm/",
	".vibe-science/RQ-001/01-discovery/",
	".vibe-science/RQ-001/02-data/",
	".vibe-science/RQ-001/02-data/raw/",
	".vibe-science/RQ-001/02-data/processed/",
	".vibe-science/RQ-001/03-analysis/",
	".vibe-science/RQ-001/04-results/",
	".vibe-science/RQ-001/05-reviewer2/",
	".vibe-science/RQ-001/05-reviewer2/judge-reports/",
	".vibe-science/RQ-001/07-audit/",
	".vibe-science/RQ-001/08-tree/",
	".vibe-science/ASSUMPTION-REGISTER.md",
	".vibe-science/CLAIM-LEDGER.md",
	".vibe-science/PROGRESS.md",
	".vibe-science/SERENDIPITY.md",
	".vibe-science/STATE.md",
	".vibe-science/domain-config.json",
	".vibe-science/.gitignore",
	".vibe-science/RQ-001/DESIGN.md",
	".vibe-science/RQ-001/RQ.md",
	".vibe-science/RQ-001/02-data/DATA-DICTIONARY.md",
	".vibe-science/RQ-001/04-results/FINDINGS.json",
	".vibe-science/RQ-001/04-results/FINDINGS.md",
}

func TestInitCreatesTheTree(t *testing.T) {
	proj := newProject(t)
	res, err := Init(proj, Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Created, "\n") != strings.Join(wantCreated, "\n") {
		t.Fatalf("created:\n%s", strings.Join(res.Created, "\n"))
	}
	if len(res.Existing) != 0 || len(res.Notes) != 0 || res.RQ != "RQ-001" || res.Domain != "generic" || !res.Changed() {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(proj.Path("permissions.json")); !os.IsNotExist(err) {
		t.Fatal("permissions.json written without --team")
	}
	for _, name := range []string{"STATE.md", "CLAIM-LEDGER.md", "SERENDIPITY.md", "PROGRESS.md", "RQ-001/DESIGN.md"} {
		raw, err := os.ReadFile(proj.Path(filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "solo/"+name, raw)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from its golden file (run with -update after checking):\n%s", name, got)
	}
}

// The stubs are real files of their formats: each parses with the parser
// vibe uses and passes its gate while empty.
func TestStubsPassTheirGates(t *testing.T) {
	proj := newProject(t)
	if _, err := Init(proj, Options{Now: t0, Team: true}); err != nil {
		t.Fatal(err)
	}
	read := func(rel string) []byte {
		t.Helper()
		raw, err := os.ReadFile(proj.Path(filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}

	l, errs := claim.ParseLedger(read("CLAIM-LEDGER.md"))
	if len(l.Claims) != 0 || len(errs) != 0 {
		t.Fatalf("ledger: %d claims, errors %v", len(l.Claims), errs)
	}
	ss, errs := seeds.Parse(read("SERENDIPITY.md"))
	if len(ss) != 0 || len(errs) != 0 {
		t.Fatalf("serendipity: %d seeds, errors %v", len(ss), errs)
	}
	if _, probs := gate.ParseDesign(read("RQ-001/DESIGN.md")); len(probs) != 0 {
		t.Fatalf("design: %v", probs)
	}
	if res, err := gate.DC0(proj.Path("RQ-001", "DESIGN.md"), "", nil); err != nil || res.Status != gate.StatusPass {
		t.Fatalf("DC0: %+v %v", res, err)
	}
	if _, probs := gate.ParseDictionary(read("RQ-001/02-data/DATA-DICTIONARY.md")); len(probs) != 0 {
		t.Fatalf("dictionary: %v", probs)
	}
	if res, err := gate.DD0(proj.Path("RQ-001", "02-data", "DATA-DICTIONARY.md"), nil); err != nil || res.Status != gate.StatusPass {
		t.Fatalf("DD0: %+v %v", res, err)
	}
	d, err := gate.LoadDomain(proj.Root)
	if err != nil || d.Name != "generic" {
		t.Fatalf("domain: %+v %v", d.Name, err)
	}
	if res, err := gate.DQ4File(proj.Path("RQ-001", "04-results", "FINDINGS.md"), nil, d); err != nil || res.Status != gate.StatusPass {
		t.Fatalf("DQ4: %+v %v", res, err)
	}
	if errs := gate.ValidateDomain(read("domain-config.json")); len(errs) != 0 {
		t.Fatalf("domain config: %v", errs)
	}
	pol, err := permission.Parse(read("permissions.json"))
	if err != nil || !pol.TeamMode() {
		t.Fatalf("permissions: %v", err)
	}
	state := read("STATE.md")
	if s, err := resume.FindSection(state); err != nil || !s.Found {
		t.Fatalf("STATE.md markers: %+v %v", s, err)
	}
	if key, v, _ := resume.Phase(state); key != "phase" || v != "brainstorm" {
		t.Fatalf("STATE.md phase: %q %q", key, v)
	}
	if next := resume.NextSteps(state, 10); len(next) != 3 {
		t.Fatalf("STATE.md next: %q", next)
	}
	if !strings.Contains(string(state), "mode: team") {
		t.Fatal("STATE.md does not say team mode")
	}
}

func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			out[p] = "dir " + info.ModTime().String()
			return nil
		}
		raw, _ := os.ReadFile(p)
		out[p] = info.ModTime().String() + "\x00" + string(raw)
		return nil
	})
	return out
}

func TestInitTwiceChangesNothing(t *testing.T) {
	proj := newProject(t)
	first, err := Init(proj, Options{Now: t0, Team: true, Domain: "crispr-off-target", RQ: "Off-target rates!"})
	if err != nil {
		t.Fatal(err)
	}
	if first.RQ != "RQ-001-off-target-rates" {
		t.Fatalf("rq %s", first.RQ)
	}
	before := snapshot(t, proj.Root)
	for _, o := range []Options{
		{Now: t0.Add(48 * time.Hour), Team: true, Domain: "crispr-off-target", RQ: "Off-target rates!"},
		{Now: t0.Add(48 * time.Hour), Team: true, Domain: "crispr-off-target"}, // no --rq: the existing question
	} {
		again, err := Init(proj, o)
		if err != nil {
			t.Fatal(err)
		}
		if again.Changed() || len(again.Notes) != 0 || strings.Join(again.Existing, "|") != strings.Join(first.Created, "|") {
			t.Fatalf("second run: %+v", again)
		}
		after := snapshot(t, proj.Root)
		if len(after) != len(before) {
			t.Fatalf("%d entries before, %d after", len(before), len(after))
		}
		for k, v := range before {
			if after[k] != v {
				t.Fatalf("%s changed", k)
			}
		}
	}
}

func TestInitNeverOverwrites(t *testing.T) {
	proj := newProject(t)
	os.MkdirAll(proj.Path("RQ-001"), 0o755)
	mine := "# My own state\r\nphase: data\r\nno trailing newline"
	os.WriteFile(proj.Path("STATE.md"), []byte(mine), 0o600)
	os.WriteFile(proj.Path("domain-config.json"), []byte(`{"domain": "photonics-integrated"}`), 0o644)
	os.WriteFile(proj.Path("permissions.json"), []byte(`{"mode": "solo"}`), 0o644)
	os.WriteFile(proj.Path("RQ-001", "RQ.md"), []byte("my question"), 0o644)

	res, err := Init(proj, Options{Now: t0, Team: true, Domain: "crispr-off-target"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(proj.Path("STATE.md")); string(got) != mine {
		t.Fatalf("STATE.md overwritten: %q", got)
	}
	if got, _ := os.ReadFile(proj.Path("RQ-001", "RQ.md")); string(got) != "my question" {
		t.Fatal("RQ.md overwritten")
	}
	want := []string{".vibe-science/", ".vibe-science/RQ-001/", ".vibe-science/STATE.md", ".vibe-science/domain-config.json",
		".vibe-science/permissions.json", ".vibe-science/RQ-001/RQ.md"}
	if strings.Join(res.Existing, "|") != strings.Join(want, "|") {
		t.Fatalf("existing %q", res.Existing)
	}
	wantNotes := []string{
		`.vibe-science/domain-config.json names domain "photonics-integrated", not "crispr-off-target"; vibe init does not change it: edit its "domain" to switch`,
		`.vibe-science/permissions.json exists and does not set "mode": "team"; vibe init does not change it: add that line yourself (the user must approve the edit)`,
	}
	if strings.Join(res.Notes, "\n") != strings.Join(wantNotes, "\n") {
		t.Fatalf("notes:\n%s", strings.Join(res.Notes, "\n"))
	}
	// Everything of the solo tree but the five items that were there.
	if len(res.Created) != len(wantCreated)-5 {
		t.Fatalf("created %d: %q", len(res.Created), res.Created)
	}
	for _, c := range res.Created {
		for _, e := range want {
			if c == e {
				t.Fatalf("%s both created and existing", c)
			}
		}
	}
}

func TestInitErrors(t *testing.T) {
	proj := newProject(t)
	_, err := Init(proj, Options{Now: t0, Domain: "astrology"})
	if err == nil || !strings.Contains(err.Error(), `unknown domain "astrology": shipped domains are crispr-off-target, generic, particle-physics, photonics-integrated`) {
		t.Fatalf("domain: %v", err)
	}
	if _, err := os.Stat(proj.VibeDir()); !os.IsNotExist(err) {
		t.Fatal("a failed init created files")
	}
	_, err = Init(proj, Options{Now: t0, RQ: "!!!"})
	if err == nil || !strings.Contains(err.Error(), `research question name "!!!" has no letters or digits`) {
		t.Fatalf("rq: %v", err)
	}
	os.WriteFile(proj.VibeDir(), []byte("x"), 0o644)
	_, err = Init(proj, Options{Now: t0})
	if err == nil || !strings.Contains(err.Error(), "exists and is not a folder") {
		t.Fatalf("file in the way: %v", err)
	}
}

func TestChooseRQ(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"RQ-001-offtarget", "RQ-003-bandgap", "RQ-002", "notes", "RQ-x"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "RQ-009-file"), nil, 0o644) // a file, not a question
	cases := []struct{ name, folder, title string }{
		{"", "RQ-001-offtarget", ""},
		{"RQ-007-new", "RQ-007-new", ""},
		{"Band gap", "RQ-004-band-gap", "Band gap"},
		{"bandgap", "RQ-003-bandgap", "bandgap"},
		{"  Off target  ", "RQ-004-off-target", "Off target"},
		{strings.Repeat("word ", 20), "RQ-004-word-word-word-word-word-word-word-word", strings.TrimSpace(strings.Repeat("word ", 20))},
	}
	for _, c := range cases {
		folder, title, err := chooseRQ(dir, c.name)
		if err != nil || folder != c.folder || title != c.title {
			t.Errorf("chooseRQ(%q) = %q %q %v, want %q %q", c.name, folder, title, err, c.folder, c.title)
		}
	}
	if folder, _, _ := chooseRQ(filepath.Join(dir, "missing"), ""); folder != "RQ-001" {
		t.Errorf("empty project: %s", folder)
	}
}

// TestExportsAreGitIgnored: in a git repository, the files vibe writes
// with records of tool calls (SPINE.md, RECORD.md, the pickup note) are
// ignored after vibe init; the researcher's files, STATE.md included, are
// not.
func TestExportsAreGitIgnored(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed to check .gitignore")
	}
	proj := newProject(t)
	if out, err := exec.Command(git, "-C", proj.Root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if _, err := Init(proj, Options{Now: t0}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"SPINE.md", "RECORD.md", "RECORD.md.tmp", "project_pickup.md", "STATE.md", "CLAIM-LEDGER.md", "RQ-001/SPINE.md"} {
		os.WriteFile(proj.Path(filepath.FromSlash(f)), []byte("x"), 0o644)
		err := exec.Command(git, "-C", proj.Root, "check-ignore", "-q", filepath.Join(".vibe-science", filepath.FromSlash(f))).Run()
		ignored := err == nil
		want := f == "SPINE.md" || f == "RECORD.md" || f == "RECORD.md.tmp" || f == "project_pickup.md"
		if ignored != want {
			t.Errorf("%s ignored by git: %v, want %v", f, ignored, want)
		}
	}
}
