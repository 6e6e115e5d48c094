package skill

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// gateIDs is the canonical gate list, in the order gates.md presents it.
var gateIDs = []string{
	"G0", "G1", "G2", "G3", "G4", "G5", "G6", "L-1", "L0", "L1", "L2", "D0", "D1", "D2",
	"T0", "T1", "T2", "T3", "B0", "S1", "S2", "S3", "S4", "S5",
	"DQ1", "DQ2", "DQ3", "DQ4", "DD0", "DC0", "V0", "J0",
}

// gateLevels is the enforcement level each gate must declare in gates.md,
// and, for schema gates, the schema that validates its artifact.
var gateLevels = map[string]string{
	"DQ1": "code", "DQ2": "code", "DQ3": "code", "DQ4": "code", "DD0": "code", "DC0": "code", "L-1": "code",
	"L0": "schema source-validity", "L2": "schema review-completeness", "D1": "schema claim-promotion",
	"D2": "schema rq-conclusion", "B0": "schema brainstorm-quality", "S4": "schema stage4-exit",
	"S5": "schema stage5-exit", "V0": "schema vigilance-check", "J0": "schema judge-report",
}

var schemaNames = []string{
	"brainstorm-quality", "claim-promotion", "data-dictionary", "design-file", "judge-report",
	"r2-report", "review-completeness", "rq-conclusion", "serendipity-seed", "source-validity",
	"stage4-exit", "stage5-exit", "tree-state", "vigilance-check",
}

func readFS(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(FS, name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return string(b)
}

// compileSchema compiles vibe/schemas/<name>.schema.json with format
// assertion on, so examples must also carry valid dates and times.
func compileSchema(t *testing.T, name string) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	raw := readFS(t, "vibe/schemas/"+name+".schema.json")
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		t.Fatalf("%s: not a JSON object", name)
	}
	id, _ := obj["$id"].(string)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatalf("%s: add resource: %v", name, err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatalf("%s: compile: %v", name, err)
	}
	return sch, obj
}

// plainJSON decodes s the way a gate reads an artifact: encoding/json, float64 numbers.
func plainJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode: %v\n%s", err, s)
	}
	return v
}

func firstExample(t *testing.T, obj map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj["examples"].([]any)[0])
	if err != nil {
		t.Fatal(err)
	}
	return plainJSON(t, string(b)).(map[string]any)
}

func TestSchemaFilesAreExactlyTheThirteen(t *testing.T) {
	entries, err := fs.ReadDir(FS, "vibe/schemas")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".schema.json"); ok {
			got = append(got, n)
		} else if e.Name() != "README.md" {
			t.Errorf("unexpected file schemas/%s: schemas are named <name>.schema.json", e.Name())
		}
	}
	if strings.Join(got, " ") != strings.Join(schemaNames, " ") {
		t.Errorf("schemas = %v, want %v", got, schemaNames)
	}
	readme := readFS(t, "vibe/schemas/README.md")
	for _, n := range schemaNames {
		if !strings.Contains(readme, "]("+n+".schema.json)") {
			t.Errorf("schemas/README.md does not link %s.schema.json", n)
		}
	}
}

func TestSchemasCompileAndTheirExamplesValidate(t *testing.T) {
	for _, name := range schemaNames {
		t.Run(name, func(t *testing.T) {
			sch, obj := compileSchema(t, name)
			if obj["$schema"] != draft202012 {
				t.Errorf("$schema = %v, want %s", obj["$schema"], draft202012)
			}
			if id, _ := obj["$id"].(string); !strings.HasSuffix(id, "/"+name+".schema.json") {
				t.Errorf("$id = %q, want it to end in /%s.schema.json", id, name)
			}
			if obj["additionalProperties"] != false {
				t.Errorf("top-level additionalProperties = %v, want false", obj["additionalProperties"])
			}
			checkClosedObjects(t, "#", obj)
			examples, _ := obj["examples"].([]any)
			if len(examples) == 0 {
				t.Fatal("no examples")
			}
			for i, ex := range examples {
				b, _ := json.Marshal(ex)
				if err := sch.Validate(plainJSON(t, string(b))); err != nil {
					t.Errorf("example %d does not validate: %v", i, err)
				}
			}
		})
	}
}

