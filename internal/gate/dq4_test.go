package gate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
	"github.com/vibe-science/vibe/skill"
)

func generic(t testing.TB) Domain {
	t.Helper()
	d, err := ShippedDomain(GenericDomain)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestForensicC2 is checklist item C2: the findings/JSON sync check works.
// Every number written in a findings file must be a number of its source
// JSON; one mismatch fails with that number, its line and its context.
func TestForensicC2(t *testing.T) {
	src := `{"auc": 0.91347, "auc_guide": 0.8107, "n_sites": 5824, "n_guides": 57,
	  "coverage": {"nominal": 0.9, "per_fold": [0.912, 0.884, 0.873], "mean": 0.894},
	  "alpha": 0.001, "delta": -0.4213, "small": 0.0000123, "label": "0.61", "pct_text": "12.5%", "trunc": 0.456}`
	tests := []struct {
		name     string
		findings string
		rounding string
		status   Status
		numbers  []string
		contains []string
	}{
		{name: "all match", findings: "AUC 0.913 (n = 5,824 sites, 57 guides); coverage 89.4% at 90% nominal, p < 0.001.", status: StatusPass},
		{name: "rounded coarser", findings: "AUC 0.91, n = 57", status: StatusPass},
		{name: "typo in a number", findings: "AUC 0.931 on n = 57 guides", status: StatusFail, numbers: []string{"0.931"},
			contains: []string{"line 1: 0.931", "AUC 0.931 on n = 57 guides", "nearest: 0.91347"}},
		{name: "rounding that does not match", findings: "AUC 0.914, n = 57", status: StatusFail, numbers: []string{"0.914"}},
		{name: "too many decimals", findings: "AUC 0.9136, n = 57", status: StatusFail, numbers: []string{"0.9136"}},
		{name: "percentage that does not match", findings: "coverage 88.5% on average, n = 57", status: StatusFail, numbers: []string{"88.5%"}, contains: []string{"nearest: 0.884 = 88.4%"}},
		{name: "fraction written as percent without sign", findings: "coverage 89.4 on average, n = 57", status: StatusFail, numbers: []string{"89.4"}},
		{name: "integer rounds like any value", findings: "n = 57 and 5824", status: StatusPass},
		{name: "wrong integer", findings: "n = 58 guides", status: StatusFail, numbers: []string{"58"}},
		{name: "sign must agree", findings: "a shift of 0.42, n = 57", status: StatusFail, numbers: []string{"0.42"}, contains: []string{"the source has -0.4213: the sign differs"}},
		{name: "negative matches", findings: "a shift of −0.42, n = 57", status: StatusPass},
		{name: "scientific notation", findings: "tiny 1.2e-5 and 1.23×10⁻⁵, n = 57", status: StatusPass},
		{name: "scientific notation mismatch", findings: "tiny 1.3e-5, n = 57", status: StatusFail, numbers: []string{"1.3e-5"}},
		{name: "numeric strings count", findings: "score 0.61 and 12.5, n = 57", status: StatusPass},
		{name: "derived is exempt", findings: "a drop of 0.10 (derived), n = 57", status: StatusPass, contains: []string{"1 more marked derived"}},
		{name: "derived as a change", findings: "AUC 0.913, 12.7% (derived) above the guide-level AUC; error 8.7% (derived), n = 57", status: StatusPass},
		{name: "derived from nothing warns", findings: "Spearman rho 0.58 (derived), n = 57", status: StatusWarn,
			contains: []string{"DQ4 WARN: 0.58 (line 1) marked derived, but no sum, difference, product, ratio, percentage or complement of the numbers of the source JSON and the checked findings gives it — say how each is derived"}},
		{name: "identifiers are not values", findings: "C-001 and RQ-002 on 2026-01-05 (Smith et al., 2019), n = 57", status: StatusPass},
		{name: "several mismatches all listed", findings: "AUC 0.95\nn = 60\nrate 3.3%", status: StatusFail, numbers: []string{"0.95", "60", "3.3%"},
			contains: []string{"DQ4 FAIL: line 1: 3 reported numbers match no number in the source JSON: 0.95 (line 1; nearest: 0.91347), 60 (line 2; nearest: 57), 3.3% (line 3; nearest: 0.91347) — correct them"}},
		{name: "no sample size warns", findings: "AUC 0.913", status: StatusWarn, contains: []string{"no sample size"}},
		{name: "truncation rejected by default", findings: "share 0.45, n = 57", status: StatusFail, numbers: []string{"0.45"}},
		{name: "truncation allowed when configured", findings: "share 0.45 and 0.9134, n = 57", rounding: RoundingRoundOrTruncate, status: StatusPass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := generic(t)
			if tt.rounding != "" {
				d.DQ4.Rounding = tt.rounding
			}
			r := DQ4("FINDINGS.md", []byte(tt.findings), []byte(src), d)
			if r.Status != tt.status {
				t.Fatalf("status %s, want %s: %s", r.Status, tt.status, r.Reason())
			}
			if !reflect.DeepEqual(r.Numbers, tt.numbers) {
				t.Errorf("numbers %q, want %q", r.Numbers, tt.numbers)
			}
			v := r.Verdict()
			for _, c := range tt.contains {
				if !strings.Contains(v.Reason, c) {
					t.Errorf("reason %q lacks %q", v.Reason, c)
				}
			}
			if tt.status == StatusFail {
				if v.Result != verdict.Block || v.Severity != verdict.High {
					t.Errorf("verdict %s/%s, want BLOCK/HIGH", v.Result, v.Severity)
				}
				for _, n := range tt.numbers {
					if !strings.Contains(v.Reason, n) {
						t.Errorf("reason %q does not name %s", v.Reason, n)
					}
				}
				if !reflect.DeepEqual(v.Evidence.Numbers, tt.numbers) {
					t.Errorf("evidence numbers %q, want %q", v.Evidence.Numbers, tt.numbers)
				}
			}
		})
	}
}

