package handler_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/lineage"
)

// computeScript computes the findings' values from a data file and writes
// them as the agent's Write below does, byte for byte.
const computeScript = `import csv, json, random, sys
random.seed(7)
rows = list(csv.DictReader(open(".vibe-science/RQ-001/02-data/processed/pairs.csv")))
rho = round(sum(float(r["rho"]) for r in rows) / len(rows), 2)
with open(".vibe-science/RQ-001/04-results/FINDINGS.json", "w") as f:
    f.write(json.dumps({"spearman_rho": rho, "n": 40}))
`

const (
	handJSON = `{"spearman_rho": 0.58, "n": 40}`
	findings = "# Findings\n\n## F1: rank agreement\n\nSpearman rho = 0.58 between the two assays (n = 40 guides).\n"
)

// preWrite is the PreToolUse reply to a Write of rel.
func (r *rig) preWrite(rel, content string) string {
	r.n++
	return r.hook(handler.PreToolUse, map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write",
		"tool_use_id": "toolu_p" + string(rune('a'+r.n)), "tool_input": map[string]any{"file_path": filepath.Join(r.root, rel), "content": content}})
}

// TestHandWrittenFindingsJSONBacksNoFinding (issue 34 item 2): a
// FINDINGS.json the agent writes itself backs no finding: the findings
// that quote it are refused, saying when it was written and how to fix
// it; the same values written by a script run through Bash back them.
func TestHandWrittenFindingsJSONBacksNoFinding(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("this test runs a python3 script; install python3")
	}
	r := newRig(t)
	r.write(".vibe-science/RQ-001/02-data/processed/pairs.csv", "guide,rho\nG1,0.5\nG2,0.66\n")
	r.write("compute.py", computeScript)
	r.bash("ls")
	if post := r.writeAs("", ".vibe-science/RQ-001/04-results/FINDINGS.json", handJSON); strings.Contains(post, `"block"`) {
		t.Fatalf("writing a JSON is not itself refused: %s", post)
	}
	pre := r.preWrite(".vibe-science/RQ-001/04-results/FINDINGS.md", findings)
	for _, s := range []string{`"permissionDecision":"deny"`, "DQ4 FAIL: line 5: 2 reported numbers rest on FINDINGS.json alone (0.58 (line 5), 40 (line 5)); " +
		"FINDINGS.json was written by hand (Write) at ", "re-run the script that computes FINDINGS.json through Bash"} {
		if !strings.Contains(pre, s) {
			t.Errorf("findings quoting a hand-written JSON: the reply lacks %q: %s", s, pre)
		}
	}
	// The values a shell command spells out are as hand-written.
	_, post := r.bash(`echo '{"spearman_rho": 0.58, "n": 40, "note": "x"}' > .vibe-science/RQ-001/04-results/FINDINGS.json`)
	if strings.Contains(post, `"block"`) {
		t.Fatalf("the echo itself was blocked: %s", post)
	}
	if pre := r.preWrite(".vibe-science/RQ-001/04-results/FINDINGS.md", findings); !strings.Contains(pre, "FINDINGS.json was written by hand (Bash: a command that spells out the values it writes)") {
		t.Errorf("findings quoting an echoed JSON: %s", pre)
	}

	// The script writes the same values: they back the finding.
	if _, post := r.bash("python3 compute.py"); strings.Contains(post, `"block"`) {
		t.Fatalf("the script's run was blocked: %s", post)
	}
	if got := r.read(".vibe-science/RQ-001/04-results/FINDINGS.json"); got != handJSON {
		t.Fatalf("the script wrote %s, want the hand-written bytes %s", got, handJSON)
	}
	if pre := r.preWrite(".vibe-science/RQ-001/04-results/FINDINGS.md", findings); strings.Contains(pre, "deny") {
		t.Errorf("findings from a computed JSON were refused: %s", pre)
	}
	if post := r.writeAs("", ".vibe-science/RQ-001/04-results/FINDINGS.md", findings); strings.Contains(post, "DQ4 FAIL") {
		t.Errorf("findings from a computed JSON failed after the write: %s", post)
	}
	// An Edit of the JSON afterwards is a hand again: the findings,
	// judged again at once, block.
	post = r.writeAs("", ".vibe-science/RQ-001/04-results/FINDINGS.json", `{"spearman_rho": 0.58, "n": 40, "edited": true}`)
	if !strings.Contains(post, `"decision":"block"`) || !strings.Contains(post, "FINDINGS.md was judged again") || !strings.Contains(post, "written by hand (Write)") {
		t.Errorf("a hand edit of the computed JSON: %s", post)
	}

	// CI reads the project's mirror and judges alike.
	rep, err := gatecheck.Check(r.root, gatecheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings() {
		found = found || f.Gate == "DQ4" && f.File == ".vibe-science/RQ-001/04-results/FINDINGS.md" && strings.Contains(f.Message, "FINDINGS.json was written by hand (Write)")
	}
	if !found {
		t.Errorf("vibe gate check does not refuse the hand-written source: %+v", rep.Findings())
	}
}