// checkClosedObjects reports every object subschema that declares properties
// but lets unknown ones through.
func checkClosedObjects(t *testing.T, at string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "object" {
			if _, has := v["properties"]; has && v["additionalProperties"] != false {
				t.Errorf("%s: object with properties must set additionalProperties: false", at)
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "examples" {
				continue
			}
			checkClosedObjects(t, at+"/"+k, v[k])
		}
	case []any:
		for i, x := range v {
			checkClosedObjects(t, fmt.Sprintf("%s/%d", at, i), x)
		}
	}
}

// TestSchemasRejectInvalidArtifacts mutates each schema's first example and
// checks the schema's verdict, so the constraints the gates rely on are real.
func TestSchemasRejectInvalidArtifacts(t *testing.T) {
	type m = map[string]any
	obj := func(v any) m { return v.(m) }
	arr := func(v any) []any { return v.([]any) }
	tests := []struct {
		schema string
		name   string
		mutate func(ex m)
		valid  bool
	}{
		{"claim-promotion", "two falsification attempts", func(ex m) { ex["falsification_attempts"] = arr(ex["falsification_attempts"])[:2] }, false},
		{"claim-promotion", "claim id without hyphen", func(ex m) { ex["claim_id"] = "C001" }, false},
		{"claim-promotion", "evidence quality below 0.2", func(ex m) { obj(ex["confidence"])["E"] = 0.15 }, false},
		{"claim-promotion", "quantitative claim not ROBUST", func(ex m) { obj(ex["confounder_harness"])["verdict"] = "NOT_QUANTITATIVE" }, false},
		{"claim-promotion", "type assigned by the researcher", func(ex m) { ex["claim_type_assigned_by"] = "researcher" }, false},
		{"claim-promotion", "non-quantitative claim with a reason", func(ex m) {
			ex["confounder_harness"] = m{"quantitative": false, "verdict": "NOT_QUANTITATIVE", "reason": "a count of datasets, no effect to adjust"}
		}, true},
		{"judge-report", "PASS with total 11", func(ex m) { ex["total"] = 11.0 }, false},
		{"judge-report", "PASS with counter-evidence 1", func(ex m) {
			obj(obj(ex["dimensions"])["counter_evidence_search"])["score"] = 1.0
		}, false},
		{"judge-report", "PASS with a dimension at 0", func(ex m) { obj(obj(ex["dimensions"])["escalation"])["score"] = 0.0 }, false},
		{"judge-report", "SOLO without solo scores", func(ex m) { delete(ex, "solo_scores") }, false},
		{"judge-report", "WEAK_PASS with total 10", func(ex m) { ex["verdict"] = "WEAK_PASS"; ex["total"] = 10.0 }, true},
		{"judge-report", "WEAK_PASS with total 12", func(ex m) { ex["verdict"] = "WEAK_PASS" }, false},
		{"judge-report", "FAIL without feedback", func(ex m) { ex["verdict"] = "FAIL"; delete(ex, "feedback_to_r2") }, false},
		{"judge-report", "a seventh dimension", func(ex m) { obj(ex["dimensions"])["verbosity"] = m{"score": 2.0, "evidence": "long"} }, false},
		{"vigilance-check", "PASS with RMS 0.7", func(ex m) { obj(ex["metrics"])["rms"] = 0.7 }, false},
		{"vigilance-check", "PASS with FAR 0.2", func(ex m) { obj(ex["metrics"])["far"] = 0.2 }, false},
		{"vigilance-check", "PASS with a missed fault", func(ex m) { obj(arr(ex["seeded_faults"])[0])["caught"] = false }, false},
		{"vigilance-check", "PASS with a missed but equivalent fault", func(ex m) {
			f := obj(arr(ex["seeded_faults"])[0])
			f["caught"], f["equivalent"] = false, true
		}, true},
		{"vigilance-check", "FAIL with a missed fault", func(ex m) { ex["gate_result"] = "FAIL"; obj(arr(ex["seeded_faults"])[0])["caught"] = false }, true},
		{"vigilance-check", "fourth attempt", func(ex m) { ex["v0_attempt_number"] = 4.0 }, false},
		{"vigilance-check", "unknown fault id", func(ex m) { obj(arr(ex["seeded_faults"])[0])["fault_id"] = "F-1" }, false},
		{"serendipity-seed", "salvaged seed without its claim", func(ex m) { delete(ex, "salvaged_from") }, false},
		{"serendipity-seed", "scanner seed without a claim", func(ex m) { ex["source"] = "SCANNER"; delete(ex, "salvaged_from") }, true},
		{"serendipity-seed", "two falsifiers", func(ex m) { ex["falsifiers"] = arr(ex["falsifiers"])[:2] }, false},
		{"serendipity-seed", "malformed seed id", func(ex m) { ex["seed_id"] = "SEED-2026-01-12-1" }, false},
		{"serendipity-seed", "score 21", func(ex m) { ex["score"] = 21.0 }, false},
		{"serendipity-seed", "created not a date", func(ex m) { ex["created"] = "12/01/2026" }, false},
		{"brainstorm-quality", "user did not approve", func(ex m) { ex["user_approved"] = false }, false},
		{"brainstorm-quality", "two gaps", func(ex m) { ex["gaps"] = arr(ex["gaps"])[:2] }, false},
		{"brainstorm-quality", "data availability 0.4", func(ex m) { ex["data_availability_score"] = 0.4 }, false},
		{"brainstorm-quality", "R2 rejected", func(ex m) { ex["r2_brainstorm_verdict"] = "REJECT" }, false},
		{"stage5-exit", "a DISPUTED claim", func(ex m) { obj(arr(ex["all_claims"])[0])["final_status"] = "DISPUTED" }, false},
		{"stage5-exit", "R2 did not accept", func(ex m) { obj(ex["r2_ensemble_verdict"])["verdict"] = "REJECT" }, false},
		{"stage4-exit", "two seeds", func(ex m) { ex["multi_seed_results"] = arr(ex["multi_seed_results"])[:2] }, false},
		{"stage4-exit", "no cross-validation but PASSED", func(ex m) { ex["cross_validation_attempted"] = false }, false},
		{"stage4-exit", "no cross-validation, not applicable", func(ex m) {
			ex["cross_validation_attempted"] = false
			ex["cross_validation_result"] = "NOT_APPLICABLE"
		}, true},
		{"rq-conclusion", "conclusion of 10 characters", func(ex m) { ex["conclusion_text"] = "It worked." }, false},
		{"rq-conclusion", "R2 deferred", func(ex m) { ex["r2_final_verdict"] = "DEFER" }, false},
		{"source-validity", "a source with no identifier", func(ex m) {
			s := obj(arr(ex["sources"])[0])
			delete(s, "doi")
		}, false},
		{"source-validity", "unresolved source", func(ex m) { obj(arr(ex["sources"])[0])["resolved"] = false }, false},
		{"review-completeness", "an unresolved fatal flaw", func(ex m) { obj(arr(ex["fatal_flaws"])[0])["status"] = "OPEN" }, false},
		{"review-completeness", "no counter-evidence search", func(ex m) { ex["counter_evidence_searches"] = []any{} }, false},
		{"r2-report", "kill for confounding without a seed", func(ex m) { delete(obj(arr(ex["claims"])[1]), "salvaged_seed") }, false},
		{"r2-report", "kill without a reason", func(ex m) { delete(obj(arr(ex["claims"])[1]), "kill_reason") }, false},
		{"r2-report", "kill as artifact needs no seed", func(ex m) {
			c := obj(arr(ex["claims"])[1])
			c["kill_reason"] = "ARTIFACT"
			delete(c, "salvaged_seed")
		}, true},
		{"r2-report", "INLINE without checklist", func(ex m) { ex["mode"] = "INLINE" }, false},
		{"r2-report", "FORCED without seeded-fault tally", func(ex m) { delete(ex, "sfi") }, false},
		{"r2-report", "an eighth mode", func(ex m) { ex["mode"] = "CASUAL" }, false},
		{"data-dictionary", "type number", func(ex m) {
			obj(arr(obj(arr(ex["datasets"])[0])["columns"])[0])["type"] = "number"
		}, false},
		{"data-dictionary", "empty description", func(ex m) {
			obj(arr(obj(arr(ex["datasets"])[0])["columns"])[0])["description"] = ""
		}, false},
		{"design-file", "deviation without why", func(ex m) { delete(obj(arr(ex["deviations"])[0]), "why") }, false},
		{"design-file", "deviation without date", func(ex m) { delete(obj(arr(ex["deviations"])[0]), "date") }, false},
		{"tree-state", "another format version", func(ex m) { ex["version"] = 2.0 }, false},
		{"tree-state", "an empty project name", func(ex m) { ex["project"] = "" }, false},
		{"tree-state", "a claim id without hyphen", func(ex m) { obj(arr(ex["claims"])[0])["id"] = "C001" }, false},
		{"tree-state", "a gate result SKIPPED", func(ex m) { obj(arr(ex["gates"])[0])["status"] = "SKIPPED" }, false},
		{"tree-state", "a node without id", func(ex m) {
			delete(obj(arr(obj(obj(arr(ex["research_questions"])[0])["tree"])["nodes"])[0]), "id")
		}, false},
		{"tree-state", "a tree from node files only", func(ex m) {
			tr := obj(obj(arr(ex["research_questions"])[0])["tree"])
			for _, k := range []string{"file", "mode", "stage", "current_node", "best_node"} {
				delete(tr, k)
			}
		}, true},
		{"tree-state", "written_at not a time", func(ex m) { ex["written_at"] = "yesterday" }, false},
		{"design-file", "step naming an unknown gate", func(ex m) { obj(arr(ex["steps"])[0])["gates"] = []any{"G9"} }, false},
	}
	for _, name := range schemaNames {
		tests = append(tests, struct {
			schema string
			name   string
			mutate func(ex m)
			valid  bool
		}{name, "unknown top-level field", func(ex m) { ex["unexpected_field"] = true }, false})
	}
	compiled := map[string]*jsonschema.Schema{}
	examples := map[string]map[string]any{}
	for _, tc := range tests {
		t.Run(tc.schema+"/"+tc.name, func(t *testing.T) {
			sch, ok := compiled[tc.schema]
			if !ok {
				var o map[string]any
				sch, o = compileSchema(t, tc.schema)
				compiled[tc.schema] = sch
				examples[tc.schema] = o
			}
			ex := firstExample(t, examples[tc.schema])
			tc.mutate(ex)
			err := sch.Validate(ex)
			if tc.valid && err != nil {
				t.Errorf("want valid, got %v", err)
			}
			if !tc.valid && err == nil {
				t.Error("want a validation error, got none")
			}
		})
	}
}

