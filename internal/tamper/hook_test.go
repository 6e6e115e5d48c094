package tamper_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
)

// hookProject is a project on disk and a VIBE_HOME, driven through the real
// PostToolUse and Stop handlers as Claude Code would.
type hookProject struct {
	t          *testing.T
	root, home string
	now        time.Time
	// projectDir is CLAUDE_PROJECT_DIR ("" unset).
	projectDir string
}

func newHookProject(t *testing.T) *hookProject {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	h := &hookProject{t: t, root: root, home: t.TempDir(), now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)}
	for rel, content := range map[string]string{
		".git/HEAD":                                  "ref: refs/heads/main\n",
		".vibe-science/RQ-001/CLAIM-LEDGER.md":       "# Claim ledger\n\n## C-001\nstatus: PROPOSED\n",
		".vibe-science/RQ-001/05-reviewer2/r1.md":    "# Review\n",
		".vibe-science/RQ-001/02-data/raw/a.csv":     "x\n1\n",
		".vibe-science/domain-config.json":           `{"domain":"generic","dq2":{"min_auc":0.6}}`,
		".vibe-science/RQ-001/03-analysis/tidy.py":   "import glob\np=glob.glob('.vibe-science/*/CLAIM-'+'LEDGER.md')[0]\nopen(p,'w').write('gone\\n')\n",
		".vibe-science/RQ-001/03-analysis/readme.md": "x\n",
		".claude/settings.json":                      "{}\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// run sends one event to a hook and returns its exit code and reply.
func (h *hookProject) run(spec hookrun.Spec, event map[string]any) (int, map[string]any) {
	h.t.Helper()
	base := map[string]any{"session_id": "s1", "transcript_path": "/dev/null", "cwd": h.root}
	for k, v := range event {
		base[k] = v
	}
	raw, _ := json.Marshal(base)
	var out, errb bytes.Buffer
	h.now = h.now.Add(time.Second)
	now := h.now
	env := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &errb, Now: func() time.Time { return now },
		Getenv: func(k string) string {
			switch k {
			case "VIBE_HOME":
				return h.home
			case "CLAUDE_PROJECT_DIR":
				return h.projectDir
			}
			return ""
		}}
	code := hookrun.Main(spec, env)
	var reply map[string]any
	if b := bytes.TrimSpace(out.Bytes()); len(b) > 0 {
		if err := json.Unmarshal(b, &reply); err != nil {
			h.t.Fatalf("reply is not JSON: %q", b)
		}
	}
	return code, reply
}

func (h *hookProject) bash(agent, cmd string) map[string]any {
	c := exec.Command("bash", "-c", cmd)
	c.Dir = h.root
	if out, err := c.CombinedOutput(); err != nil {
		h.t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	ev := map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_9",
		"tool_input": map[string]any{"command": cmd}, "tool_response": map[string]any{"stdout": ""}}
	if agent != "" {
		ev["agent_type"], ev["agent_id"] = agent, "a1"
	}
	return ev
}

func (h *hookProject) read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(h.root, filepath.FromSlash(rel)))
	return string(b)
}

// TestPostToolUseRestoresAndBlocks drives the real PostToolUse handler: the
// first call takes the snapshot, a clean call says nothing about it, and a
// script that rewrites the ledger (a target computed at run time) is undone
// and blocked.
func TestPostToolUseRestoresAndBlocks(t *testing.T) {
	h := newHookProject(t)
	ledger := ".vibe-science/RQ-001/CLAIM-LEDGER.md"
	before := h.read(ledger)
	if code, reply := h.run(handler.PostToolUse, h.bash("", "ls")); code != 0 || reply["decision"] != nil {
		t.Fatalf("first call: %d %v", code, reply)
	}
	if code, reply := h.run(handler.PostToolUse, h.bash("vibe:experimenter", "cat .vibe-science/RQ-001/03-analysis/readme.md")); code != 0 || reply["decision"] != nil {
		t.Fatalf("clean call: %d %v", code, reply)
	}
	code, reply := h.run(handler.PostToolUse, h.bash("vibe:experimenter", "python3 .vibe-science/RQ-001/03-analysis/tidy.py"))
	if code != 0 || reply["decision"] != "block" {
		t.Fatalf("tampering call: %d %v", code, reply)
	}
	reason := fmt.Sprint(reply["reason"])
	for _, want := range []string{"vibe:experimenter modified " + ledger, "restored it from its snapshot", "toolu_9"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason lacks %q: %s", want, reason)
		}
	}
	if h.read(ledger) != before {
		t.Fatalf("ledger not restored: %q", h.read(ledger))
	}
}

