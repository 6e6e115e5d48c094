package tamper

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/vibe-science/vibe/internal/brief"
	"github.com/vibe-science/vibe/internal/integritycheck"
)

// briefCopy is the project copy of a brief with one Critical Block
// constraint on targets.
func briefCopy(t *testing.T, id string, targets ...string) string {
	t.Helper()
	raw, err := json.Marshal(brief.Brief{Title: "Off-target scoring", Constraints: []brief.Constraint{{
		ID: id, Title: "Never change how guides are split", Severity: brief.Critical, Action: brief.Block, AppliesTo: targets}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestCriticalConstraintFilesAreProtected: a file a Critical brief
// constraint names is in the snapshot; changed by any means (a file name
// computed in inline Python, which the analyser lets through) it is
// restored, and so is the brief's copy; a brief ingested later brings its
// files in.
func TestCriticalConstraintFilesAreProtected(t *testing.T) {
	f := newProject(t, map[string]string{
		"src/split.py":                          "def make_splits(n):\n    return []\n",
		"data/heldout/g1.csv":                   "guide\nAAA\n",
		integritycheck.ProjectBriefFile:         briefCopy(t, "BC-001", "src/split.py#make_splits"),
		".vibe-science/RQ-001/03-analysis/b.py": "print(2)\n",
	}, Options{})
	f.check(Call{})
	cmd := `python3 -c "p='src/'+'split.py'; open(p,'a').write('#')"`
	f.allowedBefore("", cmd)
	f.sh(cmd)
	rep := f.check(f.bash("", cmd))
	wantOutcomes(t, rep, "modified src/split.py restored")
	if rep.Findings[0].Set != "brief.BC-001" || rep.Findings[0].Rule != "brief.BC-001" {
		t.Fatalf("finding: %+v", rep.Findings[0])
	}
	if f.read("src/split.py") != "def make_splits(n):\n    return []\n" {
		t.Fatal("src/split.py not restored")
	}
	// Not even a Write that names it.
	f.write("src/split.py", "def make_splits(n, k):\n    return []\n")
	wantOutcomes(t, f.check(Call{Tool: "Edit", Named: []string{"src/split.py"}, Direct: true}), "modified src/split.py restored")
	// The copy itself is no agent's to change.
	f.write(integritycheck.ProjectBriefFile, `{"title":"x","constraints":[],"decisions":[],"anchors":[]}`)
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified "+integritycheck.ProjectBriefFile+" restored")
	// A new brief (vibe brief ingest accepts its copy): its files come in.
	f.write(integritycheck.ProjectBriefFile, briefCopy(t, "BC-002", "data/heldout/**"))
	if _, err := f.g.Accept(f.root, []string{integritycheck.ProjectBriefFile}, t0); err != nil {
		t.Fatal(err)
	}
	f.sh("echo TTT >> data/heldout/g1.csv")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}), "modified data/heldout/g1.csv restored")
	if f.read("data/heldout/g1.csv") != "guide\nAAA\n" {
		t.Fatal("held-out data not restored")
	}
	// BC-001 is gone with the old brief: src/split.py is the researcher's.
	f.write("src/split.py", "def make_splits(n, k):\n    return []\n")
	wantOutcomes(t, f.check(Call{Tool: "Bash"}))
	if _, err := os.Stat(f.abs("src/split.py")); err != nil {
		t.Fatal(err)
	}
}

// TestChangesJudgedWhileTheListsChange: a call that moves a guarded file's
// folder away and makes a new folder holding a guarded file the role may
// write (parallel's "mkdir -p {=...=}; mv {} ..." over every entry): taking
// the new file in rebuilds the snapshot's lists mid-check, and the moved
// file is still judged.
func TestChangesJudgedWhileTheListsChange(t *testing.T) {
	f := newProject(t, map[string]string{
		"src/split.py":                  "def make_splits(n):\n    return []\n",
		"SERENDIPITY.md":                "# Seeds\n",
		integritycheck.ProjectBriefFile: briefCopy(t, "BC-001", "src/split.py#make_splits"),
	}, Options{})
	f.check(Call{})
	f.sh("mkdir -p s S && mv src s/ && mv SERENDIPITY.md S/")
	rep := f.check(Call{Tool: "Bash"})
	wantOutcomes(t, rep, "deleted src/split.py restored")
	if f.read("src/split.py") != "def make_splits(n):\n    return []\n" {
		t.Fatal("src/split.py not restored")
	}
}