var gateHeading = regexp.MustCompile(`^## (\S+) — (.+)$`)

func TestGatesDocumentListsTheThirtyTwoGates(t *testing.T) {
	doc := readFS(t, "vibe/gates.md")
	var ids []string
	sections := map[string]string{}
	cur := ""
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "## ") {
			mt := gateHeading.FindStringSubmatch(line)
			if mt == nil {
				t.Errorf("level-2 heading %q is not a gate heading (## ID — Name)", line)
				continue
			}
			ids = append(ids, mt[1])
			cur = mt[1]
			continue
		}
		if strings.HasPrefix(line, "# ") {
			cur = ""
		}
		if cur != "" {
			sections[cur] += line + "\n"
		}
	}
	if strings.Join(ids, " ") != strings.Join(gateIDs, " ") {
		t.Fatalf("gate headings = %v\nwant %v", ids, gateIDs)
	}
	for _, id := range gateIDs {
		sec := sections[id]
		for _, field := range []string{"**Purpose:**", "**Trigger:**", "**Thresholds:**", "**Enforcement:**", "**Passed by:**"} {
			if !strings.Contains(sec, "- "+field) {
				t.Errorf("%s: missing %s", id, field)
			}
		}
		want := gateLevels[id]
		if want == "" {
			want = "prompt"
		}
		level, schema, _ := strings.Cut(want, " ")
		wantLine := "- **Enforcement:** " + level
		if schema != "" {
			wantLine += " (`" + schema + ".schema.json`)"
			if _, err := fs.Stat(FS, "vibe/schemas/"+schema+".schema.json"); err != nil {
				t.Errorf("%s names %s.schema.json, which does not exist", id, schema)
			}
		}
		if !strings.Contains(sec, wantLine+"\n") {
			t.Errorf("%s: want the line %q", id, wantLine)
		}
		if schema != "" && !strings.Contains(sec, "vibe gate run "+id+" ") {
			t.Errorf("%s: a schema gate must show its `vibe gate run %s … --artifact` command", id, id)
		}
	}
}

