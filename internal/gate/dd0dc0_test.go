package gate

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/skill"
)

// formatExample returns the first fenced markdown block after "## Example"
// in a skill format document.
func formatExample(t *testing.T, name string) string {
	t.Helper()
	raw, err := fs.ReadFile(skill.FS, "vibe/formats/"+name)
	if err != nil {
		t.Skipf("skill/vibe/formats/%s not present", name)
	}
	s := string(raw)
	if i := strings.Index(s, "## Example"); i >= 0 {
		s = s[i:]
	}
	m := regexp.MustCompile("(?s)```markdown\n(.*?)\n```").FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s has no markdown example", name)
	}
	return m[1]
}

func TestDataDictionaryFormatExample(t *testing.T) {
	d, probs := ParseDictionary([]byte(formatExample(t, "data-dictionary.md")))
	if len(probs) > 0 {
		t.Fatalf("the documented example has problems: %q", probs)
	}
	if len(d.Datasets) == 0 {
		t.Fatalf("the example documents no dataset")
	}
	for _, ds := range d.Datasets {
		if ds.Path == "" || len(ds.Columns) == 0 {
			t.Errorf("dataset %+v has no path or no columns", ds)
		}
	}
	raw, _ := json.Marshal(d)
	if r := ValidateSchema("data-dictionary", raw); r.Status != StatusPass {
		t.Errorf("the parsed form does not validate against its schema: %s", r.Reason())
	}
}

func TestDesignFormatExample(t *testing.T) {
	d, probs := ParseDesign([]byte(formatExample(t, "design-file.md")))
	if len(probs) > 0 {
		t.Fatalf("the documented example has problems: %q", probs)
	}
	if d.Title == "" || len(d.Steps) == 0 || len(d.Deviations) == 0 {
		t.Fatalf("parsed %+v", d)
	}
	for _, v := range d.Deviations {
		if v.ID == "" || v.Date == "" || v.What == "" || v.Why == "" {
			t.Errorf("deviation %+v lacks a field", v)
		}
	}
	raw, _ := json.Marshal(d)
	if r := ValidateSchema("design-file", raw); r.Status != StatusPass {
		t.Errorf("the parsed form does not validate against its schema: %s", r.Reason())
	}
}

const dictionary = "# Data dictionary\n\n## features.csv\n\nMade by extract.py.\n\n" +
	"| column | type | unit | description |\n|---|---|---|---|\n" +
	"| guide_id | string | - | Guide RNA id |\n| `gc_content` | float | fraction | GC fraction \\| of the protospacer |\n| label | boolean | - | Label: cleaved |\n\n" +
	"## runs/*/coverage.csv\n\n| column | type | unit | description |\n|---|---|---|---|\n| fold | integer | - | CV fold |\n"

func TestParseDictionaryProblems(t *testing.T) {
	text := "## a.csv\n| name | type | unit | description |\n|---|---|---|---|\n| x | float | - | y |\n\n" +
		"## b.csv\n| column | type | unit | description |\n| x | float | - | y |\n" +
		"| y | number | - | why |\n| z | float | | zed |\n| w | float | - | |\n| v | float |\n| | float | - | nameless |\n" +
		"```\n| not | read |\n```\n"
	_, probs := ParseDictionary([]byte(text))
	want := []string{
		"line 2: the table header must be exactly | column | type | unit | description |",
		"line 8: the table header must be followed by a |---|---|---|---| line",
		"line 9: column `y` has type \"number\"; use one of integer, float, string, boolean, category, date, datetime",
		"line 10: column `z` has no unit; write - when it has none",
		"line 11: column `w` has no description; say what one value means and where it comes from",
		"line 12: the row has 2 cells; it needs column, type, unit and description",
		"line 13: the row has no column name",
	}
	if !reflect.DeepEqual(probs, want) {
		t.Errorf("problems:\n got %q\nwant %q", probs, want)
	}
}