// TestStopRestoresRawData: a raw file changed in place, which a call's
// slice of raw data may miss, is restored when the turn ends; while the
// Stop hook is already active the same is a warning, not another block.
func TestStopRestoresRawData(t *testing.T) {
	h := newHookProject(t)
	rawFile := ".vibe-science/RQ-001/02-data/raw/a.csv"
	h.run(handler.PostToolUse, h.bash("", "ls"))
	before := h.read(rawFile)
	os.WriteFile(filepath.Join(h.root, filepath.FromSlash(rawFile)), []byte("x\n999\n"), 0o644)
	stop := map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "prompt_id": "p1"}
	code, reply := h.run(handler.Stop, stop)
	if code != 0 || reply["decision"] != "block" || !strings.Contains(fmt.Sprint(reply["reason"]), rawFile) {
		t.Fatalf("stop: %d %v", code, reply)
	}
	if h.read(rawFile) != before {
		t.Fatal("raw file not restored at Stop")
	}
	os.WriteFile(filepath.Join(h.root, filepath.FromSlash(rawFile)), []byte("again\n"), 0o644)
	stop["stop_hook_active"] = true
	code, reply = h.run(handler.Stop, stop)
	if code != 0 || reply["decision"] == "block" {
		t.Fatalf("active stop must not block again: %d %v", code, reply)
	}
	if h.read(rawFile) != before {
		t.Fatal("raw file not restored at the second Stop")
	}
}

// TestPostToolUseDriftBySed: item 6 of issue 14. sed -i loosens dq2.min_auc
// from 0.6 to 0.36 (4000 bps, past the 1000 bps cap); PreToolUse judges
// only Write and Edit, so PostToolUse restores the config and blocks.
func TestPostToolUseDriftBySed(t *testing.T) {
	h := newHookProject(t)
	cfg := ".vibe-science/domain-config.json"
	before := h.read(cfg)
	h.run(handler.PostToolUse, h.bash("", "ls"))
	code, reply := h.run(handler.PostToolUse, h.bash("", "sed -i 's/0.6/0.36/' "+cfg))
	if code != 0 || reply["decision"] != "block" || !strings.Contains(fmt.Sprint(reply["reason"]), "dq2.min_auc") {
		t.Fatalf("drift: %d %v", code, reply)
	}
	if h.read(cfg) != before {
		t.Fatalf("config not restored: %q", h.read(cfg))
	}
}

// TestPostToolUseAcceptsTheLeadsEdit: in TEAM mode the lead's Edit of the
// ledger (named by file_path) is an allowed write: no block, and a later
// forbidden change goes back to the lead's version.
func TestPostToolUseAcceptsTheLeadsEdit(t *testing.T) {
	h := newHookProject(t)
	os.WriteFile(filepath.Join(h.root, ".vibe-science", "permissions.json"), []byte(`{"mode":"team"}`), 0o644)
	ledger := ".vibe-science/RQ-001/CLAIM-LEDGER.md"
	abs := filepath.Join(h.root, filepath.FromSlash(ledger))
	h.run(handler.PostToolUse, h.bash("", "ls"))
	edited := "# Claim ledger\n\n## C-001\nstatus: REVIEWED\n"
	os.WriteFile(abs, []byte(edited), 0o644)
	edit := map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_use_id": "toolu_e",
		"tool_input":    map[string]any{"file_path": abs, "old_string": "PROPOSED", "new_string": "REVIEWED"},
		"tool_response": map[string]any{"filePath": abs}}
	if code, reply := h.run(handler.PostToolUse, edit); code != 0 || reply["decision"] != nil {
		t.Fatalf("the lead's edit: %d %v", code, reply)
	}
	// permissions.json asks: the Edit that names it was approved by the
	// user; the same change by a command that does not name it was not.
	settings := filepath.Join(h.root, ".vibe-science", "permissions.json")
	before := h.read(".vibe-science/permissions.json")
	os.WriteFile(settings, []byte(before+" "), 0o644)
	edit["tool_input"] = map[string]any{"file_path": settings, "old_string": "}", "new_string": "} "}
	if code, reply := h.run(handler.PostToolUse, edit); code != 0 || reply["decision"] != nil {
		t.Fatalf("approved edit of the policy: %d %v", code, reply)
	}
	os.WriteFile(settings, []byte(`{"mode": "solo"}`), 0o644)
	if code, reply := h.run(handler.PostToolUse, h.bash("", "ls")); code != 0 || reply["decision"] != "block" {
		t.Fatalf("unnamed change of the policy: %d %v", code, reply)
	}
	if h.read(".vibe-science/permissions.json") != before+" " {
		t.Fatalf("policy: %q", h.read(".vibe-science/permissions.json"))
	}
	os.WriteFile(abs, []byte("forged\n"), 0o644)
	code, reply := h.run(handler.PostToolUse, h.bash("vibe:serendipity", "ls"))
	if code != 0 || reply["decision"] != "block" {
		t.Fatalf("forged: %d %v", code, reply)
	}
	if h.read(ledger) != edited {
		t.Fatalf("restored to %q, want the lead's edit", h.read(ledger))
	}
}