func TestProtocolsIndexListsEveryProtocol(t *testing.T) {
	entries, err := fs.ReadDir(FS, "vibe/protocols")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Name() != "README.md" {
			files = append(files, e.Name())
		}
	}
	index := readFS(t, "vibe/protocols/README.md")
	linked := map[string]bool{}
	for _, mt := range regexp.MustCompile(`\]\(([a-z0-9-]+\.md)\)`).FindAllStringSubmatch(index, -1) {
		linked[mt[1]] = true
	}
	var listed []string
	for f := range linked {
		listed = append(listed, f)
	}
	sort.Strings(listed)
	if strings.Join(files, " ") != strings.Join(listed, " ") {
		t.Errorf("protocol files %v\nREADME links %v", files, listed)
	}
	if len(files) != 29 {
		t.Errorf("%d protocols, want 29", len(files))
	}
	if !strings.Contains(index, fmt.Sprintf("We ship **%d protocols**", len(files))) {
		t.Errorf("protocols/README.md must say how many protocols we ship (%d)", len(files))
	}
	for _, f := range files {
		if f != strings.ToLower(f) || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*\.md$`).MatchString(f) {
			t.Errorf("%s is not a kebab-case file name", f)
		}
	}
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestRelativeLinksResolve follows every relative markdown link in the skill.
func TestRelativeLinksResolve(t *testing.T) {
	err := fs.WalkDir(FS, "vibe", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, _ := fs.ReadFile(FS, p)
		for _, mt := range mdLink.FindAllStringSubmatch(stripFences(string(b)), -1) {
			target := mt[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			full := path.Clean(path.Join(path.Dir(p), target))
			if _, err := fs.Stat(FS, full); err != nil {
				t.Errorf("%s links %s, which does not exist", p, mt[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stripFences drops fenced code blocks, whose brackets are not links.
func stripFences(s string) string {
	var out strings.Builder
	in := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			out.WriteString(line + "\n")
		}
	}
	return out.String()
}

// fencedBlocks returns the bodies of the fenced blocks of doc tagged lang.
func fencedBlocks(doc, lang string) []string {
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		tr := strings.TrimSpace(line)
		if cur == nil && tr == "```"+lang {
			cur = &strings.Builder{}
			continue
		}
		if cur != nil && tr == "```" {
			blocks = append(blocks, cur.String())
			cur = nil
			continue
		}
		if cur != nil {
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

func TestSkillFrontmatter(t *testing.T) {
	doc := readFS(t, "vibe/SKILL.md")
	if n := strings.Count(doc, "\n"); n > 400 {
		t.Errorf("SKILL.md has %d lines, keep it to 400", n)
	}
	rest, ok := strings.CutPrefix(doc, "---\n")
	if !ok {
		t.Fatal("SKILL.md must start with YAML frontmatter")
	}
	front, _, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatal("SKILL.md frontmatter is not closed")
	}
	if !regexp.MustCompile(`(?m)^name: vibe$`).MatchString(front) {
		t.Error("frontmatter must say name: vibe")
	}
	_, desc, ok := strings.Cut(front, "description: >-\n")
	if !ok {
		t.Fatal("frontmatter must have a folded description (description: >-)")
	}
	var words []string
	for _, line := range strings.Split(desc, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		words = append(words, strings.TrimSpace(line))
	}
	text := strings.Join(words, " ")
	if len(text) == 0 || len(text) > 1000 {
		t.Errorf("description is %d characters, want 1 to 1000", len(text))
	}
	for _, must := range []string{"vibe gate run", "vibe gate check", "vibe gate list", "vibe recall", "vibe alerts list", "vibe alerts resolve", "vibe init",
		"PreToolUse", "PostToolUse", "Stop", "SessionStart", "SOLO", "TEAM", "11. **Obey the user's corrections"} {
		if !strings.Contains(doc, must) {
			t.Errorf("SKILL.md does not mention %q", must)
		}
	}
	for _, role := range []string{"researcher", "lead", "reviewer2", "judge", "serendipity", "experimenter"} {
		if !strings.Contains(doc, "| "+role+" |") {
			t.Errorf("SKILL.md's role table has no row for %s", role)
		}
	}
}

