package artifact

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/lineage"
)

// agreeTree is a project whose artifacts are named the way scripts name
// them, in a research question and at the project's own analysis/ and
// results/, beside files that are no research and folders that are none.
func agreeTree(t *testing.T) string {
	t.Helper()
	root := newProject(t)
	files := map[string]string{
		".gitignore":                       "outputs/\n",
		".vibe-science/domain-config.json": `{"domain": "generic", "dq1": {"label_column": "cleaved"}}`,
		".vibe-science/RQ-001/DESIGN.md": "# Design: off-target\n- rq: RQ-001\n\n## Planned steps\n\n### Step 1: Features\n" +
			"- inputs: 02-data/raw/a.csv\n- outputs: 02-data/processed/train_matrix.csv\n- gates: DQ1\n\n" +
			"### Step 2: Model\n- inputs: 02-data/processed/train_matrix.csv\n- outputs: 04-results/eval_scores.json\n- gates: DQ2\n",
		".vibe-science/RQ-001/02-data/DATA-DICTIONARY.md": "# Data dictionary\n\n## processed/train_matrix.csv\n\n" +
			"| column | type | unit | description |\n|---|---|---|---|\n| guide_id | string | - | guide |\n| site_id | string | - | site |\n" +
			"| mismatch_count | integer | count | mismatches |\n| gc_content | float | fraction | GC |\n| cleaved | boolean | - | label |\n| batch | integer | - | batch |\n",
		".vibe-science/RQ-001/02-data/processed/train_matrix.csv": leakyTable(),
		".vibe-science/RQ-001/04-results/eval_scores.json":        `{"roc_auc": 0.86, "feature_importances": {"reads_log": 0.9, "gc_content": 0.1}, "cv_scores": [0.85, 0.87, 0.86]}`,
		".vibe-science/RQ-001/04-results/summary.json":            `{"F1": {"auc": 0.86, "n_sites": 40}}`,
		".vibe-science/RQ-001/04-results/summary.md": "# Summary\n<!-- source: summary.json -->\n\n## F1: mismatches predict cleavage\n\n" +
			"AUC 0.86 on n = 40 sites; an earlier run gave 0.91.\n",
		"analysis/model_matrix.tsv":              "x1\tx2\tx3\ttarget\n" + strings.Repeat("0.1\t3\t5.5\t1\n0.4\t2\t4.5\t0\n0.3\t1\t6.5\t1\n", 5),
		"analysis/metrics_final.json":            `{"auc": 0.52, "folds": [0.5, 0.54]}`,
		"results/summary.json":                   `{"model": "ridge", "metrics": {"r2": 0.31, "rmse": 2.2}, "folds": [0.3, 0.32, 0.31]}`,
		"results/coverage_report.json":           `{"alpha": 0.1, "coverage": 1.0, "n_test": 12}`,
		"results/REPORT.md":                      "# Key findings\n<!-- source: summary.json -->\n\nThe ridge model explains R² = 0.31 of the variance.\n",
		"results/hyperparams.json":               `{"learning_rate": 0.05, "max_depth": 6, "eval_metric": "auc"}`,
		"results/classification_report.json":     `{"accuracy": 0.9, "f1_macro": 0.8}`,
		"results/test_predictions.csv":           "id,target,y_pred\n" + strings.Repeat("1,1,1\n2,0,1\n", 10),
		"package.json":                           `{"name": "dash", "version": "1.0.0"}`,
		"src/eval/metrics.json":                  `{"auc": 0.49}`,
		"src/eval/results_note.md":               "# Findings\n\nAUC 0.49.\n",
		"outputs/run1/metrics.json":              `{"auc": 0.2}`,
		".venv/lib/site-packages/x/metrics.json": `{"auc": 0.2}`,
		"node_modules/chart/metrics.json":        `{"auc": 0.2}`,
		"build/eval/metrics.json":                `{"auc": 0.2}`,
		"env/pyvenv.cfg":                         "home = /usr/bin\n",
		"env/lib/metrics.json":                   `{"auc": 0.2}`,
	}
	for rel, content := range files {
		write(t, root, rel, content)
	}
	// results/summary.json, REPORT.md's source, was written by hand: the
	// project's lineage mirror says so, and both judge from it.
	if err := lineage.AppendMirror(root, lineage.Record{Path: "results/summary.json", SHA256: lineage.Sum([]byte(files["results/summary.json"])),
		Writer: lineage.Hand, By: "Write", At: time.Date(2026, 11, 24, 10, 14, 0, 0, time.UTC)}, nil); err != nil {
		t.Fatal(err)
	}
	return root
}

// verdictKey is one gate's verdict on one file: its status and how many
// checks failed and warned.
type verdictKey struct {
	gate, file string
}

type verdictVal struct {
	status      gate.Status
	fail, warns int
}

