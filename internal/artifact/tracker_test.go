package artifact

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
)

func domain(t *testing.T) gate.Domain {
	t.Helper()
	d, err := gate.ShippedDomain(gate.GenericDomain)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newProject makes a research question with a data dictionary and returns
// the root; every file is dated an hour back.
func newProject(t *testing.T) string {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	write(t, root, ".vibe-science/RQ-001/02-data/DATA-DICTIONARY.md", "# Data dictionary\n")
	write(t, root, ".vibe-science/RQ-001/02-data/raw/a.csv", "x\n1\n")
	write(t, root, ".vibe-science/RQ-001/04-results/FINDINGS.md", "# Findings\n")
	write(t, root, ".vibe-science/RQ-001/DESIGN.md", "# Design: x\n")
	age(t, root)
	return root
}

func write(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func age(t *testing.T, root string) {
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func rels(cs []Change) []string {
	var out []string
	for _, c := range cs {
		k := c.Kind
		if k == "" {
			k = "data"
		}
		out = append(out, c.Rel+" "+k)
	}
	return out
}

func TestScanFindsWhatChangedWhateverWroteIt(t *testing.T) {
	root := newProject(t)
	d := domain(t)
	tr := NewTracker()
	s := tr.Scan(root, d, nil, time.Now(), nil)
	if len(s.Changes) != 0 {
		t.Fatalf("first look at an old project gated %v; old files are a baseline", rels(s.Changes))
	}
	wantBase := []string{".vibe-science/RQ-001/02-data/DATA-DICTIONARY.md", ".vibe-science/RQ-001/04-results/FINDINGS.md", ".vibe-science/RQ-001/DESIGN.md"}
	var gotBase []string
	for _, b := range s.Baseline {
		gotBase = append(gotBase, b.Rel)
	}
	if !reflect.DeepEqual(sorted(gotBase), wantBase) {
		t.Fatalf("baseline = %v, want %v", gotBase, wantBase)
	}
	if s := tr.Scan(root, d, nil, time.Now(), nil); len(s.Changes)+len(s.Baseline) != 0 {
		t.Fatalf("nothing changed, yet the scan reports %v / %v", rels(s.Changes), s.Baseline)
	}

	// A script writes a new features table deep in the data folder, a
	// new raw file appears and the findings' JSON changes in place.
	write(t, root, ".vibe-science/RQ-001/02-data/processed/v2/features.csv", "a,b\n1,2\n")
	write(t, root, ".vibe-science/RQ-001/02-data/raw/b.csv", "x\n2\n")
	write(t, root, ".vibe-science/RQ-001/04-results/FINDINGS.json", "{}")
	s = tr.Scan(root, d, nil, time.Now(), nil)
	want := []string{
		".vibe-science/RQ-001/02-data/processed/v2/features.csv features",
		".vibe-science/RQ-001/02-data/raw/b.csv data",
		".vibe-science/RQ-001/04-results/FINDINGS.json findings-source",
	}
	if got := rels(s.Changes); !reflect.DeepEqual(got, want) {
		t.Fatalf("changes = %v\nwant %v", got, want)
	}
	if s := tr.Scan(root, d, nil, time.Now(), nil); len(s.Changes) != 0 {
		t.Fatalf("the same files were reported twice: %v", rels(s.Changes))
	}

	// In place, same folder: only the file's own stat can tell.
	p := filepath.Join(root, ".vibe-science/RQ-001/04-results/FINDINGS.md")
	os.WriteFile(p, []byte("# Findings\nAUC 0.9\n"), 0o644)
	s = tr.Scan(root, d, nil, time.Now(), nil)
	if got := rels(s.Changes); !reflect.DeepEqual(got, []string{".vibe-science/RQ-001/04-results/FINDINGS.md findings"}) || s.Changes[0].Prev == nil {
		t.Fatalf("in-place rewrite: changes = %v (prev %v)", got, s.Changes)
	}

	// Removed.
	os.Remove(p)
	s = tr.Scan(root, d, nil, time.Now(), nil)
	if !reflect.DeepEqual(s.Removed, []string{".vibe-science/RQ-001/04-results/FINDINGS.md"}) {
		t.Fatalf("removed = %v", s.Removed)
	}

	// A new research question appears with a metrics file in it.
	write(t, root, ".vibe-science/RQ-002-x/04-results/metrics.json", "{}")
	s = tr.Scan(root, d, nil, time.Now(), nil)
	if got := rels(s.Changes); !reflect.DeepEqual(got, []string{".vibe-science/RQ-002-x/04-results/metrics.json metrics"}) {
		t.Fatalf("new research question: changes = %v", got)
	}

	// Written by path outside the watched folders.
	out := write(t, root, "results/metrics_final.json", "{}")
	s = tr.Scan(root, d, []string{out}, time.Now(), nil)
	if got := rels(s.Changes); !reflect.DeepEqual(got, []string{"results/metrics_final.json metrics"}) {
		t.Fatalf("written path: changes = %v", got)
	}
	if runtime.GOOS == "linux" && tr.tree(root).w == nil {
		t.Fatal("after several looks the tracker still stats everything instead of reading the kernel's reports")
	}
	// A file that is no artifact is ignored even when written.
	other := write(t, root, "notes.txt", "x")
	if s := tr.Scan(root, d, []string{other}, time.Now(), nil); len(s.Changes) != 0 {
		t.Fatalf("a note was taken for an artifact: %v", rels(s.Changes))
	}
}

func TestScanResumesFromWhatWasRecorded(t *testing.T) {
	root := newProject(t)
	d := domain(t)
	first := NewTracker().Scan(root, d, nil, time.Now(), nil)
	recorded := first.Baseline
	// A new process: unchanged recorded files are not gated again, a file
	// changed while no process watched is.
	p := filepath.Join(root, ".vibe-science/RQ-001/DESIGN.md")
	os.WriteFile(p, []byte("# Design: y\n"), 0o644)
	later := time.Now().Add(time.Hour) // the change is older than this call
	s := NewTracker().Scan(root, d, nil, later, func() ([]State, error) { return recorded, nil })
	if got := rels(s.Changes); !reflect.DeepEqual(got, []string{".vibe-science/RQ-001/DESIGN.md design"}) {
		t.Fatalf("changes = %v", got)
	}
	if len(s.Baseline) != 0 {
		t.Fatalf("recorded files were taken as new: %v", s.Baseline)
	}
}

func TestJudgeSaysWhenItCannotDecide(t *testing.T) {
	root := newProject(t)
	d := domain(t)
	tr := NewTracker()
	tr.Scan(root, d, nil, time.Now(), nil)
	write(t, root, ".vibe-science/RQ-001/02-data/processed/features.csv", "a,b\x00\x01\x02\n")
	write(t, root, ".vibe-science/RQ-001/04-results/metrics.json", `{"auc": 0.8, `)
	s := tr.Scan(root, d, nil, time.Now(), nil)
	js := Judge(s, d, nil)
	got := map[string]string{}
	for _, j := range js {
		if j.Undecided {
			got[j.Result.Gate] = j.Result.Checks[0].Detail
		}
		if (j.Result.Gate == "DQ1" || j.Result.Gate == "DQ2") && j.Result.Status != gate.StatusWarn {
			t.Errorf("%s on %s is %s although it could not decide: %s", j.Result.Gate, j.Rel, j.Result.Status, j.Result.Reason())
		}
	}
	if !strings.Contains(got["DQ1"], "not a text table") || !strings.Contains(got["DQ2"], "not valid JSON") {
		t.Fatalf("undecided = %v", got)
	}
}

func TestJudgeSamplesATableTooLargeForAHook(t *testing.T) {
	root := newProject(t)
	d := domain(t)
	tr := NewTracker()
	tr.Scan(root, d, nil, time.Now(), nil)
	var b strings.Builder
	b.WriteString("x,y,label\n")
	for b.Len() < MaxGateBytes+1<<20 {
		b.WriteString("0.1234567,0.7654321,1\n0.2234567,0.6654321,0\n")
	}
	write(t, root, ".vibe-science/RQ-001/02-data/processed/features.csv", b.String())
	js := Judge(tr.Scan(root, d, nil, time.Now(), nil), d, nil)
	var dq1 *Judgement
	for i := range js {
		if js[i].Result.Gate == "DQ1" {
			dq1 = &js[i]
		}
	}
	if dq1 == nil {
		t.Fatal("DQ1 did not run")
	}
	found := false
	for _, c := range dq1.Result.Checks {
		if c.Name == "sample" && strings.Contains(c.Detail, "judged on its first") {
			found = true
		}
	}
	if !found {
		t.Fatalf("a %d MB table was judged without saying it was sampled: %+v", MaxGateBytes>>20, dq1.Result.Checks)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func domainFor() (gate.Domain, error) { return gate.ShippedDomain(gate.GenericDomain) }

// TestJudgedVersionIsTheNextOnesPrevious: in one process, the second
// version of a table is compared with the first one's DQ1 profile (the
// blueprint's M4: a score zeroed between two versions).
func TestJudgedVersionIsTheNextOnesPrevious(t *testing.T) {
	root := newProject(t)
	d := domain(t)
	tr := NewTracker()
	tr.Scan(root, d, nil, time.Now(), nil)
	table := func(zeroEvery int) string {
		var b strings.Builder
		b.WriteString("id,score,label\n")
		for i := 0; i < 40; i++ {
			v := "0.5"
			if i%zeroEvery == 0 {
				v = "0"
			} else if i%3 == 0 {
				v = "0.7"
			}
			b.WriteString("s" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "," + v + "," + string(rune('0'+i%2)) + "\n")
		}
		return b.String()
	}
	p := write(t, root, ".vibe-science/RQ-001/02-data/processed/features.csv", table(41))
	var found bool
	for _, j := range Judge(tr.Scan(root, d, nil, time.Now().Add(-time.Minute), nil), d, nil) {
		if j.Result.Gate == "DQ1" {
			tr.Judged(root, j.Abs, string(j.Result.Status), j.Profile)
			found = true
		}
	}
	if !found {
		t.Fatal("the first version was not judged")
	}
	os.WriteFile(p, []byte(table(2)), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(p, later, later)
	for _, j := range Judge(tr.Scan(root, d, nil, time.Now().Add(-time.Minute), nil), d, nil) {
		if j.Result.Gate != "DQ1" {
			continue
		}
		if !strings.Contains(j.Result.Reason(), "column `score` is zero in 50% of rows, against 2.5% in the previous version") {
			t.Fatalf("second version: %s", j.Result.Reason())
		}
		return
	}
	t.Fatal("the second version was not judged")
}

// TestScanOutputs: a JSON file the call wrote that no gate judges is an
// output (its lineage is recorded); an old one, or one seen unchanged
// again, is not.
func TestScanOutputs(t *testing.T) {
	root := newProject(t)
	d := domain(t)
	write(t, root, "results/old.json", `{"rho": 0.1}`)
	age(t, root)
	tr := NewTracker()
	since := time.Now().Add(-time.Second)
	write(t, root, ".vibe-science/RQ-001/04-results/rank.json", `{"spearman_rho": 0.58}`)
	s := tr.Scan(root, d, nil, since, nil)
	if got := rels(s.Outputs); !reflect.DeepEqual(got, []string{".vibe-science/RQ-001/04-results/rank.json data"}) {
		t.Errorf("first look: outputs %q", got)
	}
	write(t, root, "results/new.json", `{"rho": 0.2}`)
	s = tr.Scan(root, d, nil, since, nil)
	if got := rels(s.Outputs); !reflect.DeepEqual(got, []string{"results/new.json data"}) {
		t.Errorf("second look: outputs %q", got)
	}
	if s = tr.Scan(root, d, nil, since, nil); len(s.Outputs) != 0 {
		t.Errorf("nothing changed: outputs %q", rels(s.Outputs))
	}
}
