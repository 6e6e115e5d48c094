package skill_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/gate"
)

// The forensic checklist of the blueprint (section 15) holds the skill to
// the methodology it carries. Each test reads the files Claude Code loads.

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("vibe", rel))
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return string(b)
}

// TestForensicA3 (the laws): SKILL.md states laws 1 to 11, each once, the
// 11th being "obey corrections".
func TestForensicA3(t *testing.T) {
	s := read(t, "SKILL.md")
	for n := 1; n <= 11; n++ {
		re := regexp.MustCompile(`(?m)^` + strconv.Itoa(n) + `\. \*\*`)
		if got := len(re.FindAllString(s, -1)); got != 1 {
			t.Errorf("law %d appears %d times as a numbered law", n, got)
		}
	}
	if !strings.Contains(s, "Obey the user's corrections") {
		t.Error("law 11 (obey corrections) is missing")
	}
}

// TestForensicA4 (SFI, BFP, R3 judge and schema-validated gates for FORCED
// reviews): each has its protocol and the reviewer protocol requires them in
// FORCED mode.
func TestForensicA4(t *testing.T) {
	for _, p := range []string{"seeded-fault-injection.md", "blind-first-pass.md", "judge-agent.md", "schema-validation.md"} {
		if s := read(t, "protocols/"+p); len(s) < 500 {
			t.Errorf("protocol %s is missing or a stub (%d bytes)", p, len(s))
		}
	}
	r2 := read(t, "protocols/reviewer2-ensemble.md")
	for _, w := range []string{"FORCED", "seeded", "blind", "judge"} {
		if !strings.Contains(strings.ToLower(r2), strings.ToLower(w)) {
			t.Errorf("reviewer2-ensemble.md does not mention %s", w)
		}
	}
}

// TestForensicA5 (circuit breaker, DISPUTED, S5 poison pill).
func TestForensicA5(t *testing.T) {
	cb := read(t, "protocols/circuit-breaker.md")
	if !strings.Contains(cb, "DISPUTED") {
		t.Error("circuit-breaker.md does not define DISPUTED")
	}
	gates := read(t, "gates.md")
	if !strings.Contains(gates, "## S5") || !regexp.MustCompile(`(?i)disputed`).MatchString(sectionOf(gates, "## S5")) {
		t.Error("gate S5 does not forbid DISPUTED claims at the stage exit (the poison pill)")
	}
}

// TestForensicA8: R2 INLINE, the seventh mode, is in reviewer2-ensemble.md.
func TestForensicA8(t *testing.T) {
	r2 := read(t, "protocols/reviewer2-ensemble.md")
	if !strings.Contains(r2, "INLINE mode (the seventh)") {
		t.Error("reviewer2-ensemble.md has no INLINE mode section")
	}
}

// TestForensicG3: every protocol the index lists exists, and the index
// lists every protocol file (29).
func TestForensicG3(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("vibe", "protocols", "*.md"))
	n := 0
	idx := read(t, "protocols/README.md")
	for _, f := range files {
		if filepath.Base(f) == "README.md" {
			continue
		}
		n++
		if !strings.Contains(idx, filepath.Base(f)) {
			t.Errorf("protocols/README.md does not list %s", filepath.Base(f))
		}
	}
	if n != 29 {
		t.Errorf("%d protocols, the blueprint's count is 29", n)
	}
}

// TestForensicG4: the schemas are present, valid JSON Schema 2020-12
// documents with an $id (the per-schema validation lives in skill_test).
func TestForensicG4(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("vibe", "schemas", "*.schema.json"))
	if len(files) < 12 {
		t.Fatalf("%d schemas, want at least the blueprint's 12", len(files))
	}
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["$id"] == nil {
			t.Errorf("%s: not a 2020-12 schema with an $id", f)
		}
	}
}

// TestForensicG6: the fault taxonomy and the one judge rubric.
func TestForensicG6(t *testing.T) {
	tax := read(t, "assets/fault-taxonomy.md")
	// Eight categories, each with faults a and b (SFI-01a … SFI-08b).
	for i := 1; i <= 8; i++ {
		for _, v := range []string{"a", "b"} {
			if id := fmt.Sprintf("SFI-%02d%s", i, v); !strings.Contains(tax, "| "+id+" |") {
				t.Errorf("fault taxonomy lacks %s", id)
			}
		}
	}
	rubric := read(t, "assets/judge-rubric.md")
	for _, d := range []string{"specificity", "counter_evidence_search", "confounder_analysis", "falsification_demand", "independence", "escalation"} {
		if !strings.Contains(rubric, d) {
			t.Errorf("judge rubric lacks dimension %s", d)
		}
	}
	if m, _ := filepath.Glob(filepath.Join("vibe", "assets", "*rubric*")); len(m) != 1 {
		t.Errorf("want exactly one judge rubric, found %v", m)
	}
}

func sectionOf(doc, heading string) string {
	i := strings.Index(doc, heading)
	if i < 0 {
		return ""
	}
	rest := doc[i+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		return rest[:j]
	}
	return rest
}

// TestDomainConfigExamples parses every example of formats/domain-config.md
// with the gate engine's validator, so the document cannot drift from it.
func TestDomainConfigExamples(t *testing.T) {
	doc := read(t, "formats/domain-config.md")
	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) < 3 {
		t.Fatalf("%d examples", len(blocks))
	}
	for _, b := range blocks {
		if errs := gate.ValidateDomain([]byte(b[1])); len(errs) > 0 {
			t.Errorf("example %s: %v", b[1], errs)
		}
	}
}
