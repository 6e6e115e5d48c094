package gate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/skill"
)

// only returns the checks of r named name.
func only(r Result, name string) []checkSummary {
	out := []checkSummary{}
	for _, c := range summarize(r, false) {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// TestDQ4Overclaim replays the blueprint's M9: a surprising result stated
// as a finding with no alternative explanation considered.
func TestDQ4Overclaim(t *testing.T) {
	src := `{"auc": 0.81, "n": 57, "fold_change": 12.4, "odds_ratio": 0.08, "k": 5, "small": 3}`
	alt := "\n## Alternative explanations\n\n- GC content may drive both the rate and the label; matched analysis pending.\n"
	tests := []struct {
		name string
		md   string
		want []checkSummary
	}{
		{"plain result", "# Findings\n\nAUC 0.81 on n = 57 guides with 5-fold cross-validation.\n", []checkSummary{}},
		{"M9 causal wording without alternatives", "# Findings\n\n## F1: Mismatches\n\nMismatch count drives the off-target rate (AUC 0.81, n = 57).\n",
			[]checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 5: "drives") but has no section headed "Alternative explanations"`}}},
		{"novel and drift", "Novel drift of the rate, n = 57.\n",
			[]checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 1: "drift"; line 1: "Novel") but has no section headed "Alternative explanations"`}}},
		{"fold change", "Off-target rate rose 12.4-fold in the treated cells, n = 57.\n",
			[]checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 1: 12.4-fold (at least 5)) but has no section headed "Alternative explanations"`}}},
		{"odds ratio below 1", "An odds ratio of 0.08 for sites with bulges, n = 57.\n",
			[]checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 1: odds ratio of 0.08 (at least 5)) but has no section headed "Alternative explanations"`}}},
		{"small effects, folds and notation pass", "A 3-fold rise, 5 folds, 5-fold CV, 3x faster, 1.2×10^5 reads, n = 57.\n", []checkSummary{}},
		{"letters whose lower case is longer", "İİİ drives it, n = 57.\n",
			[]checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 1: "drives") but has no section headed "Alternative explanations"`}}},
		{"a name is not an effect", "Cells from the 10x Genomics platform, n = 57.\n", []checkSummary{}},
		{"with the section", "Mismatch count drives the rate, n = 57.\n" + alt,
			[]checkSummary{{"overclaim", StatusPass, `strong or surprising claims (line 1: "drives") come with the section "Alternative explanations" (line 3)`}}},
		{"empty section", "Mismatch count drives the rate, n = 57.\n\n## Alternative explanations\n\n## Next\nmore\n",
			[]checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 1: "drives") and its "Alternative explanations" section (line 3) is empty`}}},
		{"words in code and comments do not count", "The `drives` column, n = 57.\n<!-- novel -->\n```\ncauses\n```\n", []checkSummary{}},
		{"words inside the section do not count", "AUC 0.81, n = 57.\n" + alt, []checkSummary{}},
		{"many claims are capped", "It causes, drives, proves and is novel, n = 57.\n",
			[]checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 1: "causes"; line 1: "drives"; line 1: "proves"; and 1 more) but has no section headed "Alternative explanations"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DQ4("FINDINGS.md", []byte(tt.md), []byte(src), generic(t))
			if got := only(r, "overclaim"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
			if len(tt.want) > 0 && tt.want[0].Status == StatusFail && !strings.Contains(r.Reason(), "add a section `## Alternative explanations` listing what else could produce the result") {
				t.Errorf("reason lacks the fix: %s", r.Reason())
			}
		})
	}
	t.Run("domain settings", func(t *testing.T) {
		d := generic(t)
		d.DQ4.ClaimWords, d.DQ4.SurprisingEffect = nil, 0
		if r := DQ4("FINDINGS.md", []byte("It drives a 12.4-fold rise, n = 57.\n"), []byte(src), d); len(only(r, "overclaim")) != 0 {
			t.Errorf("rules turned off: %s", r.Reason())
		}
		d = generic(t)
		d.DQ4.AlternativesHeadings = []string{"Caveats"}
		if r := DQ4("FINDINGS.md", []byte("It drives it, n = 57.\n\n### 4. Caveats\n- batch\n"), []byte(src), d); r.Status != StatusPass {
			t.Errorf("configured heading: %s", r.Reason())
		}
	})
}

