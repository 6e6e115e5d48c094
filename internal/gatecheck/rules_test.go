package gatecheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/skill"
)

// TestArtifactsMatchTheDocumentation holds Artifacts to the table of typical
// artifacts in skill/vibe/protocols/schema-validation.md: the same gates in
// the same order, each name the documented one with its placeholder (<id>,
// C-001) read as a wildcard.
func TestArtifactsMatchTheDocumentation(t *testing.T) {
	raw, err := fs.ReadFile(skill.FS, "vibe/protocols/schema-validation.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| ([A-Z][A-Z0-9-]*) \\| [a-z0-9-]+ \\| `([^`]+)` \\|$")
	placeholder := regexp.MustCompile(`<[^>]+>|C-001`)
	var doc []Artifact
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		p := placeholder.ReplaceAllStringFunc(m[2], func(s string) string {
			if s == "C-001" {
				return "C-*"
			}
			return "*"
		})
		p = strings.ReplaceAll(p, "*-*", "*")
		doc = append(doc, Artifact{m[1], p})
	}
	if len(doc) != 9 {
		t.Fatalf("found %d rows in the documented table, want 9: %v", len(doc), doc)
	}
	byGate := map[string]string{}
	for _, a := range doc {
		byGate[a.Gate] = a.Pattern
	}
	if len(byGate) != len(Artifacts) {
		t.Fatalf("documented gates %v, code has %v", byGate, Artifacts)
	}
	for _, a := range Artifacts {
		if byGate[a.Gate] != a.Pattern {
			t.Errorf("%s: code looks for %q, the protocol documents %q", a.Gate, a.Pattern, byGate[a.Gate])
		}
		g, ok := gate.Lookup(a.Gate)
		if !ok || g.Kind != gate.KindSchema {
			t.Errorf("%s is not a schema gate of the registry", a.Gate)
		}
	}
	for _, g := range gate.Registry() {
		if g.Kind != gate.KindSchema {
			continue
		}
		if _, ok := byGate[g.ID]; !ok {
			t.Errorf("schema gate %s has no documented artifact name", g.ID)
		}
	}
}

// TestRulesCoverEveryCIGate: every gate the registry says CI enforces is a
// rule of gate check, and every rule has a name and a purpose.
func TestRulesCoverEveryCIGate(t *testing.T) {
	rules := map[string]Rule{}
	for _, r := range Rules() {
		if r.Name == "" || r.Purpose == "" || r.Purpose == r.ID {
			t.Errorf("rule %+v lacks a name or purpose", r)
		}
		if _, dup := rules[r.ID]; dup {
			t.Errorf("rule %s listed twice", r.ID)
		}
		rules[r.ID] = r
	}
	for _, g := range gate.Registry() {
		if strings.Contains(g.Enforced, "CI") {
			if _, ok := rules[g.ID]; !ok {
				t.Errorf("gate %s is enforced in CI but gate check has no rule for it", g.ID)
			}
		}
	}
}

func TestHasQuery(t *testing.T) {
	tests := []struct {
		name, content string
		want          bool
	}{
		{"logged query", "2026-01-05 | PubMed | \"a\" AND \"b\" | 0 hits | none\n", true},
		{"three fields", "2026-01-05 | arXiv | conformal\n", true},
		{"after comments", "# header\n\n2026-01-05 | arXiv | conformal | 3 hits\n", true},
		{"comment only", "# date | database | query | hits\n", false},
		{"placeholder", "TODO\n", false},
		{"two fields", "2026-01-05 | PubMed\n", false},
		{"empty fields", "| | | |\n", false},
		{"empty", "", false},
	}
	dir := t.TempDir()
	for i, tc := range tests {
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".log")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := hasQuery(p); got != tc.want {
			t.Errorf("%d %s: hasQuery = %v, want %v", i, tc.name, got, tc.want)
		}
	}
	if hasQuery(filepath.Join(dir, "missing.log")) {
		t.Error("a missing log holds a query")
	}
}