// TestSmallLooseningsByScriptAddUp: two loosenings of 500 and 526 bps by a
// script PreToolUse cannot read; the first is under the cap and recorded,
// so the second (1026 bps together, past 1000) is undone.
func TestSmallLooseningsByScriptAddUp(t *testing.T) {
	h := newHookProject(t)
	cfg := ".vibe-science/domain-config.json"
	h.run(handler.PostToolUse, h.bash("", "ls"))
	step := func(from, to string) (int, map[string]any) {
		script := fmt.Sprintf("import json,glob\np=glob.glob('.vibe-science/domain-*.json')[0]\ns=open(p).read()\nopen(p,'w').write(s.replace('%s','%s'))\n", from, to)
		os.WriteFile(filepath.Join(h.root, "tune.py"), []byte(script), 0o644)
		return h.run(handler.PostToolUse, h.bash("", "python3 tune.py"))
	}
	if code, reply := step("0.6", "0.57"); code != 0 || reply["decision"] == "block" {
		t.Fatalf("first loosening: %d %v", code, reply)
	}
	if !strings.Contains(h.read(cfg), "0.57") {
		t.Fatal("the first loosening was undone")
	}
	code, reply := step("0.57", "0.54")
	if code != 0 || reply["decision"] != "block" {
		t.Fatalf("second loosening: %d %v", code, reply)
	}
	if !strings.Contains(h.read(cfg), "0.57") {
		t.Fatalf("config after the second: %q", h.read(cfg))
	}
}

// TestShellElsewhereStillGuardsTheProject: the shell cd'd into a nested
// repository (the event's cwd), but the project is CLAUDE_PROJECT_DIR, as
// for every handler: a script run from there that rewrites the project's
// ledger is undone, and the nested repository gets no snapshot of its own.
func TestShellElsewhereStillGuardsTheProject(t *testing.T) {
	h := newHookProject(t)
	h.projectDir = h.root
	nested := filepath.Join(h.root, "vendor", "lib")
	os.MkdirAll(filepath.Join(nested, ".git"), 0o755)
	ledger := ".vibe-science/RQ-001/CLAIM-LEDGER.md"
	before := h.read(ledger)
	from := func(cmd string) map[string]any {
		ev := h.bash("vibe:experimenter", cmd)
		ev["cwd"] = nested
		return ev
	}
	h.run(handler.PostToolUse, from("ls"))
	code, reply := h.run(handler.PostToolUse, from("python3 .vibe-science/RQ-001/03-analysis/tidy.py"))
	if code != 0 || reply["decision"] != "block" || h.read(ledger) != before {
		t.Fatalf("the ledger rewritten from a nested repository was not undone: %d %v, ledger %q", code, reply, h.read(ledger))
	}
	idx, _ := filepath.Glob(filepath.Join(h.home, "tamper", "projects", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("snapshots %v, want the project's only", idx)
	}
}