// TestDQ4Terms replays M10: a domain term misused in the findings. It
// warns and never blocks.
func TestDQ4Terms(t *testing.T) {
	d := crispr(t)
	src := `{"n": 57}`
	r := DQ4("FINDINGS.md", []byte("Guides with more binding sites, n = 57.\nBinding sites cluster; the trend was marginally significant.\n"), []byte(src), d)
	want := []checkSummary{
		{"terms", StatusWarn, `"binding sites" (line 1 and 1 more) misuses the domain term "cleavage site": GUIDE-seq and CHANGE-seq detect cleavage (double-strand breaks), not binding: write cleaved site or cleavage site`},
		{"terms", StatusWarn, `"marginally significant" (line 2) misuses the domain term "statistically significant": a result is below the significance threshold or it is not: report the p-value and the effect size instead`},
	}
	if got := only(r, "terms"); !reflect.DeepEqual(got, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", got, want)
	}
	if r.Status != StatusWarn {
		t.Errorf("status %s, want WARN", r.Status)
	}
	if r := DQ4("FINDINGS.md", []byte("Cleavage sites, n = 57.\n"), []byte(src), d); len(only(r, "terms")) != 0 {
		t.Errorf("the right term warned: %s", r.Reason())
	}
}

// TestDQ4Headlines replays M6: FINDINGS.json rewritten by a new run while
// FINDINGS.md still tells the old one.
func TestDQ4Headlines(t *testing.T) {
	tests := []struct {
		name string
		src  string
		md   string
		want []checkSummary
	}{
		{"no headline key", `{"auc": 0.81}`, "AUC 0.81, n = 5", []checkSummary{}},
		{"reported", `{"headline": {"auc_guide_split": 0.8107, "n_guides": 57}}`, "AUC 0.811 on n = 57 guides",
			[]checkSummary{{"headline", StatusPass, "all 2 headline values of the source are reported"}}},
		{"M6 stale markdown", `{"headline": {"auc_guide_split": 0.7342, "n_guides": 57}, "old": 0.8107}`, "AUC 0.811 on n = 57 guides",
			[]checkSummary{{"headline", StatusFail, "the source JSON marks `headline.auc_guide_split` = 0.7342 as a headline result, and FINDINGS.md does not report it"}}},
		{"key paths", `{"headline": ["coverage.mean", "n"], "coverage": {"mean": 0.894}, "n": 57}`, "Coverage 89.4%, n = 57",
			[]checkSummary{{"headline", StatusPass, "all 2 headline values of the source are reported"}}},
		{"nested per finding", `{"findings": {"F1": {"headline": {"auc": 0.81}}, "F2": {"headline": {"rho": 0.42}}}, "n": 5}`, "AUC 0.81, n = 5",
			[]checkSummary{{"headline", StatusFail, "the source JSON marks `findings.F2.headline.rho` = 0.42 as a headline result, and FINDINGS.md does not report it"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DQ4("FINDINGS.md", []byte(tt.md), []byte(tt.src), generic(t))
			if got := only(r, "headline"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestFindingIDs(t *testing.T) {
	tests := []struct {
		line string
		want []idHit
	}{
		{"## F1: Mismatch count", []idHit{{"F1", false}}},
		{"F6b and F12, see (F3) and [F4]; FINDINGS.md#F5", []idHit{{"F6b", false}, {"F12", false}, {"F3", false}, {"F4", false}, {"F5", false}}},
		{"## F7: Rate (formerly F6b)", []idHit{{"F7", false}, {"F6b", true}}},
		{"F1 score 0.8, F1-score, F1 = 0.8, F1 > 0.7, macro F1, macro-F1, weighted F1 of 0.7", nil},
		{"F1000 RF12 F12A F1_x F1.2 file_F2", nil},
		{"F1 hybrids and the F2 population; press the F1 key", nil},
	}
	for _, tt := range tests {
		if got := findingIDs(tt.line); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("findingIDs(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

// TestDQ4FindingIDs replays M12: a finding named one way in the progress
// log and another way in FINDINGS.
func TestDQ4FindingIDs(t *testing.T) {
	project := func(t *testing.T, progress, ledger, md, js string) (string, string) {
		root := filepath.Join(t.TempDir(), ".vibe-science")
		writeFile(t, filepath.Join(root, "PROGRESS.md"), progress)
		if ledger != "" {
			writeFile(t, filepath.Join(root, "CLAIM-LEDGER.md"), ledger)
		}
		findings := filepath.Join(root, "RQ-001-x", "04-results", "FINDINGS.md")
		writeFile(t, findings, md)
		writeFile(t, filepath.Join(root, "RQ-001-x", "04-results", "FINDINGS.json"), js)
		return root, findings
	}
	js := `{"n": 57, "findings": {"F1": {"auc": 0.81}, "F2": {"rho": 0.42}}}`
	md := "# Findings\n\n## F1: AUC\nAUC 0.81, n = 57.\n\n## F2: Correlation\nrho 0.42.\n"
	tests := []struct {
		name             string
		progress, ledger string
		md, js           string
		want             []checkSummary
	}{
		{"agree", "### 2026-01-05\n- F1 confirmed; F2 pending; macro F1 = 0.7.\n", "## C-001: x\n- evidence: RQ-001-x/04-results/FINDINGS.md#F2\n", md, js,
			[]checkSummary{{"finding_ids", StatusPass, "2 finding ids agree across FINDINGS.md, PROGRESS.md, CLAIM-LEDGER.md and the project's findings"}}},
		{"M12 renamed in the log", "### 2026-01-05\n- F6b: the correlation holds.\n", "## C-002: y\n- evidence: FINDINGS.md#F6b\n", md, js,
			[]checkSummary{{"finding_ids", StatusFail, "finding F6b is named in CLAIM-LEDGER.md line 2, PROGRESS.md line 2, but no findings file or findings JSON defines it"}}},
		{"alias repairs it", "- F6b: the correlation holds.\n", "", strings.Replace(md, "## F2: Correlation", "## F2: Correlation (formerly F6b)", 1), js,
			[]checkSummary{{"finding_ids", StatusPass, "3 finding ids agree across FINDINGS.md, PROGRESS.md and the project's findings"}}},
		{"markdown defines what the JSON lacks", "", "", md + "\n## F3: New\nsoon.\n", js,
			[]checkSummary{{"finding_ids", StatusFail, "finding F3 is defined in FINDINGS.md (FINDINGS.md line 9) but FINDINGS.json does not hold it"}}},
		{"JSON holds what the markdown never names", "", "", md, `{"n": 57, "findings": [{"id": "F1", "auc": 0.81}, {"id": "F2", "rho": 0.42}, {"id": "F4"}]}`,
			[]checkSummary{{"finding_ids", StatusFail, "finding F4 is in FINDINGS.json but FINDINGS.md never names it"}}},
		{"no ids anywhere is not judged", "- F1 improved to 0.8\n", "", "AUC 0.81, n = 57.\n", `{"auc": 0.81, "n": 57}`, []checkSummary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, findings := project(t, tt.progress, tt.ledger, tt.md, tt.js)
			r, err := DQ4File(findings, nil, generic(t))
			if err != nil {
				t.Fatal(err)
			}
			if got := only(r, "finding_ids"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	t.Run("another research question defines it", func(t *testing.T) {
		root, findings := project(t, "- F9 replicated\n", "", md, js)
		writeFile(t, filepath.Join(root, "RQ-002-y", "04-results", "FINDINGS.md"), "## F9: Other\nx, n = 3\n")
		writeFile(t, filepath.Join(root, "RQ-002-y", "04-results", "FINDINGS.json"), `{"n": 3}`)
		r, err := DQ4File(findings, nil, generic(t))
		if err != nil {
			t.Fatal(err)
		}
		if got := only(r, "finding_ids"); len(got) != 1 || got[0].Status != StatusPass {
			t.Errorf("checks %+v", got)
		}
	})
	t.Run("the proposed content is judged, not the file", func(t *testing.T) {
		_, findings := project(t, "- F6b: holds\n", "", md, js)
		proposed := strings.Replace(md, "## F2: Correlation", "## F2: Correlation (previously F6b)", 1)
		r, err := DQ4File(findings, []byte(proposed), generic(t))
		if err != nil {
			t.Fatal(err)
		}
		if got := only(r, "finding_ids"); len(got) != 1 || got[0].Status != StatusPass {
			t.Errorf("checks %+v", got)
		}
	})
}

// TestFindingsFormatOverclaimExample holds the overclaim example of
// skill/vibe/formats/findings.md to the gate: it passes with its section
// and fails without it.
func TestFindingsFormatOverclaimExample(t *testing.T) {
	raw, err := fs.ReadFile(skill.FS, "vibe/formats/findings.md")
	if err != nil {
		t.Skip("skill/vibe/formats/findings.md not present")
	}
	doc := string(raw)
	i := strings.Index(doc, "## Surprising results need alternative explanations")
	if i < 0 {
		t.Fatal("findings.md has no overclaim section")
	}
	m := regexp.MustCompile("(?s)```markdown\n(.*?)\n```").FindStringSubmatch(doc[i:])
	if m == nil {
		t.Fatal("no markdown example in the overclaim section")
	}
	src := `{"n_sites": 5824, "fold": 12.4}`
	r := DQ4("FINDINGS.md", []byte(m[1]), []byte(src), generic(t))
	if got := only(r, "overclaim"); len(got) != 1 || got[0].Status != StatusPass {
		t.Errorf("the documented example: %+v", got)
	}
	cut := m[1][:strings.Index(m[1], "## Alternative explanations")]
	r = DQ4("FINDINGS.md", []byte(cut), []byte(src), generic(t))
	want := []checkSummary{{"overclaim", StatusFail, `FINDINGS.md makes a strong or surprising claim (line 1: "drive"; line 3: 12.4-fold (at least 5)) but has no section headed "Alternative explanations"`}}
	if got := only(r, "overclaim"); !reflect.DeepEqual(got, want) {
		t.Errorf("without the section:\n got %+v\nwant %+v", got, want)
	}
}

func TestFindingsFor(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "findings.md"), "x")
	if got, ok := FindingsFor(filepath.Join(dir, "FINDINGS.json")); !ok || got != filepath.Join(dir, "findings.md") {
		t.Errorf("FindingsFor = %q, %v", got, ok)
	}
	if _, ok := FindingsFor(filepath.Join(dir, "metrics.json")); ok {
		t.Error("a JSON without a Markdown twin has a findings file")
	}
}

// BenchmarkDQ4FileProject is DQ4 at PreToolUse in a project that uses
// finding ids: the findings file, its JSON, a second research question's
// findings, a 2,000-entry progress log and a 200-claim ledger.
func BenchmarkDQ4FileProject(b *testing.B) {
	root := filepath.Join(b.TempDir(), ".vibe-science")
	var progress, ledger, md strings.Builder
	progress.WriteString("# Progress log\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&progress, "\n### 2026-01-%02d: cycle %d\n- F%d checked; macro F1 = 0.7; see C-%03d.\n", i%28+1, i, i%40+1, i%200)
	}
	ledger.WriteString("# Claim ledger\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&ledger, "\n## C-%03d: claim\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.5\n- evidence: RQ-001-x/04-results/FINDINGS.md#F%d\n", i, i%40+1)
	}
	js := map[string]any{"n": 5824}
	fs := map[string]any{}
	md.WriteString("# Findings\n")
	for i := 1; i <= 40; i++ {
		fs[fmt.Sprintf("F%d", i)] = map[string]any{"auc": 0.7 + float64(i)/1000}
		fmt.Fprintf(&md, "\n## F%d: a result\n\nAUC %.3f on n = 5,824 sites; it drives nothing.\n", i, 0.7+float64(i)/1000)
	}
	md.WriteString("\n## Alternative explanations\n\n- chance\n")
	js["findings"] = fs
	raw, _ := json.Marshal(js)
	findings := filepath.Join(root, "RQ-001-x", "04-results", "FINDINGS.md")
	writeFile(b, filepath.Join(root, "PROGRESS.md"), progress.String())
	writeFile(b, filepath.Join(root, "CLAIM-LEDGER.md"), ledger.String())
	writeFile(b, filepath.Join(root, "RQ-001-x", "04-results", "FINDINGS.json"), string(raw))
	writeFile(b, findings, md.String())
	writeFile(b, filepath.Join(root, "RQ-002-y", "04-results", "FINDINGS.md"), "## F41: other\nx, n = 3\n")
	d := generic(b)
	content := []byte(md.String())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := DQ4File(findings, content, d)
		if err != nil || r.Status != StatusPass {
			b.Fatalf("%v %s", err, r.Reason())
		}
	}
}

// TestResearchRootLooksInVibeScience: findings at the project's own
// results/ answer to the progress log vibe keeps in .vibe-science/.
func TestResearchRootLooksInVibeScience(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".vibe-science", "PROGRESS.md"), "# Progress\n")
	findings := filepath.Join(root, "results", "RESULTS.md")
	writeFile(t, findings, "# Results\n")
	if got, want := researchRoot(findings), filepath.Join(root, ".vibe-science"); got != want {
		t.Errorf("researchRoot = %q, want %q", got, want)
	}
}