func TestLineOf(t *testing.T) {
	tests := []struct {
		in      string
		line    int
		msg     string
		matched bool
	}{
		{"line 12: rest", 12, "rest", true},
		{"line 1: a: b", 1, "a: b", true},
		{"line x: rest", 0, "line x: rest", false},
		{"line 0: rest", 0, "line 0: rest", false},
		{"lines 3: rest", 0, "lines 3: rest", false},
		{"no line", 0, "no line", false},
		{"line 4 without colon", 0, "line 4 without colon", false},
	}
	for _, tc := range tests {
		n, msg, ok := lineOf(tc.in)
		if n != tc.line || msg != tc.msg || ok != tc.matched {
			t.Errorf("lineOf(%q) = %d, %q, %v; want %d, %q, %v", tc.in, n, msg, ok, tc.line, tc.msg, tc.matched)
		}
	}
}

func TestLocate(t *testing.T) {
	r := &repo{root: "/r"}
	inputs := []string{"/r/a/DESIGN.md", "/r/a/dev.md"}
	tests := []struct {
		file, msg         string
		wantFile, wantMsg string
		wantLine          int
	}{
		{"a/t.csv", "DESIGN.md line 4: step 2 has no outputs", "a/DESIGN.md", "step 2 has no outputs", 4},
		{"a/t.csv", "dev.md: DEV-001 has no why", "a/dev.md", "DEV-001 has no why", 0},
		{"a/F.md", "line 7: 0.9 matches nothing", "a/F.md", "0.9 matches nothing", 7},
		{"a/t.csv", "column `x` is not documented", "a/t.csv", "column `x` is not documented", 0},
		{"a/t.csv", "DESIGN.md does not parse", "a/t.csv", "DESIGN.md does not parse", 0},
	}
	for _, tc := range tests {
		f := Finding{File: tc.file, Message: tc.msg}
		r.locate(&f, inputs)
		if f.File != tc.wantFile || f.Line != tc.wantLine || f.Message != tc.wantMsg {
			t.Errorf("locate(%q) = %s:%d %q; want %s:%d %q", tc.msg, f.File, f.Line, f.Message, tc.wantFile, tc.wantLine, tc.wantMsg)
		}
	}
}

func TestFindClaim(t *testing.T) {
	root := fixture(t)
	c, ledger, ok := FindClaim(root, "c002")
	if !ok || c.ID != "C-002" || c.Status != claim.StatusProvisional || filepath.Base(ledger) != LedgerName {
		t.Fatalf("FindClaim = %+v, %s, %v", c, ledger, ok)
	}
	if _, _, ok := FindClaim(root, "C-099"); ok {
		t.Error("found C-099, which is not in the ledger")
	}
	if got := FindLedgers(t.TempDir()); got != nil {
		t.Errorf("ledgers of an empty folder = %v", got)
	}
}