func TestDD0(t *testing.T) {
	dir := t.TempDir()
	dict := filepath.Join(dir, "DATA-DICTIONARY.md")
	writeFile(t, dict, dictionary)
	feats := filepath.Join(dir, "features.csv")
	writeFile(t, feats, "guide_id,gc_content,cfd_score,pam,label\ng1,0.4,0.1,NGG,1\n")
	other := filepath.Join(dir, "other.csv")
	writeFile(t, other, "a\n1\n")
	cov := filepath.Join(dir, "runs", "3", "coverage.csv")
	writeFile(t, cov, "fold\n1\n")

	r, err := DD0Table(dict, feats)
	if err != nil {
		t.Fatal(err)
	}
	want := []checkSummary{
		{"column", StatusFail, "column `cfd_score` of features.csv is not in DATA-DICTIONARY.md"},
		{"column", StatusFail, "column `pam` of features.csv is not in DATA-DICTIONARY.md"},
	}
	if got := summarize(r, false); !reflect.DeepEqual(got, want) {
		t.Errorf("checks:\n got %+v\nwant %+v", got, want)
	}
	if !strings.Contains(r.Reason(), `add a row | cfd_score | type | unit | description | under "## features.csv"`) {
		t.Errorf("reason %q", r.Reason())
	}

	r, _ = DD0Table(dict, cov)
	if got := summarize(r, false); !reflect.DeepEqual(got, []checkSummary{{"columns", StatusPass, "all 1 columns of runs/3/coverage.csv are documented in DATA-DICTIONARY.md"}}) {
		t.Errorf("glob section: %+v", got)
	}
	r, _ = DD0Table(dict, other)
	if got := summarize(r, false); !reflect.DeepEqual(got, []checkSummary{{"section", StatusFail, "DATA-DICTIONARY.md has no section for other.csv"}}) {
		t.Errorf("no section: %+v", got)
	}
	r, _ = DD0(dict, []string{"guide_id", "fold", "x"})
	if got := summarize(r, true); !reflect.DeepEqual(got, []checkSummary{{"column", StatusFail, "column `x` is not in DATA-DICTIONARY.md"}}) {
		t.Errorf("DD0: %+v", got)
	}
	r, _ = DD0(filepath.Join(dir, "none.md"), []string{"a"})
	if r.Status != StatusFail || !strings.HasPrefix(r.Checks[0].Detail, "there is no data dictionary at ") {
		t.Errorf("missing dictionary: %+v", r.Checks)
	}

	// the JSON form is validated against its schema
	jd := filepath.Join(dir, "data-dictionary.json")
	writeFile(t, jd, `{"datasets": [{"path": "features.csv", "columns": [{"column": "guide_id", "type": "string", "unit": "-", "description": "id"}]}]}`)
	r, _ = DD0Table(jd, feats)
	if r.Status != StatusFail || len(r.Checks) != 4 {
		t.Errorf("json dictionary: %+v", r.Checks)
	}
	writeFile(t, jd, `{"datasets": [{"path": "features.csv", "columns": [{"column": "guide_id", "type": "text"}]}]}`)
	r, _ = DD0Table(jd, feats)
	if r.Status != StatusFail || r.Checks[0].Name != "dictionary" {
		t.Errorf("invalid json dictionary: %+v", r.Checks)
	}
}

const design = `# Design: Test design
- rq: RQ-007

## Planned steps

### Step 1: Download
- inputs: none
- outputs: 03-data/raw/a.csv
- gates: G0

### Step 2: Features
- inputs: 03-data/raw/a.csv
- outputs: ` + "`03-data/features.csv`" + `, 03-data/runs/*/metrics.json
- gates: DQ1, DD0

## Deviations

### DEV-001: 2026-01-09
- step: 2
- what: Dropped a column
- why: it leaked the label
- files: 03-data/features_v2.csv
`