func TestDQ4NoSource(t *testing.T) {
	r := DQ4("RQ-001/FINDINGS.md", []byte("AUC 0.9"), nil, generic(t))
	if r.Status != StatusFail || !strings.Contains(r.Reason(), "no source JSON for RQ-001/FINDINGS.md") {
		t.Fatalf("got %s: %s", r.Status, r.Reason())
	}

	dir := t.TempDir()
	findings := filepath.Join(dir, "FINDINGS.md")
	writeFile(t, findings, "AUC 0.9, n = 3")
	r, err := DQ4File(findings, nil, generic(t))
	if err != nil {
		t.Fatal(err)
	}
	want := "DQ4 FAIL: no source JSON for " + findings + " (looked for " + filepath.Join(dir, "FINDINGS.json") + ")"
	if !strings.HasPrefix(r.Reason(), want) {
		t.Errorf("reason %q, want prefix %q", r.Reason(), want)
	}

	// a declared source that does not exist is named
	r, err = DQ4File(findings, []byte("<!-- source: out/x.json -->\nAUC 0.9"), generic(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Reason(), "the declared source "+filepath.Join(dir, "out", "x.json")+" does not exist") {
		t.Errorf("reason %q", r.Reason())
	}
}

func TestSourcesFor(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "findings.json"), `{"a": 1}`)
	writeFile(t, filepath.Join(dir, "out", "b.json"), `{"b": 2}`)
	writeFile(t, filepath.Join(dir, "c.json"), `{"c": 3}`)
	tests := []struct {
		name    string
		path    string
		content string
		want    []string
		err     string
	}{
		{"same name ignoring case", filepath.Join(dir, "FINDINGS.md"), "", []string{filepath.Join(dir, "findings.json")}, ""},
		{"declared replace the default", filepath.Join(dir, "FINDINGS.md"), "<!-- source: out/b.json -->\n<!-- source: c.json -->",
			[]string{filepath.Join(dir, "out", "b.json"), filepath.Join(dir, "c.json")}, ""},
		{"no default", filepath.Join(dir, "stage4-findings.md"), "", nil, "no source JSON for " + filepath.Join(dir, "stage4-findings.md") + " (looked for " + filepath.Join(dir, "stage4-findings.json") + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SourcesFor(tt.path, []byte(tt.content))
			if tt.err != "" {
				var nf *SourceNotFoundError
				if !errors.As(err, &nf) || err.Error() != tt.err {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	p, err := FindSourceJSON(filepath.Join(dir, "FINDINGS.md"))
	if err != nil || p != filepath.Join(dir, "findings.json") {
		t.Errorf("FindSourceJSON = %q, %v", p, err)
	}
}

func TestDQ4FileMultipleSources(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), `{"auc": 0.812}`)
	writeFile(t, filepath.Join(dir, "b.json"), `{"n": 40}`)
	md := "<!-- source: a.json -->\n<!-- source: b.json -->\nAUC 0.81 with n = 40 and 0.5"
	r, err := DQ4File(filepath.Join(dir, "FINDINGS.md"), []byte(md), generic(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusFail || !reflect.DeepEqual(r.Numbers, []string{"0.5"}) {
		t.Fatalf("got %s %q: %s", r.Status, r.Numbers, r.Reason())
	}
	want := []string{filepath.Join(dir, "FINDINGS.md"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}
	if !reflect.DeepEqual(r.Inputs, want) {
		t.Errorf("inputs %q, want %q", r.Inputs, want)
	}
	if !strings.Contains(r.Reason(), "matches no number in a.json, b.json") {
		t.Errorf("reason %q", r.Reason())
	}
}

func TestDQ4BadSourceJSON(t *testing.T) {
	r := DQ4("FINDINGS.md", []byte("AUC 0.9"), []byte(`{"auc": 0.9`), generic(t))
	if r.Status != StatusFail || !strings.Contains(r.Reason(), "the source JSON does not parse") {
		t.Fatalf("got %s: %s", r.Status, r.Reason())
	}
}

// TestFindingsFormatExample checks the worked example of
// skill/vibe/formats/findings.md, so the document and the gate agree.
func TestFindingsFormatExample(t *testing.T) {
	raw, err := fs.ReadFile(skill.FS, "vibe/formats/findings.md")
	if err != nil {
		t.Skip("skill/vibe/formats/findings.md not present")
	}
	ex := string(raw)
	if i := strings.Index(ex, "## Example"); i >= 0 {
		ex = ex[i:]
	}
	blocks := regexp.MustCompile("(?s)```(json|markdown)\n(.*?)\n```").FindAllStringSubmatch(ex, -1)
	var js, md string
	for _, b := range blocks {
		if b[1] == "json" && js == "" {
			js = b[2]
		}
		if b[1] == "markdown" && md == "" {
			md = b[2]
		}
	}
	if js == "" || md == "" {
		t.Fatalf("example blocks not found in findings.md")
	}
	r := DQ4("FINDINGS.md", []byte(md), []byte(js), generic(t))
	if r.Status == StatusFail {
		t.Fatalf("the documented example fails DQ4: %s", r.Reason())
	}
	x := extractNumbers([]byte(md))
	if got, want := texts(x), []string{"0.931", "0.811", "5,824", "57", "90%", "89.4%", "87.3%", "91.2%", "0.001"}; !reflect.DeepEqual(got, want) {
		t.Errorf("reported numbers %q, want the document's list %q", got, want)
	}
	if x.derived != 1 {
		t.Errorf("derived %d, want 1", x.derived)
	}
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDQ4ListsManyNumbersOnOneLine: fourteen numbers that the source does
// not hold are one check of one line, the first twelve listed.
func TestDQ4ListsManyNumbersOnOneLine(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 14; i++ {
		fmt.Fprintf(&b, "value %d.5\n", 100+i)
	}
	r := DQ4("FINDINGS.md", []byte(b.String()), []byte(`{"x": 1}`), generic(t))
	var failed []Check
	for _, c := range r.Checks {
		if c.Status == StatusFail {
			failed = append(failed, c)
		}
	}
	if len(failed) != 1 || len(r.Numbers) != 14 {
		t.Fatalf("%d failed checks, %d numbers: %+v", len(failed), len(r.Numbers), failed)
	}
	d := failed[0].Detail
	if !strings.HasPrefix(d, "line 1: 14 reported numbers match no number in the source JSON: 101.5 (line 1; nearest: 1), ") ||
		!strings.HasSuffix(d, "112.5 (line 12; nearest: 1), and 2 more") || strings.Contains(d, "\n") {
		t.Errorf("detail %q", d)
	}
}