func (v verdictVal) String() string {
	return fmt.Sprintf("%s (%d failed, %d warned)", v.status, v.fail, v.warns)
}

// TestGateCheckAndHooksAgree builds one tree and judges it twice: with
// `vibe gate check` (gatecheck.Check) and with what PostToolUse runs after
// a call (Tracker.Scan, then Judge, with the sources' origins from the
// lineage records), the call having written the one artifact outside the
// research folders. The same files must be judged by the same gates with
// the same results.
func TestGateCheckAndHooksAgree(t *testing.T) {
	root := agreeTree(t)
	d, err := gate.LoadDomain(root)
	if err != nil {
		t.Fatal(err)
	}

	rep, err := gatecheck.Check(root, gatecheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ci := map[verdictKey]verdictVal{}
	for _, it := range rep.Items {
		if !isDataGate(it.Gate) {
			continue
		}
		v := verdictVal{status: it.Status}
		for _, f := range it.Findings {
			if f.Level == gatecheck.Error {
				v.fail++
			} else {
				v.warns++
			}
		}
		ci[verdictKey{it.Gate, it.File}] = v
	}

	// Every file is new to the hooks (since is long ago), as after a call
	// that produced the whole tree. Outside the research folders the hooks
	// see what the call is known to have written: here, the two files
	// under src/ (gate check, walking everything, sees them regardless).
	written := []string{filepath.Join(root, "src/eval/metrics.json"), filepath.Join(root, "src/eval/results_note.md")}
	s := NewTracker().Scan(root, d, written, time.Unix(0, 0), nil)
	hooks := map[verdictKey]verdictVal{}
	for _, j := range Judge(s, d, gatecheck.MirrorOrigins(root)) {
		v := verdictVal{}
		for _, c := range j.Result.Checks {
			switch c.Status {
			case gate.StatusFail:
				v.fail++
			case gate.StatusWarn:
				v.warns++
			}
		}
		switch {
		case v.fail > 0:
			v.status = gate.StatusFail
		case v.warns > 0:
			v.status = gate.StatusWarn
		default:
			v.status = gate.StatusPass
		}
		hooks[verdictKey{j.Result.Gate, j.Rel}] = v
	}

	if !reflect.DeepEqual(ci, hooks) {
		t.Errorf("gate check and the hooks disagree\n%s", diff(ci, hooks))
	}
	// What both judged, so a tree that judges nothing cannot pass.
	want := []string{
		"DC0 .vibe-science/RQ-001/DESIGN.md",
		"DD0 .vibe-science/RQ-001/02-data/processed/train_matrix.csv",
		"DD0 analysis/model_matrix.tsv",
		"DQ1 .vibe-science/RQ-001/02-data/processed/train_matrix.csv",
		"DQ1 analysis/model_matrix.tsv",
		"DQ2 .vibe-science/RQ-001/04-results/eval_scores.json",
		"DQ2 analysis/metrics_final.json",
		"DQ2 results/summary.json",
		"DQ2 src/eval/metrics.json",
		"DQ3 results/coverage_report.json",
		"DQ4 .vibe-science/RQ-001/04-results/FINDINGS.md",
		"DQ4 .vibe-science/RQ-001/04-results/summary.md",
		"DQ4 results/REPORT.md",
		"DQ4 src/eval/results_note.md",
	}
	var got []string
	for k := range hooks {
		got = append(got, k.gate+" "+k.file)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("judged\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, k := range []verdictKey{
		{"DQ1", ".vibe-science/RQ-001/02-data/processed/train_matrix.csv"},
		{"DQ2", ".vibe-science/RQ-001/04-results/eval_scores.json"},
		{"DQ2", "analysis/metrics_final.json"},
		{"DQ3", "results/coverage_report.json"},
		{"DQ4", ".vibe-science/RQ-001/04-results/summary.md"},
		{"DQ4", "results/REPORT.md"}, // its source was written by hand
		{"DD0", "analysis/model_matrix.tsv"},
	} {
		if hooks[k].status != gate.StatusFail {
			t.Errorf("%s on %s: %v, want a failure", k.gate, k.file, hooks[k])
		}
	}
}

func isDataGate(id string) bool {
	switch id {
	case "DQ1", "DQ2", "DQ3", "DQ4", "DD0", "DC0":
		return true
	}
	return false
}

func diff(a, b map[verdictKey]verdictVal) string {
	keys := map[verdictKey]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var lines []string
	for k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		if oka && okb && va == vb {
			continue
		}
		ca, hb := "not judged", "not judged"
		if oka {
			ca = va.String()
		}
		if okb {
			hb = vb.String()
		}
		lines = append(lines, fmt.Sprintf("%s %s: gate check %s, hooks %s", k.gate, k.file, ca, hb))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
