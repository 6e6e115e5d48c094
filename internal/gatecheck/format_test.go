package gatecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema compiles the official SARIF 2.1.0 schema (draft-07) kept in
// testdata/sarif, with format assertions on, and no network access.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	id := doc.(map[string]any)["$id"].(string)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("compile the SARIF schema: %v", err)
	}
	if sch.DraftVersion != 7 {
		t.Fatalf("the SARIF schema compiled as draft %d, want 7", sch.DraftVersion)
	}
	return sch
}

func validateSARIF(sch *jsonschema.Schema, raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestGateCheckSARIFValidatesAgainstTheOfficialSchema(t *testing.T) {
	sch := sarifSchema(t)
	for _, faults := range [][]string{nil, {"dq4-typo", "schema-invalid-b0", "circular-provisional", "dd0-no-dictionary"}} {
		rep, err := Check(fixture(t, faults...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteSARIF(&b, rep, "1.2.3"); err != nil {
			t.Fatal(err)
		}
		if err := validateSARIF(sch, b.Bytes()); err != nil {
			t.Fatalf("faults %q: SARIF output is not valid SARIF 2.1.0: %v\n%s", faults, err, b.Bytes())
		}
		var log struct {
			Version string `json:"version"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name    string `json:"name"`
						Version string `json:"version"`
						Rules   []struct {
							ID              string `json:"id"`
							FullDescription struct {
								Text string `json:"text"`
							} `json:"fullDescription"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID    string `json:"ruleId"`
					RuleIndex int    `json:"ruleIndex"`
					Level     string `json:"level"`
					Message   struct {
						Text string `json:"text"`
					} `json:"message"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
							Region *struct {
								StartLine int `json:"startLine"`
							} `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(b.Bytes(), &log); err != nil {
			t.Fatal(err)
		}
		if log.Version != "2.1.0" || len(log.Runs) != 1 {
			t.Fatalf("version %q with %d runs", log.Version, len(log.Runs))
		}
		run := log.Runs[0]
		if run.Tool.Driver.Name != "vibe" || run.Tool.Driver.Version != "1.2.3" {
			t.Errorf("driver = %+v", run.Tool.Driver)
		}
		rules := Rules()
		if len(run.Tool.Driver.Rules) != len(rules) {
			t.Fatalf("%d rules, want %d", len(run.Tool.Driver.Rules), len(rules))
		}
		for i, r := range rules {
			got := run.Tool.Driver.Rules[i]
			if got.ID != r.ID || got.FullDescription.Text != r.Purpose || r.Purpose == "" {
				t.Errorf("rule %d = %+v, want %s with its purpose", i, got, r.ID)
			}
		}
		findings := rep.Findings()
		if len(run.Results) != len(findings) {
			t.Fatalf("%d results for %d findings", len(run.Results), len(findings))
		}
		for i, f := range findings {
			res := run.Results[i]
			if res.RuleID != f.Gate || rules[res.RuleIndex].ID != f.Gate || res.Level != string(f.Level) || res.Message.Text != message(f) {
				t.Errorf("result %d = %+v, want finding %+v", i, res, f)
			}
			if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI != f.File {
				t.Errorf("result %d locations = %+v, want %s", i, res.Locations, f.File)
				continue
			}
			region := res.Locations[0].PhysicalLocation.Region
			if (f.Line == 0) != (region == nil) || (region != nil && region.StartLine != f.Line) {
				t.Errorf("result %d region = %+v, want line %d", i, region, f.Line)
			}
		}
		if faults != nil && len(findings) < 5 {
			t.Errorf("only %d findings: the faulty state should produce several", len(findings))
		}
	}
}

// TestGateCheckSARIFSchemaRejects proves the validation above can fail: a
// log with an unknown level, or a region starting at line 0, is rejected.
func TestGateCheckSARIFSchemaRejects(t *testing.T) {
	sch := sarifSchema(t)
	rep := Report{Domain: "generic", Items: []Item{{Gate: "DQ4", File: "a.md", Findings: []Finding{{Gate: "DQ4", Level: Error, File: "a.md", Line: 2, Message: "m"}}}}}
	var b bytes.Buffer
	if err := WriteSARIF(&b, rep, "1"); err != nil {
		t.Fatal(err)
	}
	if err := validateSARIF(sch, b.Bytes()); err != nil {
		t.Fatalf("the reference log is invalid: %v", err)
	}
	for _, bad := range []struct{ old, new string }{
		{`"level": "error"`, `"level": "fatal"`},
		{`"startLine": 2`, `"startLine": 0`},
		{`"version": "2.1.0"`, `"version": "2.0.0"`},
	} {
		raw := strings.Replace(b.String(), bad.old, bad.new, 1)
		if raw == b.String() {
			t.Fatalf("%q not in the log", bad.old)
		}
		err := validateSARIF(sch, []byte(raw))
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s → %s: validation error = %v, want a schema violation", bad.old, bad.new, err)
		}
	}
}

func TestGateCheckGitHubFormat(t *testing.T) {
	rep, err := Check(fixture(t, "dq4-typo", "schema-invalid-b0"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteGitHub(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "::error file=.vibe-science/CLAIM-LEDGER.md,line=3,title=claim-promotion::C-001 is PROMOTED (tier 1 requires DQ4, DC0, DQ1, D1 and a review) but DQ4 fails now on .vibe-science/RQ-001-offtarget/04-results/FINDINGS.md (see its DQ4 findings) — fix: fix what DQ4 reports and run `vibe gate run DQ4 --claim C-001`, or set the claim back to PROVISIONAL\n" +
		"::error file=.vibe-science/RQ-001-offtarget/04-results/FINDINGS.md,line=3,title=DQ4::0.83 in \"Held-out AUC is 0.83 on n = 240 sites. Conformal sets reach…\" matches no number in FINDINGS.json (nearest: 0.8123) — fix: correct it from the JSON, have the script write the value to the JSON, or mark a computed value (derived)\n" +
		"::error file=.vibe-science/RQ-001-offtarget/00-brainstorm/B0.json,title=B0::at /: missing property 'hypothesis' — fix: fix the artifact to match its schema (`vibe help schemas brainstorm-quality`)\n"
	if b.String() != want {
		t.Errorf("github output:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestGateCheckGitHubEscaping(t *testing.T) {
	rep := Report{Items: []Item{{Gate: "L-1", Findings: []Finding{
		{Gate: "L-1", Level: Warning, File: "a,b:c.md", Line: 7, Message: "100% sure\nsecond line", Fix: "do x"},
		{Gate: "claim-ledger", Level: Error, Message: "no file here"},
		{Gate: "DQ4", Level: Error, File: "f.md", Message: "no line\r"},
	}}}}
	var b bytes.Buffer
	if err := WriteGitHub(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "::warning file=a%2Cb%3Ac.md,line=7,title=L-1::100%25 sure%0Asecond line — fix: do x\n" +
		"::error title=claim-ledger::no file here\n" +
		"::error file=f.md,title=DQ4::no line%0D\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestGateCheckWriteFormats(t *testing.T) {
	rep := Report{Domain: "generic", Items: []Item{{Gate: "DQ4", File: "F.md", Status: "FAIL",
		Findings: []Finding{{Gate: "DQ4", Level: Error, File: "F.md", Line: 4, Message: "m", Fix: "f"}}}}}
	tests := []struct {
		format string
		want   string
	}{
		{"", "DQ4  Findings match their data\n  FAIL  F.md\n        error: line 4: m\n          fix: f\n\nvibe gate check (domain generic): 1 checked, 0 passed, 0 warned, 1 failed; 1 error, 0 warnings: FAIL\n"},
		{"text", "DQ4  Findings match their data\n  FAIL  F.md\n        error: line 4: m\n          fix: f\n\nvibe gate check (domain generic): 1 checked, 0 passed, 0 warned, 1 failed; 1 error, 0 warnings: FAIL\n"},
		{"json", "[\n  {\n    \"gate\": \"DQ4\",\n    \"level\": \"error\",\n    \"file\": \"F.md\",\n    \"line\": 4,\n    \"message\": \"m\",\n    \"fix\": \"f\"\n  }\n]\n"},
		{"github", "::error file=F.md,line=4,title=DQ4::m — fix: f\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		if err := Write(&b, rep, tc.format, "v"); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("format %q:\n%q\nwant\n%q", tc.format, b.String(), tc.want)
		}
	}
	if err := Write(&bytes.Buffer{}, rep, "xml", "v"); err == nil || !strings.Contains(err.Error(), "text, json, github, sarif") {
		t.Errorf("unknown format error = %v", err)
	}
}

func TestGateCheckTextShowsFindingsInOtherFiles(t *testing.T) {
	rep := Report{Domain: "generic", Items: []Item{{Gate: "DD0", File: "t.csv", Findings: []Finding{
		{Gate: "DD0", Level: Error, File: "DATA-DICTIONARY.md", Line: 9, Message: "bad row"},
		{Gate: "DD0", Level: Warning, File: "DATA-DICTIONARY.md", Message: "odd"},
	}}}}
	rep.finish()
	var b bytes.Buffer
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "DD0  Data dictionary\n  FAIL  t.csv\n        warning: DATA-DICTIONARY.md: odd\n        error: DATA-DICTIONARY.md line 9: bad row\n\n" +
		"vibe gate check (domain generic): 1 checked, 0 passed, 0 warned, 1 failed; 1 error, 1 warning: FAIL\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