func TestDC0(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "DESIGN.md")
	writeFile(t, p, design)
	tests := []struct {
		name     string
		design   string
		devFile  string
		executed []string
		status   Status
		want     []checkSummary
	}{
		{"clean", design, "", []string{"03-data/raw/a.csv", "03-data/features.csv", "03-data/runs/2/metrics.json", "03-data/features_v2.csv"}, StatusPass, []checkSummary{
			{"design", StatusPass, "DESIGN.md parses: 2 planned steps, 1 deviations, each dated with what and why"},
			{"executed", StatusPass, "all 4 executed files are planned or logged as deviations"}}},
		{"undeclared deviation", design, "", []string{"03-data/features.csv", "03-data/extra.csv"}, StatusFail, []checkSummary{
			{"executed", StatusFail, "03-data/extra.csv was written but is no input or output of a planned step, and no deviation names it"}}},
		{"deviation without why or date", strings.Replace(strings.Replace(design, "- why: it leaked the label\n", "", 1), "DEV-001: 2026-01-09", "DEV-001: soon", 1), "", nil, StatusFail, []checkSummary{
			{"deviation", StatusFail, "DESIGN.md line 18: DEV-001 has no valid date (YYYY-MM-DD after the id)"},
			{"deviation", StatusFail, "DESIGN.md line 18: DEV-001 does not say why (`- why:`)"}}},
		{"missing sections", "# Design: x\n\n## Planned steps\n### Step 2: a\n- outputs: b\n- gates: DQ9\n", "", nil, StatusFail, []checkSummary{
			{"design", StatusFail, "DESIGN.md: the design has no `## Deviations` section (write `None yet.` under it when nothing deviated)"},
			{"design", StatusFail, "DESIGN.md line 4: step 1 is numbered 2; steps count from 1 in order"},
			{"design", StatusFail, "DESIGN.md line 4: step 2 has no `- inputs:` field (write `- inputs: none` when there are none)"},
			{"design", StatusFail, "DESIGN.md line 4: step 2 names the gate \"DQ9\", which is not a gate id (see vibe gate list)"}}},
		{"bad headings", "# Design: x\n## Planned steps\n### 1. a\n## Deviations\n### Dev 1\nNone yet.\n", "", nil, StatusFail, []checkSummary{
			{"design", StatusFail, "DESIGN.md line 3: a step heading must read `### Step N: <title>`, not \"1. a\""},
			{"deviation", StatusFail, "DESIGN.md line 5: a deviation heading must read `### DEV-NNN: YYYY-MM-DD`, not \"Dev 1\""},
			{"design", StatusFail, "DESIGN.md: `## Planned steps` lists no `### Step N: <title>`"}}},
		{"separate deviations file", design, "## Deviations\n\n### DEV-002: 2026-02-01\n- step: 9\n- what: Added a table\n- why: reviewer asked\n- files: 03-data/extra.csv\n", []string{"03-data/extra.csv"}, StatusFail, []checkSummary{
			{"deviation", StatusFail, "DEVIATIONS.md line 3: DEV-002 names step 9, which the design does not plan"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writeFile(t, p, tt.design)
			dev := ""
			if tt.devFile != "" {
				dev = filepath.Join(dir, "DEVIATIONS.md")
				writeFile(t, dev, tt.devFile)
			}
			r, err := DC0(p, dev, tt.executed)
			if err != nil {
				t.Fatal(err)
			}
			if got := summarize(r, tt.status != StatusPass); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
			if r.Status != tt.status {
				t.Errorf("status %s, want %s", r.Status, tt.status)
			}
		})
	}
	r, err := DC0(filepath.Join(dir, "none.md"), "", nil)
	if err != nil || r.Status != StatusFail || !strings.HasPrefix(r.Checks[0].Detail, "there is no design file at ") {
		t.Errorf("missing design: %+v, %v", r, err)
	}
}

func TestDataFiles(t *testing.T) {
	rq := t.TempDir()
	for _, p := range []string{"03-data/features.csv", "03-data/DATA-DICTIONARY.md", "03-data/runs/1/m.json", "03-data/.hidden", "data/x.tsv", "02-analysis/a.py"} {
		writeFile(t, filepath.Join(rq, p), "x")
	}
	got, err := DataFiles(rq)
	want := []string{"03-data/features.csv", "03-data/runs/1/m.json", "data/x.tsv"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("DataFiles = %q, %v; want %q", got, err, want)
	}
}
