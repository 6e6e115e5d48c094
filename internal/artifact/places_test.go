package artifact

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// leakyTable is a feature table named as a script names it, with a label
// the domain names (cleaved), a leak and a constant column.
func leakyTable() string {
	var b strings.Builder
	b.WriteString("guide_id,site_id,mismatch_count,gc_content,cleaved,reads_log,batch\n")
	for i := 0; i < 40; i++ {
		cl := i % 2
		b.WriteString("G" + string(rune('A'+i/10)) + ",S" + itoa(i) + "," + itoa(i%6) + ",0." + itoa(30+i) + "," + itoa(cl) + "," + itoa(cl) + ".0" + ",7\n")
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}

// TestScanRecognisesByContentWhereResearchIsWritten: artifacts named and
// placed as researchers do are found without being written by path; what
// lies outside the research folders is found only when written, and then
// its folder is watched; skipped folders are never looked at.
func TestScanRecognisesByContentWhereResearchIsWritten(t *testing.T) {
	root := newProject(t)
	write(t, root, ".gitignore", "outputs/\n")
	d := domain(t)
	d.DQ1.LabelColumn = "cleaved"
	tr := NewTracker()
	tr.Scan(root, d, nil, time.Now(), nil)

	write(t, root, ".vibe-science/RQ-001/02-data/processed/train_matrix.csv", leakyTable())
	write(t, root, "analysis/model_scores.json", `{"roc_auc": 0.91, "cv_scores": [0.9, 0.92]}`)
	write(t, root, "results/conformal.json", `{"alpha": 0.1, "coverage": 1.0, "n_test": 50}`)
	write(t, root, "results/hyperparams.json", `{"learning_rate": 0.05, "max_depth": 6}`)
	write(t, root, "src/pkg/eval/metrics.json", `{"auc": 0.7}`)               // not a research folder
	write(t, root, "outputs/run1/metrics.json", `{"auc": 0.7}`)               // .gitignore'd
	write(t, root, ".venv/lib/python3.11/site-packages/x/metrics.json", "{}") // a virtual environment
	s := tr.Scan(root, d, nil, time.Now(), nil)
	want := []string{
		".vibe-science/RQ-001/02-data/processed/train_matrix.csv features",
		"analysis/model_scores.json metrics",
		"results/conformal.json calibration",
	}
	if got := rels(s.Changes); !reflect.DeepEqual(got, want) {
		t.Fatalf("changes = %v\nwant %v", got, want)
	}
	if s.Changes[0].Label != "cleaved" {
		t.Fatalf("label = %q", s.Changes[0].Label)
	}
	// The gates judge them: the leak of a table the design does not plan
	// and nothing rests on warns (gatecheck.Scratch), the calibration
	// blocks, the hyper-parameters do not count as metrics.
	byGate := map[string]string{}
	for _, j := range Judge(s, d, nil) {
		byGate[j.Result.Gate+" "+j.Rel] = string(j.Result.Status)
	}
	if byGate["DQ1 .vibe-science/RQ-001/02-data/processed/train_matrix.csv"] != "WARN" || byGate["DQ3 results/conformal.json"] != "FAIL" {
		t.Fatalf("judged %v", byGate)
	}
	// Once a findings file names the table, the record rests on it: that
	// blocks (DC0) until the design accounts for the table, and a planned
	// table's leak blocks (the agreement test).
	write(t, root, ".vibe-science/RQ-001/04-results/FINDINGS.md", "# Findings\n\nF1 is computed from train_matrix.csv.\n")
	byGate = map[string]string{}
	for _, j := range Judge(tr.Scan(root, d, nil, time.Now(), nil), d, nil) {
		byGate[j.Result.Gate+" "+j.Rel] = string(j.Result.Status)
	}
	if byGate["DC0 .vibe-science/RQ-001/02-data/processed/train_matrix.csv"] != "FAIL" {
		t.Fatalf("with a finding resting on the table, judged %v", byGate)
	}

	// Written by path outside the research folders: judged, and its folder
	// watched from then on; written by path in skipped folders: ignored.
	src := filepath.Join(root, "src/pkg/eval/metrics.json")
	os.WriteFile(src, []byte(`{"auc": 0.72}`), 0o644)
	venv := filepath.Join(root, ".venv/lib/python3.11/site-packages/x/metrics.json")
	ignored := filepath.Join(root, "outputs/run1/metrics.json")
	s = tr.Scan(root, d, []string{src, venv, ignored}, time.Now(), nil)
	if got := rels(s.Changes); !reflect.DeepEqual(got, []string{"src/pkg/eval/metrics.json metrics"}) {
		t.Fatalf("written: %v", got)
	}
	write(t, root, "src/pkg/eval/calibration_v2.json", `{"nominal_coverage": 0.9, "empirical_coverage": 0.88, "n": 100}`)
	s = tr.Scan(root, d, nil, time.Now(), nil)
	if got := rels(s.Changes); !reflect.DeepEqual(got, []string{"src/pkg/eval/calibration_v2.json calibration"}) {
		t.Fatalf("beside a written artifact: %v", got)
	}

	// A tracked artifact rewritten into something no gate judges is no
	// longer tracked.
	p := filepath.Join(root, "analysis/model_scores.json")
	os.WriteFile(p, []byte(`{"note": "moved to results/"}`), 0o644)
	s = tr.Scan(root, d, nil, time.Now(), nil)
	if len(s.Changes) != 0 || !reflect.DeepEqual(s.Removed, []string{"analysis/model_scores.json"}) {
		t.Fatalf("rewritten into a note: changes %v, removed %v", rels(s.Changes), s.Removed)
	}
	if runtime.GOOS == "linux" {
		// In place, a file that was nothing becomes an artifact: the
		// kernel's report says it was written.
		h := filepath.Join(root, "results/hyperparams.json")
		os.WriteFile(h, []byte(`{"r2": 0.4, "folds": [0.3, 0.5]}`), 0o644)
		s = tr.Scan(root, d, nil, time.Now(), nil)
		if got := rels(s.Changes); !reflect.DeepEqual(got, []string{"results/hyperparams.json metrics"}) {
			t.Fatalf("in place: %v", got)
		}
	}
	if s := tr.Scan(root, d, nil, time.Now(), nil); len(s.Changes)+len(s.Removed) != 0 {
		t.Fatalf("nothing changed: %v %v", rels(s.Changes), s.Removed)
	}
}

// TestScanNeverReadsOutsideResearch: a first look walks the research
// folders only; the files of a large code base beside them are never
// listed or read.
func TestScanNeverReadsOutsideResearch(t *testing.T) {
	root := newProject(t)
	for i := 0; i < 50; i++ {
		write(t, root, "src/mod"+itoa(i)+"/metrics.json", `{"auc": 0.9}`)
	}
	d := domain(t)
	tr := NewTracker()
	tr.Scan(root, d, nil, time.Now(), nil)
	tree := tr.tree(root)
	for dir := range tree.dirs {
		if strings.Contains(dir, string(filepath.Separator)+"src") {
			t.Fatalf("watched %s", dir)
		}
	}
	for abs := range tree.other {
		if strings.Contains(abs, string(filepath.Separator)+"src"+string(filepath.Separator)) {
			t.Fatalf("read %s", abs)
		}
	}
	var watched []string
	for dir := range tree.dirs {
		watched = append(watched, tree.rel(dir))
	}
	want := []string{".", ".vibe-science", ".vibe-science/RQ-001", ".vibe-science/RQ-001/02-data",
		".vibe-science/RQ-001/02-data/raw", ".vibe-science/RQ-001/04-results"}
	if !reflect.DeepEqual(sorted(watched), want) {
		t.Fatalf("watched %v\nwant %v", sorted(watched), want)
	}
}