// TestScriptRunRecordsItsLineage: a script run through Bash in the
// resident process leaves the full record of its result in the database
// and the project's mirror: command, script and inputs with their hashes,
// seeds, environment and commit.
func TestScriptRunRecordsItsLineage(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("this test runs a python3 script; install python3")
	}
	r := newRig(t)
	r.resident = true
	os.RemoveAll(filepath.Join(r.root, ".git"))
	r.write(".vibe-science/RQ-001/02-data/processed/pairs.csv", "guide,rho\nG1,0.5\nG2,0.66\n")
	r.write("compute.py", computeScript)
	r.write("requirements.txt", "numpy==1.26.4\n")
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = r.root
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	old := time.Now().Add(-time.Hour) // the data is older than the call that reads it
	for _, rel := range []string{".vibe-science/RQ-001/02-data/processed/pairs.csv", "compute.py"} {
		os.Chtimes(filepath.Join(r.root, rel), old, old)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	commit := git("rev-parse", "HEAD")
	r.bash("ls")
	r.bash("python3 compute.py --seed 11")

	rows, err := r.store().LatestLineage(context.Background(), r.root)
	if err != nil || len(rows) != 1 {
		t.Fatalf("lineage rows %+v, %v", rows, err)
	}
	var rec lineage.Record
	if err := json.Unmarshal(rows[0].Detail, &rec); err != nil {
		t.Fatalf("detail %s: %v", rows[0].Detail, err)
	}
	sum := func(rel string) string {
		s, _, _ := lineage.HashFile(filepath.Join(r.root, rel), 1<<20)
		return s
	}
	if rows[0].Path != ".vibe-science/RQ-001/04-results/FINDINGS.json" || rows[0].Writer != "computation" || rows[0].By != "python3 compute.py" ||
		rows[0].SHA256 != sum(".vibe-science/RQ-001/04-results/FINDINGS.json") {
		t.Errorf("row %+v", rows[0])
	}
	if rec.Command != "python3 compute.py --seed 11" || rec.Cwd != "." || rec.Script == nil || rec.Script.SHA256 != sum("compute.py") {
		t.Errorf("command %q in %q, script %+v", rec.Command, rec.Cwd, rec.Script)
	}
	if want := []lineage.File{{Path: ".vibe-science/RQ-001/02-data/processed/pairs.csv", SHA256: sum(".vibe-science/RQ-001/02-data/processed/pairs.csv"), Size: 25}}; !reflect.DeepEqual(rec.Inputs, want) {
		t.Errorf("inputs %+v, want %+v", rec.Inputs, want)
	}
	if want := []string{"--seed 11", "random.seed(7)"}; !reflect.DeepEqual(rec.Seeds, want) {
		t.Errorf("seeds %q, want %q", rec.Seeds, want)
	}
	if rec.Env == nil || !strings.HasPrefix(rec.Env.Version, "Python 3.") || len(rec.Env.Files) != 1 || rec.Env.Files[0].Path != "requirements.txt" {
		t.Errorf("environment %+v", rec.Env)
	}
	if rec.Git == nil || rec.Git.Commit != commit || rec.Git.Dirty == nil || *rec.Git.Dirty {
		t.Errorf("git %+v, want %s and a clean tree (what the call wrote is its output, no change)", rec.Git, commit)
	}
	m, err := lineage.ReadMirror(r.root)
	if err != nil || len(m.Records) == 0 || m.Records[len(m.Records)-1].SHA256 != rows[0].SHA256 || m.Records[len(m.Records)-1].Script == nil {
		t.Errorf("mirror %+v, %v", m.Records, err)
	}
}

