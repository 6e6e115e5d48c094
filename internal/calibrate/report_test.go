package calibrate

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/verdict"
	"github.com/vibe-science/vibe/skill"
)

var update = flag.Bool("update", false, "rewrite golden files")

// exampleBlock returns the fenced block after "<!-- example: name -->" in a
// skill format document.
func exampleBlock(t *testing.T, doc, name string) string {
	t.Helper()
	raw, err := fs.ReadFile(skill.FS, "vibe/formats/"+doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "<!-- example: "+name+" -->")
	if i < 0 {
		t.Fatalf("%s: no example %q", doc, name)
	}
	return fencedAfter(t, s[i:], "")
}

// fencedAfter returns the body of the first fenced block in s whose info
// string starts with info ("" for any).
func fencedAfter(t *testing.T, s, info string) string {
	t.Helper()
	i := strings.Index(s, "```"+info)
	if i < 0 {
		t.Fatalf("no fenced block %q", info)
	}
	body := s[i:]
	body = body[strings.IndexByte(body, '\n')+1:]
	return body[:strings.Index(body, "\n```")+1]
}

// nthJSONBlock returns the n-th (0-based) ```json block of a format doc.
func nthJSONBlock(t *testing.T, doc string, n int) string {
	t.Helper()
	raw, err := fs.ReadFile(skill.FS, "vibe/formats/"+doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	for k := 0; ; k++ {
		i := strings.Index(s, "```json\n")
		if i < 0 {
			t.Fatalf("%s: only %d json blocks", doc, k)
		}
		if k == n {
			return fencedAfter(t, s[i:], "json")
		}
		s = s[i+8:]
	}
}

// schemaExample returns examples[0] of a skill schema.
func schemaExample(t *testing.T, schema string) string {
	t.Helper()
	raw, err := fs.ReadFile(skill.FS, "vibe/schemas/"+schema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || len(s.Examples) == 0 {
		t.Fatalf("%s: no example (%v)", schema, err)
	}
	return string(s.Examples[0])
}

func compareGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := verdict.Canonical(v)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		var pretty bytes.Buffer
		json.Indent(&pretty, got, "", "  ")
		pretty.WriteByte('\n')
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	var tree any
	json.Unmarshal(raw, &tree)
	want, _ := verdict.Canonical(tree)
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", path, got, want)
	}
}

// TestParseReportGolden parses the documented examples of every review
// format (so the documents and the parser cannot drift apart) and a set of
// hand-written variants, comparing the result with testdata/reports/<name>.golden.json.
func TestParseReportGolden(t *testing.T) {
	tests := []struct {
		name, path string
		content    func(t *testing.T) string
	}{
		{"doc_markdown", "RQ-001-x/05-reviewer2/R2-2026-01-02-1.md",
			func(t *testing.T) string { return exampleBlock(t, "review-report.md", "markdown") }},
		{"doc_yaml", "RQ-001-x/05-reviewer2/R2-2026-01-03-1.yaml",
			func(t *testing.T) string { return exampleBlock(t, "review-report.md", "yaml") }},
		{"doc_json", "RQ-001-x/05-reviewer2/R2-2026-01-04-1.json",
			func(t *testing.T) string { return exampleBlock(t, "review-report.md", "json") }},
		{"doc_judge_solo_pass", "RQ-001-x/05-reviewer2/judge-reports/J-20260114-001.json",
			func(t *testing.T) string { return nthJSONBlock(t, "judge-report.md", 0) }},
		{"doc_judge_team_fail", "RQ-001-x/05-reviewer2/judge-reports/J-20260118-002.json",
			func(t *testing.T) string { return nthJSONBlock(t, "judge-report.md", 1) }},
		{"schema_r2_report", "RQ-001-x/05-reviewer2/R2-20260114-003.json",
			func(t *testing.T) string { return schemaExample(t, "r2-report.schema.json") }},
		{"schema_vigilance", "RQ-001-x/05-reviewer2/V0-R2-20260114-003.json",
			func(t *testing.T) string { return schemaExample(t, "vigilance-check.schema.json") }},
		{"md_with_tally", "05-reviewer2/R2-2026-02-01-1.md", func(*testing.T) string {
			return "# R2 review (FORCED)\n- review-id: R2-20260201-001\n- **sfi-injected:** 3\n- sfi-caught: 1\n" +
				"- sfi-missed: SFI-01a; META-02b\n\n## C-010: x\n- verdict: REJECT\n- weaknesses: no interval\n" +
				"```text\nmode: SHADOW\nC-999\n```\n"
		}},
		{"yaml_sfi_block", "05-reviewer2/R2-2026-02-02-1.yml", func(*testing.T) string {
			return "review_id: R2-20260202-001\nmode: forced\nreviewed_at: 2026-02-02T10:00:00Z\nclaims:\n  - claim_id: C-011\n" +
				"sfi:\n  injected: 2\n  caught: 1\n  missed:\n    - SFI-08b\n"
		}},
		{"yaml_caught_list_only", "05-reviewer2/R2-2026-02-03-1.yaml", func(*testing.T) string {
			return "review_id: R2-20260203-001\nmode: FORCED\nclaims: [C-012]\nseeded_faults_caught: [SFI-03a, SFI-04b]\nseeded_faults_missed: [SFI-07a]\n"
		}},
		// Read as YAML, not line by line (issue 16, finding 4): a comment
		// after a value, a flow mapping, and a block scalar whose text
		// looks like keys.
		{"yaml_real_syntax", "05-reviewer2/R2-2026-02-04-1.yaml", func(*testing.T) string {
			return "# R2 report\nreview_id: 'R2-20260204-001'\nmode: \"forced\" # the R2 mode\nreviewed_at: 2026-02-04T09:30:00Z\n" +
				"claims: [C-016]\nnotes: |\n  mode: SHADOW was considered\n  sfi_injected: 9\n" +
				"sfi: {injected: 3, caught: 2, missed: [SFI-05a]}\n"
		}},
		{"yaml_broken_falls_back", "05-reviewer2/R2-2026-02-05-1.yaml", func(*testing.T) string {
			return "review_id: R2-20260205-001\nmode: FORCED\nsfi:\n  injected: 2\n   caught: 1\n\tmissed: [x]\n"
		}},
		{"judge_inconsistent", "RQ-002-y/05-reviewer2/judge-reports/J-20260205-001.json", func(*testing.T) string {
			return `{"judge_report_id":"J-20260205-001","review_id":"R2-20260205-001","mode":"SOLO","claims":["c-013","C014"],
"dimensions":{"specificity":{"score":2,"evidence":"e"},"counter_evidence_search":{"score":0,"evidence":"e"},
"confounder_analysis":{"score":1,"evidence":"e"},"falsification_demand":{"score":2,"evidence":"e"},
"independence":{"score":2,"evidence":"e"},"escalation":{"score":1,"evidence":"e"}},
"total":9,"solo_scores":[9,11],"verdict":"FAIL","feedback_to_r2":"f","judged_at":"2026-02-05T12:00:00Z"}`
		}},
		{"judge_incomplete", "05-reviewer2/judge-reports/J-20260206-001.json", func(*testing.T) string {
			return `{"judge_report_id":"J-20260206-001","review_id":"R2-20260206-001","dimensions":{"specificity":{"score":5}},"total":7}`
		}},
		{"forced_without_tally", "05-reviewer2/R2-20260207-001.json", func(*testing.T) string {
			return `{"review_id":"","mode":"FORCED","claims":[{"claim_id":"C-015"}],"verdict":"ACCEPT"}`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseReport(tt.path, []byte(tt.content(t)))
			if err != nil {
				t.Fatal(err)
			}
			compareGolden(t, filepath.Join("testdata", "reports", tt.name+".golden.json"), r)
		})
	}
}

