package research

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/gate"
)

func generic(t testing.TB) gate.Domain {
	t.Helper()
	d, err := gate.ShippedDomain(gate.GenericDomain)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRecognizeCorpus runs Recognize over the corpus of realistic files
// (testdata/README.md) and compares every answer with corpus/EXPECT.
func TestRecognizeCorpus(t *testing.T) {
	root := filepath.Join("testdata", "corpus")
	f, err := os.Open(filepath.Join(root, "EXPECT"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		rel, want := cols[0], cols[1]
		if want == "-" {
			want = ""
		}
		listed[rel] = true
		d := generic(t)
		if len(cols) > 2 {
			d.DQ1.LabelColumn = cols[2]
		}
		got := recognizePath(t, root, rel, d)
		if got.Kind != want {
			t.Errorf("%s (label_column %q): %q (%s), want %q", rel, d.DQ1.LabelColumn, got.Kind, got.Why, want)
		}
	}
	// Every corpus file has an expectation.
	filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || de.Name() == "EXPECT" {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if !listed[filepath.ToSlash(rel)] {
			t.Errorf("%s has no line in EXPECT", rel)
		}
		return nil
	})
}

func recognizePath(t testing.TB, root, rel string, d gate.Domain) Artifact {
	t.Helper()
	if !Candidate(rel, &d) {
		return Artifact{}
	}
	f, err := ReadFile(filepath.Join(root, filepath.FromSlash(rel)), rel)
	if err != nil {
		t.Fatal(err)
	}
	return Recognize(f, d)
}

func TestRecognizeFeatureTableReportsItsLabel(t *testing.T) {
	d := generic(t)
	cases := []struct{ rel, label string }{
		{"data/processed/heart_clean.csv", "target"},
		{"analysis/pima_model_table.csv", "Outcome"},
		{"outputs/fraud_train_matrix.csv", "Class"},
		{"02-data/processed/bank_design_matrix.csv", "y"},
	}
	for _, c := range cases {
		a := recognizePath(t, filepath.Join("testdata", "corpus"), c.rel, d)
		if a.Label != c.label {
			t.Errorf("%s: label %q, want %q (%s)", c.rel, a.Label, c.label, a.Why)
		}
		// DQ1 finds the label only by its defaults or the domain's name:
		// the gate sees the recognised label as its input.
		if got := a.Domain(d).DQ1.LabelColumn; got != c.label {
			t.Errorf("%s: DQ1 would judge with label_column %q, want %q", c.rel, got, c.label)
		}
	}
}

// TestRecognizeReadsOnlyTheHead: a table larger than HeadBytes is judged
// from its head (the last partial line dropped), a metrics document whose
// feature importances run past HeadBytes is still read as JSON, and a cut
// JSON document keeps the keys read whole.
func TestRecognizeReadsOnlyTheHead(t *testing.T) {
	d := generic(t)
	var b strings.Builder
	b.WriteString("x1,x2,x3,label\n")
	for i := 0; b.Len() < 3*HeadBytes; i++ {
		fmt.Fprintf(&b, "%d.5,%d,0.25,%d\n", i, i%7, i%2)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "big.csv")
	os.WriteFile(p, []byte(b.String()), 0o644)
	f, _ := ReadFile(p, "big.csv")
	if len(f.Head) != HeadBytes {
		t.Fatalf("read %d bytes of a %d-byte table, want %d", len(f.Head), b.Len(), HeadBytes)
	}
	if a := Recognize(f, d); a.Kind != KindFeatures {
		t.Fatalf("big table: %q (%s)", a.Kind, a.Why)
	}

	imp := map[string]float64{}
	for i := 0; i < 5000; i++ {
		imp[fmt.Sprintf("feature_%05d", i)] = 1.0 / float64(i+1)
	}
	raw, _ := json.Marshal(map[string]any{"feature_importance": imp, "auc": 0.8})
	if len(raw) <= HeadBytes {
		t.Fatalf("test document too small: %d", len(raw))
	}
	p = filepath.Join(dir, "eval_out.json")
	os.WriteFile(p, raw, 0o644)
	f, _ = ReadFile(p, "eval_out.json")
	if a := Recognize(f, d); a.Kind != KindMetrics {
		t.Fatalf("metrics with 5000 importances: %q (%s)", a.Kind, a.Why)
	}

	// Past JSONHeadBytes: the keys before the cut still count.
	var big strings.Builder
	big.WriteString(`{"r2": 0.31, "residuals": [`)
	for big.Len() < JSONHeadBytes+1000 {
		big.WriteString("0.125, ")
	}
	big.WriteString("0]}")
	p = filepath.Join(dir, "fit.json")
	os.WriteFile(p, []byte(big.String()), 0o644)
	f, _ = ReadFile(p, "fit.json")
	if !f.cut() {
		t.Fatal("the head was not cut")
	}
	if a := Recognize(f, d); a.Kind != KindMetrics {
		t.Fatalf("cut document: %q (%s)", a.Kind, a.Why)
	}
}

// TestDomainHints: the domain's patterns add files and its columns add
// tables; without them the same files are judged by content alone.
func TestDomainHints(t *testing.T) {
	d := generic(t)
	dir := t.TempDir()
	write := func(rel, content string) File {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		f, err := ReadFile(p, rel)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// A config the domain names as metrics is metrics (DQ2 will say it
	// holds no score): the config's word is final.
	cfg := write("out/metrics_config.json", `{"learning_rate": 0.1}`)
	if a := Recognize(cfg, d); a.Kind != KindMetrics || !a.Hinted {
		t.Fatalf("hinted: %+v", a)
	}
	d2 := d
	d2.Files.Metrics = nil
	if a := Recognize(cfg, d2); a.Kind != "" {
		t.Fatalf("without the hint a hyper-parameter file is %+v", a)
	}
	// dq1.required_columns make a table without a known label a feature
	// table.
	tab := write("data/prepared.csv", "site,mm,gc,reads\n"+strings.Repeat("s1,1,0.5,3\ns2,2,0.4,0\n", 10))
	if a := Recognize(tab, d); a.Kind != KindTable {
		t.Fatalf("no label, no hint: %+v", a)
	}
	d3 := d
	d3.DQ1.RequiredColumns = []string{"mm", "gc"}
	if a := Recognize(tab, d3); a.Kind != KindFeatures {
		t.Fatalf("required columns: %+v", a)
	}
}

// TestMayBeGatedHidesNothing: the hooks read only files MayBeGated lets
// through; every corpus file recognised as a gated kind must be one, and
// tables in raw folders and notes are not read.
func TestMayBeGatedHidesNothing(t *testing.T) {
	root := filepath.Join("testdata", "corpus")
	d := generic(t)
	d.DQ1.LabelColumn = "cleaved"
	gated := 0
	filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || de.Name() == "EXPECT" {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if a := recognizePath(t, root, rel, d); len(Gates(a.Kind)) > 0 {
			gated++
			if !MayBeGated(rel, &d) {
				t.Errorf("%s is %s, but MayBeGated says the hooks need not read it", rel, a.Kind)
			}
		}
		return nil
	})
	if gated < 15 {
		t.Fatalf("only %d gated files in the corpus", gated)
	}
	for _, rel := range []string{".vibe-science/RQ-001/02-data/raw/guideseq.csv", "notes/plan.md.txt", "data/processed/embeddings.parquet", "requirements.txt"} {
		if MayBeGated(rel, &d) {
			t.Errorf("MayBeGated(%s) is true", rel)
		}
	}
}

// TestHintedIsFileKind: hinted, the hooks' quick form of d.FileKind(rel)
// != "", answers as FileKind does over the corpus, odd names and every
// shipped domain.
func TestHintedIsFileKind(t *testing.T) {
	rels := []string{"a/features.csv", "A/FEATURES_v2.TSV", `x\\metrics_final.json`, "r/FINDINGS.md", "r/my-findings-draft.md",
		"d/DATA-DICTIONARY.md", "d/data-dictionary.tsv", "calibration.json", "x/features.parquet", "features", "metrics.json.bak", "notes.md"}
	filepath.WalkDir(filepath.Join("testdata", "corpus"), func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			rels = append(rels, filepath.ToSlash(p))
		}
		return err
	})
	for _, name := range gate.ShippedDomains() {
		d, err := gate.ShippedDomain(name)
		if err != nil {
			t.Fatal(err)
		}
		d.Files.Features = append(d.Files.Features, "**/processed/*.parquet", "*.feat*", "x/*")
		for _, rel := range rels {
			if got, want := hinted(rel, d), d.FileKind(rel) != ""; got != want {
				t.Errorf("%s: hinted(%s) = %v, FileKind says %v", name, rel, got, want)
			}
		}
	}
}