// TestPromotionRestingOnAHandWrittenResult: a claim whose evidence is a
// JSON the agent wrote by hand is not promoted, whatever gates passed; by
// the hooks and by vibe gate check.
func TestPromotionRestingOnAHandWrittenResult(t *testing.T) {
	r := newRig(t)
	r.write(".vibe-science/CLAIM-LEDGER.md", netLedger)
	r.write(".vibe-science/RQ-001/05-reviewer2/R2-20261128-001.md", "# R2 review\n\n## C-001: Mismatch count correlates with cleavage\n- verdict: ACCEPT\n")
	r.hook(handler.SessionStart, map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	r.bash("ls")
	r.writeAs("", ".vibe-science/RQ-001/04-results/FINDINGS.json", handJSON)
	r.pass("C-001", "DQ4", "DC0", "DQ1", "D1")
	promoted := strings.Replace(netLedger, "status: PROVISIONAL", "status: PROMOTED", 1)
	pre := r.preWrite(".vibe-science/CLAIM-LEDGER.md", promoted)
	for _, s := range []string{`"permissionDecision":"deny"`, "C-001 cannot become PROMOTED: it rests on .vibe-science/RQ-001/04-results/FINDINGS.json was written by hand (Write) at ",
		"a promotion rests only on results a computation wrote", "Re-run the script that computes them through Bash"} {
		if !strings.Contains(pre, s) {
			t.Errorf("a promotion resting on a hand-written JSON: the reply lacks %q: %s", s, pre)
		}
	}
	r.write(".vibe-science/CLAIM-LEDGER.md", promoted) // as if it were written anyway
	rep, err := gatecheck.Check(r.root, gatecheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings() {
		found = found || f.Gate == gatecheck.RulePromotion && strings.Contains(f.Message, "it rests on .vibe-science/RQ-001/04-results/FINDINGS.json was written by hand (Write)")
	}
	if !found {
		t.Errorf("vibe gate check lets the promotion stand: %+v", rep.Findings())
	}
}

// TestResultFiles: which JSON files a call names as written count as
// results.
func TestResultFiles(t *testing.T) {
	for rel, want := range map[string]bool{
		".vibe-science/RQ-001/04-results/FINDINGS.json":         true,
		"results/metrics.json":                                  true,
		"FINDINGS.json":                                         true,
		".vibe-science/domain-config.json":                      false,
		".vibe-science/permissions.json":                        false,
		".vibe-science/RQ-001/04-results/C-001-promotion.json":  false,
		".vibe-science/RQ-001/05-reviewer2/L0-20261128-01.json": false,
		".vibe-science/RQ-001/00-brainstorm/B0.json":            false,
		".claude/settings.json":                                 false,
		"web/.eslintrc.json":                                    false,
		"package.json":                                          false,
		"tsconfig.build.json":                                   false,
		"results/metrics.csv":                                   false,
		"/elsewhere/metrics.json":                               false,
	} {
		if got := handler.ResultFile(rel); got != want {
			t.Errorf("ResultFile(%q) = %v, want %v", rel, got, want)
		}
	}
}
