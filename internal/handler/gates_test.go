package handler_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/scaffold"
)

// events lists the hook events a text names, in the order of EventGates.
func events(text string) []string {
	var out []string
	for _, ev := range []string{hook.PreToolUse, hook.PostToolUse} {
		if strings.Contains(text, ev) {
			out = append(out, ev)
		}
	}
	return out
}

// TestRegistrySaysWhereTheCodeRunsEachGate holds the registry's Enforced and
// Trigger fields to the gates the handlers really run.
func TestRegistrySaysWhereTheCodeRunsEachGate(t *testing.T) {
	want := handler.GateEvents()
	for _, g := range gate.Registry() {
		if got := events(g.Enforced); !reflect.DeepEqual(got, want[g.ID]) {
			t.Errorf("registry: %s is enforced at %v, but the hooks run it at %v", g.ID, got, want[g.ID])
		}
		if got := events(g.Trigger); !reflect.DeepEqual(got, want[g.ID]) {
			t.Errorf("registry: %s's trigger names %v, but the hooks run it at %v", g.ID, got, want[g.ID])
		}
	}
}

// TestGatesMarkdownTriggersMatchTheCode reads each gate's Trigger line in
// skill/vibe/gates.md.
func TestGatesMarkdownTriggersMatchTheCode(t *testing.T) {
	raw, err := os.ReadFile("../../skill/vibe/gates.md")
	if err != nil {
		t.Fatal(err)
	}
	want := handler.GateEvents()
	heading := regexp.MustCompile(`^## (\S+) — `)
	triggers := map[string]string{}
	id, in := "", false
	for _, line := range strings.Split(string(raw), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			id, in = m[1], false
			continue
		}
		switch {
		case strings.HasPrefix(line, "- **Trigger:**"):
			in = true
		case strings.HasPrefix(line, "- **"), strings.HasPrefix(line, "#"):
			in = false
		}
		if in && id != "" {
			triggers[id] += line + " "
		}
	}
	for _, g := range gate.Registry() {
		tr, ok := triggers[g.ID]
		if !ok {
			t.Errorf("gates.md has no Trigger line for %s", g.ID)
			continue
		}
		if got := events(tr); !reflect.DeepEqual(got, want[g.ID]) {
			t.Errorf("gates.md: %s's trigger names %v, but the hooks run it at %v\n  %s", g.ID, got, want[g.ID], tr)
		}
	}
}

// TestSkillNamesOnlyGatesTheHooksRun checks the hook sections of SKILL.md:
// every gate id named under "### PreToolUse" or "### PostToolUse" is one that
// hook runs, and the PostToolUse section names all of them.
func TestSkillNamesOnlyGatesTheHooksRun(t *testing.T) {
	raw, err := os.ReadFile("../../skill/vibe/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	cur := ""
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "### PreToolUse"):
			cur = hook.PreToolUse
		case strings.HasPrefix(line, "### PostToolUse"):
			cur = hook.PostToolUse
		case strings.HasPrefix(line, "#"):
			cur = ""
		}
		if cur != "" {
			sections[cur] += line + "\n"
		}
		// The OTAE table's Act row says what PostToolUse runs.
		if strings.HasPrefix(line, "| **Act** |") {
			if i := strings.Index(line, "PostToolUse"); i >= 0 {
				sections["act"] += line[i:]
			}
		}
	}
	ids := regexp.MustCompile(`\b(DQ[1-4]|DD0|DC0|L-1|D1)\b`)
	for where, text := range sections {
		ev := where
		if where == "act" {
			ev = hook.PostToolUse
		}
		runs := map[string]bool{}
		for _, g := range handler.EventGates()[ev] {
			runs[g] = true
		}
		named := map[string]bool{}
		for _, id := range ids.FindAllString(text, -1) {
			named[id] = true
			if !runs[id] {
				t.Errorf("SKILL.md (%s) says %s runs at %s; the hook does not run it", where, id, ev)
			}
		}
		if ev == hook.PostToolUse {
			for g := range runs {
				if !named[g] {
					t.Errorf("SKILL.md (%s) does not say that PostToolUse runs %s", where, g)
				}
			}
		}
	}
	if sections[hook.PostToolUse] == "" || sections["act"] == "" {
		t.Fatal("SKILL.md lost its PostToolUse section or the Act row")
	}
}