func TestClaimInputs(t *testing.T) {
	root := fixture(t, "promotion-without-artifacts")
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	rq := filepath.Join(real, ".vibe-science", "RQ-001-offtarget")
	d := mustDomain(t, "generic")
	withEvidence := func(ev ...string) claim.Claim { return claim.Claim{ID: "C-001", Evidence: ev} }
	c1, _, _ := FindClaim(root, "C-001")
	tests := []struct {
		name string
		c    claim.Claim
		gate string
		in   gate.Inputs
		want gate.Inputs
	}{
		{"DQ4 from the JSON beside the findings", c1, "DQ4", gate.Inputs{},
			gate.Inputs{Findings: filepath.Join(rq, "04-results", "FINDINGS.md")}},
		{"DQ1 from a features table", c1, "DQ1", gate.Inputs{},
			gate.Inputs{Features: filepath.Join(rq, "02-data", "processed", "features.csv")}},
		{"DD0 finds the dictionary", c1, "DD0", gate.Inputs{},
			gate.Inputs{Features: filepath.Join(rq, "02-data", "processed", "features.csv"), Dictionary: filepath.Join(rq, "02-data", "DATA-DICTIONARY.md")}},
		{"DC0 from the research question", c1, "DC0", gate.Inputs{},
			gate.Inputs{Design: filepath.Join(rq, "DESIGN.md")}},
		{"a flag is kept", c1, "DQ1", gate.Inputs{Features: "mine.csv"}, gate.Inputs{Features: "mine.csv"}},
		{"DQ2 from the metrics file", withEvidence("RQ-001-offtarget/04-results/metrics.json"), "dq2", gate.Inputs{},
			gate.Inputs{Metrics: filepath.Join(rq, "04-results", "metrics.json")}},
		{"DQ3 needs calibration evidence", withEvidence("RQ-001-offtarget/04-results/metrics.json"), "DQ3", gate.Inputs{}, gate.Inputs{}},
		{"B0 artifact from the research question", withEvidence("RQ-001-offtarget/04-results/metrics.json"), "B0", gate.Inputs{},
			gate.Inputs{Artifact: filepath.Join(rq, "00-brainstorm", "B0.json")}},
		{"D1 needs the claim's own record", claim.Claim{ID: "C-002", Evidence: []string{"RQ-001-offtarget/04-results/metrics.json"}}, "D1", gate.Inputs{}, gate.Inputs{}},
		{"D1 finds the claim's record in its research question", withEvidence("RQ-001-offtarget/04-results/metrics.json"), "D1", gate.Inputs{},
			gate.Inputs{Artifact: filepath.Join(rq, "04-results", "C-001-promotion.json")}},
		{"evidence relative to the root", withEvidence(".vibe-science/RQ-001-offtarget/04-results/calibration.json"), "DQ3", gate.Inputs{},
			gate.Inputs{Calibration: filepath.Join(rq, "04-results", "calibration.json")}},
		{"no evidence, no inputs", claim.Claim{ID: "C-009"}, "DQ4", gate.Inputs{}, gate.Inputs{}},
		{"other research question", withEvidence("RQ-002-bandgap/04-results/FINDINGS.json#r2"), "DC0", gate.Inputs{}, gate.Inputs{}},
		{"prompt gate", c1, "G3", gate.Inputs{}, gate.Inputs{}},
	}
	for _, tc := range tests {
		got := ClaimInputs(root, tc.c, tc.gate, tc.in, d)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

// TestPromotionRecord: a claim's D1 record is the file `vibe gate run D1
// --claim` reads when there is one, else where to write it: the first
// research question its evidence names, else the project's first.
func TestPromotionRecord(t *testing.T) {
	root := fixture(t)
	for _, tc := range []struct {
		c      claim.Claim
		rel    string
		exists bool
	}{
		{claim.Claim{ID: "C-001", Evidence: []string{"RQ-001-offtarget/04-results/FINDINGS.json#auc"}},
			".vibe-science/RQ-001-offtarget/04-results/C-001-promotion.json", true},
		{claim.Claim{ID: "C-002", Evidence: []string{"RQ-001-offtarget/04-results/metrics.json"}},
			".vibe-science/RQ-001-offtarget/04-results/C-002-promotion.json", false},
		{claim.Claim{ID: "C-007"}, ".vibe-science/RQ-001-offtarget/04-results/C-007-promotion.json", false},
	} {
		rel, exists := PromotionRecord(root, tc.c)
		if rel != tc.rel || exists != tc.exists {
			t.Errorf("%s: %s %v, want %s %v", tc.c.ID, rel, exists, tc.rel, tc.exists)
		}
	}
	if rel, _ := PromotionRecord(t.TempDir(), claim.Claim{ID: "C-001"}); rel != ".vibe-science/04-results/C-001-promotion.json" {
		t.Errorf("a project without research questions: %s", rel)
	}
}