func TestParseReportErrors(t *testing.T) {
	tests := []struct{ path, content, want string }{
		{"05-reviewer2/x.json", "not json", "parse review 05-reviewer2/x.json: not one JSON object: invalid character 'o' in literal null (expecting 'u')"},
		{"05-reviewer2/judge-reports/J-1.json", `{"judge_report_id":"J-1"}`,
			"parse judge report 05-reviewer2/judge-reports/J-1.json: review_id is missing: name the R2 report this judge report scores"},
		{"05-reviewer2/V0-x.json", `{"seeded_faults":[]}`,
			"parse V0 record 05-reviewer2/V0-x.json: review_id is missing: name the review the faults were planted in"},
		{"05-reviewer2/notes.txt", "x", "parse review 05-reviewer2/notes.txt: only .md, .yaml and .json reports are read"},
	}
	for _, tt := range tests {
		if _, err := ParseReport(tt.path, []byte(tt.content)); err == nil || err.Error() != tt.want {
			t.Errorf("%s: err %v\nwant %s", tt.path, err, tt.want)
		}
	}
}

func TestIsReviewFile(t *testing.T) {
	tests := []struct {
		p    string
		want bool
	}{
		{"RQ-001-x/05-reviewer2/R2-1.md", true},
		{".vibe-science/RQ-001-x/05-reviewer2/judge-reports/J-20260114-001.json", true},
		{"05-reviewer2/R2-1.YAML", true},
		{`RQ-001-x\05-reviewer2\R2-1.yml`, true},
		{"RQ-001-x/05-reviewer2/figure.png", false},
		{"RQ-001-x/04-results/R2-1.md", false},
		{"RQ-001-x/x05-reviewer2/R2-1.md", false},
	}
	for _, tt := range tests {
		if got := IsReviewFile(tt.p); got != tt.want {
			t.Errorf("IsReviewFile(%q) = %v", tt.p, got)
		}
	}
}

func TestFaultFamilyAndCategory(t *testing.T) {
	tests := []struct{ id, fam, cat string }{
		{"SFI-01a", "SFI-01", "confounded claim"},
		{"SFI-08b", "SFI-08", "missing control"},
		{"META-03a", "META-03", "p-hacking narrative"},
		{"DOM-02a", "DOM-02", "domain-specific"},
		{"F-03a", "F-03", "F-03"},
		{"weird", "weird", "weird"},
		{"SFI-1a", "SFI-1a", "SFI-1a"},
	}
	for _, tt := range tests {
		if fam, cat := FaultFamily(tt.id), FaultCategory(tt.id); fam != tt.fam || cat != tt.cat {
			t.Errorf("%s: %q %q, want %q %q", tt.id, fam, cat, tt.fam, tt.cat)
		}
	}
	if n := len(faultCategories()); n != 11 {
		t.Errorf("%d fault families read from the taxonomy, want 11 (8 SFI + 3 META)", n)
	}
}