// plannedDesign plans a features table, metrics and calibration results
// and findings, as a research question does before it runs its scripts.
const plannedDesign = `# Design: RQ-001 off-target
- rq: RQ-001

## Planned steps

### Step 1: Extract and model
- inputs: none
- outputs: 02-data/processed/features.csv, 04-results/*.json, 04-results/FINDINGS.md
- gates: DQ1, DQ2, DQ3

## Deviations

None yet.
`

// TestEachGateFiresWhereTheListSaysItRuns drives every (event, gate) pair of
// EventGates through the real handler on a file that fails the gate, so the
// list cannot name a gate the hook does not run.
func TestEachGateFiresWhereTheListSaysItRuns(t *testing.T) {
	const rq = ".vibe-science/RQ-001"
	type tcase struct {
		files map[string]string // written before the call (as the tool would have)
		tool  string
		input map[string]any
		says  string
	}
	features := "guide,mm,gc,label\n" + strings.Repeat("g1,1,0.4,1\ng2,3,0.5,0\ng3,2,0.6,1\n", 5)
	dict := "# Data dictionary\n\n## processed/features.csv\n\n| column | type | unit | description |\n|---|---|---|---|\n| guide | string | - | guide id |\n| mm | integer | count | mismatches |\n| gc | float | fraction | GC content |\n| label | boolean | - | cleaved or not |\n"
	bash := map[string]any{"command": "python3 03-analysis/run.py"}
	cases := map[string]map[string]tcase{
		hook.PostToolUse: {
			"DQ1": {files: map[string]string{rq + "/02-data/processed/features.csv": "guide,mm,gc,label\n" + strings.Repeat("g1,1,0.4,1\ng2,1,0.5,0\ng3,1,0.6,1\n", 5),
				rq + "/02-data/DATA-DICTIONARY.md": dict}, tool: "Bash", input: bash, says: "DQ1 FAIL"},
			"DD0": {files: map[string]string{rq + "/02-data/processed/features.csv": strings.Replace(features, "guide,mm,gc,label", "guide,mm,gc,label,cleaved_x", 1),
				rq + "/02-data/DATA-DICTIONARY.md": dict}, tool: "Bash", input: bash, says: "DD0 FAIL"},
			"DQ2": {files: map[string]string{rq + "/04-results/metrics.json": `{"auc": 0.51, "feature_importance": {"a": 1, "b": 1}, "folds": [0.5, 0.52]}`}, tool: "Bash", input: bash, says: "DQ2 FAIL"},
			"DQ3": {files: map[string]string{rq + "/04-results/calibration.json": `{"nominal_coverage": 0.9, "empirical_coverage": 0.6, "n": 100}`}, tool: "Bash", input: bash, says: "DQ3 FAIL"},
			"DQ4": {files: map[string]string{rq + "/04-results/FINDINGS.md": "# Findings\n\nAUC 0.93 (n = 40).\n", rq + "/04-results/FINDINGS.json": `{"auc": 0.81, "n": 40}`}, tool: "Bash", input: bash, says: "DQ4 FAIL"},
			"DC0": {files: map[string]string{rq + "/02-data/processed/extra.csv": "a\n1\n",
				".vibe-science/CLAIM-LEDGER.md": "# Claim ledger\n\n## C-001: Extra sites cleave\n- status: PROVISIONAL\n- type: descriptive\n- evidence: RQ-001/02-data/processed/extra.csv\n"},
				tool: "Bash", input: bash, says: "DC0 FAIL: C-001 rests on 02-data/processed/extra.csv"},
			"D1": {files: map[string]string{".vibe-science/CLAIM-LEDGER.md": "# Claim ledger\n\n## C-001: Off-target rate rises with mismatch count\n- status: PROMOTED\n- type: correlative\n- confidence: 0.62\n- evidence: RQ-001/04-results/FINDINGS.json\n"},
				tool: "Bash", input: bash, says: "C-001 cannot become PROMOTED"},
			"L-1": {files: map[string]string{rq + "/00-brainstorm/direction.md": "# Research direction\n\nBulges.\n"}, tool: "Bash", input: bash, says: "gate L-1 requires one"},
		},
		hook.PreToolUse: {
			"DQ4": {files: map[string]string{rq + "/04-results/FINDINGS.json": `{"auc": 0.81}`}, tool: "Bash",
				input: map[string]any{"command": "echo 'AUC 0.99' >> " + rq + "/04-results/FINDINGS.md"}, says: "DQ4 FAIL"},
			"L-1": {tool: "Write", input: map[string]any{"file_path": rq + "/00-brainstorm/direction.md", "content": "# Research direction\n"}, says: "L-1"},
			"D1": {files: map[string]string{".vibe-science/CLAIM-LEDGER.md": "# Claim ledger\n\n## C-001: Off-target rate rises with mismatch count\n- status: PROVISIONAL\n- type: correlative\n- confidence: 0.62\n- evidence: RQ-001/04-results/FINDINGS.json\n"},
				tool: "Edit", input: map[string]any{"file_path": ".vibe-science/CLAIM-LEDGER.md", "old_string": "- status: PROVISIONAL", "new_string": "- status: PROMOTED"}, says: "cannot become PROMOTED"},
		},
	}
	for ev, gates := range handler.EventGates() {
		for _, g := range gates {
			c, ok := cases[ev][g]
			if !ok {
				t.Errorf("no case shows %s running %s; add one", ev, g)
				continue
			}
			t.Run(ev+"/"+g, func(t *testing.T) {
				home := t.TempDir()
				root, _ := filepath.EvalSymlinks(t.TempDir())
				os.MkdirAll(filepath.Join(root, ".git"), 0o755)
				if _, err := scaffold.Init(project.Project{Root: root, Git: true}, scaffold.Options{RQ: "RQ-001", Now: time.Now()}); err != nil {
					t.Fatal(err)
				}
				// The design plans the files the gates judge: a failure on
				// a file the design does not plan only warns.
				os.WriteFile(filepath.Join(root, rq, "DESIGN.md"), []byte(plannedDesign), 0o644)
				old := time.Now().Add(-time.Hour)
				filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
					os.Chtimes(p, old, old)
					return nil
				})
				env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
				run := func(spec hookrun.Spec, event map[string]any) string {
					raw, _ := json.Marshal(event)
					var out bytes.Buffer
					e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{}, Now: time.Now,
						Getenv: func(k string) string { return env[k] }}
					hookrun.Main(spec, e)
					return out.String()
				}
				base := map[string]any{"session_id": "s-" + g, "cwd": root, "tool_use_id": "toolu_0"}
				// A first call sees the project as it was.
				first := map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": root + "/README.md"}, "tool_response": map[string]any{}}
				for k, v := range base {
					first[k] = v
				}
				first["tool_use_id"] = "toolu_first"
				run(handler.PostToolUse, first)
				for rel, content := range c.files {
					p := filepath.Join(root, rel)
					os.MkdirAll(filepath.Dir(p), 0o755)
					os.WriteFile(p, []byte(content), 0o644)
				}
				in := map[string]any{}
				for k, v := range c.input {
					if s, ok := v.(string); ok && k == "file_path" {
						v = filepath.Join(root, s)
					}
					in[k] = v
				}
				event := map[string]any{"hook_event_name": ev, "tool_name": c.tool, "tool_input": in}
				for k, v := range base {
					event[k] = v
				}
				spec := handler.PreToolUse
				if ev == hook.PostToolUse {
					spec = handler.PostToolUse
					event["tool_response"] = map[string]any{"stdout": ""}
				}
				reply := run(spec, event)
				if !strings.Contains(reply, c.says) {
					t.Fatalf("%s did not run %s: want %q in the reply, got %s", ev, g, c.says, reply)
				}
			})
		}
	}
}