// TestCommandsAndAgentsAreDescribed checks that every slash command and
// subagent the plugin ships is named in SKILL.md, and that each command
// carries a description.
func TestCommandsAndAgentsAreDescribed(t *testing.T) {
	doc := readFS(t, "vibe/SKILL.md")
	cmds, err := filepath.Glob(filepath.Join("..", "plugin", "commands", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range cmds {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		names = append(names, name)
		if !strings.Contains(doc, "`/vibe:"+name+"`") {
			t.Errorf("SKILL.md does not describe /vibe:%s", name)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		front, ok := frontmatter(string(b))
		if !ok {
			t.Errorf("%s has no frontmatter", f)
			continue
		}
		if !regexp.MustCompile(`(?m)^description: \S`).MatchString(front) {
			t.Errorf("%s has no description", f)
		}
	}
	if got := strings.Join(names, " "); got != "init loop review search status" {
		t.Errorf("commands = %s, want init loop review search status", got)
	}
	agents, _ := filepath.Glob(filepath.Join("..", "plugin", "agents", "*.md"))
	for _, f := range agents {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		if !strings.Contains(doc, "`vibe:"+name+"`") {
			t.Errorf("SKILL.md does not describe the agent vibe:%s", name)
		}
	}
}

func frontmatter(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "---\n")
	if !ok {
		return "", false
	}
	front, _, ok := strings.Cut(rest, "\n---\n")
	return front, ok
}

func TestJudgeReportExamplesValidate(t *testing.T) {
	sch, _ := compileSchema(t, "judge-report")
	blocks := fencedBlocks(readFS(t, "vibe/formats/judge-report.md"), "json")
	if len(blocks) != 2 {
		t.Fatalf("%d json examples, want 2", len(blocks))
	}
	verdicts := []string{}
	for i, b := range blocks {
		v := plainJSON(t, b)
		if err := sch.Validate(v); err != nil {
			t.Errorf("example %d: %v", i, err)
		}
		rep := v.(map[string]any)
		sum := 0.0
		for _, d := range rep["dimensions"].(map[string]any) {
			sum += d.(map[string]any)["score"].(float64)
		}
		if sum != rep["total"].(float64) {
			t.Errorf("example %d: total %v, dimensions sum to %v", i, rep["total"], sum)
		}
		if solo, ok := rep["solo_scores"].([]any); ok {
			low := solo[0].(float64)
			if s := solo[1].(float64); s < low {
				low = s
			}
			if low != rep["total"].(float64) {
				t.Errorf("example %d: SOLO total %v is not the lower of %v", i, rep["total"], solo)
			}
		}
		verdicts = append(verdicts, rep["verdict"].(string))
	}
	if strings.Join(verdicts, " ") != "PASS FAIL" {
		t.Errorf("verdicts = %v, want PASS FAIL", verdicts)
	}
}

var (
	seedHeading  = regexp.MustCompile(`^## (SEED-[^:\s]+): (.+)$`)
	fieldLine    = regexp.MustCompile(`^- (?:\*\*)?([a-z][a-z-]*):(?:\*\*)?(?: (.*))?$`)
	nestedBullet = regexp.MustCompile(`^\s{2,}- (.+)$`)
)

// parseSeeds reads SERENDIPITY.md entries into the JSON shape of
// serendipity-seed.schema.json, following formats/serendipity.md.
func parseSeeds(t *testing.T, md string) []map[string]any {
	t.Helper()
	lists := map[string]bool{"falsifiers": true, "pointers": true}
	ints := map[string]bool{"score": true, "created-cycle": true, "triage-deadline-cycle": true}
	var seeds []map[string]any
	var cur map[string]any
	list := ""
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		if mt := seedHeading.FindStringSubmatch(line); mt != nil {
			cur = map[string]any{"seed_id": mt[1], "title": mt[2]}
			seeds = append(seeds, cur)
			list = ""
			continue
		}
		if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "## ") {
			cur = nil
			continue
		}
		if cur == nil {
			continue
		}
		if mt := nestedBullet.FindStringSubmatch(line); mt != nil && list != "" {
			cur[list] = append(cur[list].([]any), strings.TrimSpace(mt[1]))
			continue
		}
		mt := fieldLine.FindStringSubmatch(line)
		if mt == nil {
			list = ""
			continue
		}
		key, val := mt[1], strings.Trim(strings.TrimSpace(mt[2]), "`")
		prop := strings.ReplaceAll(key, "-", "_")
		list = ""
		switch {
		case lists[key]:
			items := []any{}
			if val != "" {
				for _, it := range strings.Split(val, "; ") {
					items = append(items, strings.TrimSpace(it))
				}
			} else {
				list = prop
			}
			cur[prop] = items
		case ints[key]:
			n, err := strconv.Atoi(val)
			if err != nil {
				t.Errorf("%s: %s is not an integer: %q", cur["seed_id"], key, val)
			}
			cur[prop] = float64(n)
		default:
			cur[prop] = val
		}
	}
	return seeds
}

