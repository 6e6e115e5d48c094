package gate

import (
	"encoding/json"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/schemacheck"
	"github.com/vibe-science/vibe/skill"
)

// TestMain gives the package's tests the real schema validator, as the CLI
// has it.
func TestMain(m *testing.M) {
	SchemaValidator = schemacheck.Skill
	os.Exit(m.Run())
}

func TestValidateSchemaTestdata(t *testing.T) {
	set := schemacheck.NewSet(os.DirFS("testdata"), "schemas")
	defer func(v func(string, []byte) ([]string, error)) { SchemaValidator = v }(SchemaValidator)
	SchemaValidator = set.Validate
	tests := []struct {
		name     string
		artifact string
		gate     string
		status   Status
		want     []checkSummary
	}{
		{"valid", `{"id": "S-001", "when": "2026-01-05", "score": 0.5, "parts": ["a", "b"]}`, "schema:sample-check", StatusPass,
			[]checkSummary{{"schema", StatusPass, "valid against sample-check.schema.json"}}},
		{"several violations, each with its pointer", `{"id": "X-1", "when": "05/01/2026", "score": 2, "parts": ["a"], "extra": 1}`, "schema:sample-check", StatusFail,
			[]checkSummary{
				{"schema", StatusFail, "at /: additional properties 'extra' not allowed"},
				{"schema", StatusFail, "at /id: 'X-1' does not match pattern '^S-[0-9]{3}$'"},
				{"schema", StatusFail, "at /parts: minItems: got 1, want 2"},
				{"schema", StatusFail, "at /score: maximum: got 2, want 1"},
				{"schema", StatusFail, "at /when: '05/01/2026' is not valid date: parsing time \"05/01/2026\" as \"2006-01-02\": cannot parse \"05/01/2026\" as \"2006\""},
			}},
		{"missing required", `{"id": "S-001"}`, "schema:sample-check", StatusFail,
			[]checkSummary{{"schema", StatusFail, "at /: missing properties 'when', 'score', 'parts'"}}},
		{"recorded failure fails", `{"id": "S-001", "when": "2026-01-05", "score": 0.5, "parts": ["a", "b"], "verdict": "FAIL"}`, "schema:sample-check", StatusFail,
			[]checkSummary{{"schema", StatusPass, "valid against sample-check.schema.json"}, {"outcome", StatusFail, "the artifact records verdict = FAIL"}}},
		{"weak pass warns", `{"id": "S-001", "when": "2026-01-05", "score": 0.5, "parts": ["a", "b"], "verdict": "WEAK_PASS"}`, "schema:sample-check", StatusWarn,
			[]checkSummary{{"schema", StatusPass, "valid against sample-check.schema.json"}, {"outcome", StatusWarn, "the artifact records verdict = WEAK_PASS"}}},
		{"not json", `{"id":`, "schema:sample-check", StatusFail,
			[]checkSummary{{"schema", StatusFail, "the artifact is not valid JSON: unexpected EOF"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ValidateSchema("sample-check", []byte(tt.artifact))
			if r.Gate != tt.gate || r.Status != tt.status {
				t.Errorf("gate %s status %s, want %s %s", r.Gate, r.Status, tt.gate, tt.status)
			}
			if got := summarize(r, false); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("checks:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	r := ValidateSchema("nope.schema.json", []byte(`{}`))
	if r.Status != StatusFail || r.Checks[0].Detail != "no schema nope.schema.json in skill/vibe/schemas (have sample-check.schema.json, score.schema.json)" {
		t.Errorf("unknown schema: %+v", r.Checks)
	}
}

// TestValidateSchemaWithoutValidator is the hook binaries' case: no JSON
// Schema library is linked, the artifact is still parsed and its recorded
// outcome and arithmetic still judged, and the result says what was skipped.
func TestValidateSchemaWithoutValidator(t *testing.T) {
	defer func(v func(string, []byte) ([]string, error)) { SchemaValidator = v }(SchemaValidator)
	SchemaValidator = nil
	r := ValidateSchema("sample-check", []byte(`{"id": "X-1", "verdict": "FAIL"}`))
	want := []checkSummary{
		{"schema", StatusPass, "parsed; not checked against sample-check.schema.json here (`vibe gate run` and `vibe gate check` validate it)"},
		{"outcome", StatusFail, "the artifact records verdict = FAIL"},
	}
	if got := summarize(r, false); r.Status != StatusFail || !reflect.DeepEqual(got, want) {
		t.Errorf("got %s %+v", r.Status, got)
	}
	if r := ValidateSchema("sample-check", []byte(`{"id":`)); r.Status != StatusFail {
		t.Errorf("invalid JSON must fail: %+v", r)
	}
}

func TestSchemaFile(t *testing.T) {
	for in, want := range map[string]string{
		"vigilance-check": "vigilance-check.schema.json", "vigilance-check.schema.json": "vigilance-check.schema.json",
		"skill/vibe/schemas/stage4-exit.schema.json": "stage4-exit.schema.json", " judge-report.json ": "judge-report.schema.json",
	} {
		if got := SchemaFile(in); got != want {
			t.Errorf("SchemaFile(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSkillSchemaExamples validates every example a shipped schema carries
// against its own schema: the examples are what the agent copies.
func TestSkillSchemaExamples(t *testing.T) {
	entries, err := fs.ReadDir(skill.FS, schemacheck.Dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".schema.json") {
			continue
		}
		raw, _ := fs.ReadFile(skill.FS, schemacheck.Dir+"/"+e.Name())
		var doc struct {
			Examples []json.RawMessage `json:"examples"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		for i, ex := range doc.Examples {
			n++
			r := ValidateSchema(e.Name(), ex)
			if r.Checks[0].Status != StatusPass {
				t.Errorf("%s example %d: %s", e.Name(), i, r.Reason())
			}
			if r.Status == StatusFail {
				t.Errorf("%s example %d fails its gate: %s", e.Name(), i, r.Reason())
			}
		}
	}
	if n == 0 {
		t.Fatal("no schema examples found")
	}
}

func exampleOf(t *testing.T, schema string) map[string]any {
	t.Helper()
	raw, err := fs.ReadFile(skill.FS, schemacheck.Dir+"/"+schema)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Examples []map[string]any `json:"examples"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Examples) == 0 {
		t.Fatalf("%s has no example: %v", schema, err)
	}
	return doc.Examples[0]
}

func TestVigilanceAndJudge(t *testing.T) {
	mutate := func(schema string, f func(m map[string]any)) []byte {
		m := exampleOf(t, schema)
		f(m)
		raw, _ := json.Marshal(m)
		return raw
	}
	tests := []struct {
		name     string
		schema   string
		artifact []byte
		gate     string
		status   Status
		failures []string
	}{
		{"V0 example passes", "vigilance-check", mutate("vigilance-check.schema.json", func(map[string]any) {}), "V0", StatusPass, nil},
		{"V0 PASS with low RMS fails its schema", "vigilance-check", mutate("vigilance-check.schema.json", func(m map[string]any) {
			m["metrics"].(map[string]any)["rms"] = 0.5
		}), "V0", StatusFail, []string{"at /metrics/rms: minimum: got 0.5, want 0.8"}},
		{"V0 counts that do not add up", "vigilance-check", mutate("vigilance-check.schema.json", func(m map[string]any) {
			m["metrics"].(map[string]any)["injected"] = 3
			m["metrics"].(map[string]any)["rms"] = 0.9
		}), "V0", StatusFail, []string{
			"metrics.injected is 3 but 2 seeded faults are listed",
			"metrics.rms is 0.9 but caught / (injected − equivalent) = 0.666667"}},
		{"V0 recorded FAIL", "vigilance-check", mutate("vigilance-check.schema.json", func(m map[string]any) {
			m["gate_result"] = "FAIL"
		}), "V0", StatusFail, []string{"the artifact records gate_result = FAIL"}},
		{"J0 example passes", "judge-report", mutate("judge-report.schema.json", func(map[string]any) {}), "J0", StatusPass, nil},
		{"J0 total not the sum", "judge-report", mutate("judge-report.schema.json", func(m map[string]any) {
			m["dimensions"].(map[string]any)["escalation"].(map[string]any)["score"] = 3
		}), "J0", StatusFail, []string{"total is 13 but the six dimension scores add up to 14"}},
		{"J0 total not the lower SOLO score", "judge-report", mutate("judge-report.schema.json", func(m map[string]any) {
			m["solo_scores"] = []int{12, 14}
		}), "J0", StatusFail, []string{"total is 13 but the lower SOLO score is 12"}},
		{"J0 PASS with a zero dimension fails its schema", "judge-report", mutate("judge-report.schema.json", func(m map[string]any) {
			m["dimensions"].(map[string]any)["escalation"].(map[string]any)["score"] = 0
			m["total"] = 11
			m["solo_scores"] = []int{11, 14}
		}), "J0", StatusFail, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ValidateSchema(tt.schema, tt.artifact)
			if r.Gate != tt.gate || r.Status != tt.status {
				t.Fatalf("gate %s status %s, want %s %s: %s", r.Gate, r.Status, tt.gate, tt.status, r.Reason())
			}
			if tt.failures == nil {
				return
			}
			var got []string
			for _, c := range r.Checks {
				if c.Status == StatusFail {
					got = append(got, c.Detail)
				}
			}
			if !reflect.DeepEqual(got, tt.failures) {
				t.Errorf("failures %q, want %q", got, tt.failures)
			}
		})
	}
	if r := ValidateSchema("serendipity-seed", []byte(`{}`)); r.Gate != "schema:serendipity-seed" || r.Status != StatusFail {
		t.Errorf("seed schema: %s %s", r.Gate, r.Status)
	}
}