func TestSerendipityExampleMatchesSeedSchema(t *testing.T) {
	sch, _ := compileSchema(t, "serendipity-seed")
	blocks := fencedBlocks(readFS(t, "vibe/formats/serendipity.md"), "markdown")
	if len(blocks) != 1 {
		t.Fatalf("%d markdown examples, want 1", len(blocks))
	}
	seeds := parseSeeds(t, blocks[0])
	var got []string
	for _, s := range seeds {
		got = append(got, fmt.Sprintf("%s %s %v", s["seed_id"], s["source"], len(s["falsifiers"].([]any))))
		if err := sch.Validate(s); err != nil {
			t.Errorf("%s: %v", s["seed_id"], err)
		}
	}
	want := "SEED-20260112-001 SALVAGED_FROM_R2 3|SEED-20260114-002 SCANNER 3"
	if strings.Join(got, "|") != want {
		t.Errorf("parsed %q, want %q", strings.Join(got, "|"), want)
	}
}

func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
	}
	return cells
}

func TestDataDictionaryExampleMatchesSchema(t *testing.T) {
	sch, _ := compileSchema(t, "data-dictionary")
	blocks := fencedBlocks(readFS(t, "vibe/formats/data-dictionary.md"), "markdown")
	if len(blocks) != 1 {
		t.Fatalf("%d markdown examples, want 1", len(blocks))
	}
	var datasets []any
	var cur map[string]any
	inTable := false
	for _, line := range strings.Split(blocks[0], "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			cur = map[string]any{"path": strings.Trim(strings.TrimSpace(line[3:]), "`"), "columns": []any{}}
			datasets = append(datasets, cur)
			inTable = false
		case strings.HasPrefix(line, "|") && cur != nil:
			cells := tableCells(line)
			if !inTable {
				if strings.ToLower(strings.Join(cells, "|")) != "column|type|unit|description" {
					t.Errorf("%s: table header %v", cur["path"], cells)
				}
				inTable = true
				continue
			}
			if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
				continue // separator row
			}
			if len(cells) != 4 {
				t.Errorf("%s: row %q has %d cells", cur["path"], line, len(cells))
				continue
			}
			cur["columns"] = append(cur["columns"].([]any), map[string]any{
				"column": cells[0], "type": cells[1], "unit": cells[2], "description": cells[3]})
		default:
			inTable = false
		}
	}
	doc := map[string]any{"datasets": datasets}
	if err := sch.Validate(doc); err != nil {
		t.Error(err)
	}
	var got []string
	for _, d := range datasets {
		got = append(got, fmt.Sprintf("%s:%d", d.(map[string]any)["path"], len(d.(map[string]any)["columns"].([]any))))
	}
	if strings.Join(got, " ") != "processed/features.csv:6 processed/folds/*.csv:4" {
		t.Errorf("parsed %v", got)
	}
}

var (
	stepHeading = regexp.MustCompile(`^### Step ([0-9]+): (.+)$`)
	devHeading  = regexp.MustCompile(`^### (DEV-[0-9]{3,}): ([0-9]{4}-[0-9]{2}-[0-9]{2})$`)
)

func splitPaths(v string) []any {
	out := []any{}
	if v == "" || v == "-" || v == "none" {
		return out
	}
	for _, p := range strings.Split(v, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

func TestDesignFileExampleMatchesSchema(t *testing.T) {
	sch, _ := compileSchema(t, "design-file")
	blocks := fencedBlocks(readFS(t, "vibe/formats/design-file.md"), "markdown")
	if len(blocks) != 1 {
		t.Fatalf("%d markdown examples, want 1", len(blocks))
	}
	doc := map[string]any{"steps": []any{}, "deviations": []any{}}
	section := ""
	var cur map[string]any
	for _, line := range strings.Split(blocks[0], "\n") {
		if title, ok := strings.CutPrefix(line, "# Design: "); ok {
			doc["title"] = title
			continue
		}
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section, cur = h, nil
			continue
		}
		if mt := stepHeading.FindStringSubmatch(line); mt != nil && section == "Planned steps" {
			n, _ := strconv.Atoi(mt[1])
			cur = map[string]any{"number": float64(n), "title": mt[2]}
			doc["steps"] = append(doc["steps"].([]any), cur)
			continue
		}
		if mt := devHeading.FindStringSubmatch(line); mt != nil && section == "Deviations" {
			cur = map[string]any{"id": mt[1], "date": mt[2]}
			doc["deviations"] = append(doc["deviations"].([]any), cur)
			continue
		}
		mt := fieldLine.FindStringSubmatch(line)
		if mt == nil {
			continue
		}
		key, val := mt[1], strings.TrimSpace(mt[2])
		switch {
		case cur == nil && key == "rq":
			doc["rq_id"] = val
		case cur == nil:
			t.Errorf("field %q outside a step or deviation", key)
		case key == "inputs" || key == "outputs" || key == "files":
			cur[key] = splitPaths(val)
		case key == "gates":
			cur[key] = splitPaths(val)
		case key == "step":
			n, _ := strconv.Atoi(val)
			cur[key] = float64(n)
		default:
			cur[key] = val
		}
	}
	if err := sch.Validate(doc); err != nil {
		t.Error(err)
	}
	if n, d := len(doc["steps"].([]any)), len(doc["deviations"].([]any)); n != 3 || d != 1 {
		t.Errorf("parsed %d steps and %d deviations, want 3 and 1", n, d)
	}
}

func TestResearchBriefExamples(t *testing.T) {
	doc := readFS(t, "vibe/formats/research-brief.md")
	md := fencedBlocks(doc, "markdown")
	if len(md) != 1 {
		t.Fatalf("%d markdown examples, want 1", len(md))
	}
	severities := map[string]bool{"Critical": true, "High": true, "Medium": true, "Low": true}
	actions := map[string]bool{"Block": true, "WarnAndConfirm": true, "WarnOnly": true, "LogOnly": true}
	// an applies-to entry is a path#Symbol anchor, a glob or a plain path
	target := regexp.MustCompile(`^[^#\s,]+(#[A-Za-z_(*][A-Za-z0-9_.()*]*)?$`)
	var got []string
	id := ""
	for _, line := range strings.Split(md[0], "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			id, _, _ = strings.Cut(h, ":")
			if strings.HasPrefix(id, "BC-") {
				got = append(got, id)
			}
			continue
		}
		mt := fieldLine.FindStringSubmatch(line)
		if mt == nil || !strings.HasPrefix(id, "BC-") {
			continue
		}
		switch mt[1] {
		case "severity":
			if !severities[mt[2]] {
				t.Errorf("%s: severity %q", id, mt[2])
			}
			got[len(got)-1] += "/" + mt[2]
		case "action":
			if !actions[mt[2]] {
				t.Errorf("%s: action %q", id, mt[2])
			}
			got[len(got)-1] += "/" + mt[2]
		case "applies-to":
			for _, a := range strings.Split(mt[2], ",") {
				if !target.MatchString(strings.TrimSpace(a)) {
					t.Errorf("%s: %q is not a path#Symbol anchor, glob or path", id, a)
				}
			}
		}
	}
	want := "BC-001/Critical/Block BC-002/High/WarnAndConfirm BC-003/Medium/WarnOnly"
	if strings.Join(got, " ") != want {
		t.Errorf("constraints %q, want %q", strings.Join(got, " "), want)
	}
	js := fencedBlocks(doc, "json")
	if len(js) != 1 {
		t.Fatalf("%d json examples, want 1", len(js))
	}
	var brief struct {
		Constraints []struct{ ID, Title, Severity, Action string } `json:"constraints"`
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(js[0])))
	if err := dec.Decode(&brief); err != nil {
		t.Fatal(err)
	}
	if len(brief.Constraints) != 1 || brief.Constraints[0].ID != "BC-001" || !severities[brief.Constraints[0].Severity] || !actions[brief.Constraints[0].Action] {
		t.Errorf("json constraints = %+v", brief.Constraints)
	}
}

func TestFindingsExampleJSONParses(t *testing.T) {
	blocks := fencedBlocks(readFS(t, "vibe/formats/findings.md"), "json")
	if len(blocks) != 1 {
		t.Fatalf("%d json examples, want 1", len(blocks))
	}
	v := plainJSON(t, blocks[0]).(map[string]any)
	if v["n_sites"] != 5824.0 || v["auc_guide_split"] != 0.8107 {
		t.Errorf("findings example JSON changed: %v", v)
	}
}
