package hookrun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hookrun"
)

// TestSilentOutsideAProject: in a git repository without .vibe-science,
// every hook exits 0 with no reply and leaves nothing in VIBE_HOME (no
// database, log or spool), for a PreToolUse Write of a findings file that
// DQ4 would refuse and for an event too large to judge; the same calls in
// the repository once it holds .vibe-science (or with VIBE_ENFORCE=
// everywhere) are answered.
func TestSilentOutsideAProject(t *testing.T) {
	repo, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	findings := filepath.Join(repo, "FINDINGS.md")
	write := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "toolu_1",
		"tool_input": map[string]any{"file_path": findings, "content": "# Findings\n\nAUC 0.93 (n = 40).\n"}}
	huge := map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_use_id": "toolu_2",
		"tool_input": map[string]any{"file_path": filepath.Join(repo, "big.txt"), "content": strings.Repeat("x", hookrun.DefaultMaxJudged)}}
	events := []struct {
		hook string
		ev   map[string]any
	}{
		{"session-start", map[string]any{"hook_event_name": "SessionStart", "source": "startup"}},
		{"prompt-submit", map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "write the findings"}},
		{"pre-tool-use", write},
		{"pre-tool-use", huge},
		{"post-tool-use", map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_3",
			"tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "a\n"}}},
		{"stop", map[string]any{"hook_event_name": "Stop"}},
		{"session-end", map[string]any{"hook_event_name": "SessionEnd", "reason": "other"}},
	}
	run := func(env map[string]string, named bool) []string {
		var replies []string
		for _, e := range events {
			ev := map[string]any{"session_id": "plain-1", "cwd": repo, "transcript_path": "/tmp/t.jsonl"}
			for k, v := range e.ev {
				ev[k] = v
			}
			raw, _ := json.Marshal(ev)
			var out bytes.Buffer
			getenv := func(k string) string {
				if k == "CLAUDE_PROJECT_DIR" && named {
					return repo
				}
				return env[k]
			}
			code := hookrun.Main(specs[e.hook], &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{},
				Now: func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) }, Getenv: getenv})
			if code != 0 {
				replies = append(replies, e.hook+": exit "+string(rune('0'+code)))
			}
			replies = append(replies, strings.TrimSpace(out.String()))
		}
		return replies
	}
	for _, named := range []bool{true, false} {
		home := t.TempDir()
		env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
		for i, r := range run(env, named) {
			if r != "" {
				t.Errorf("CLAUDE_PROJECT_DIR set %v: %s answered outside a vibe project: %s", named, events[min(i, len(events)-1)].hook, r)
			}
		}
		left, _ := os.ReadDir(home)
		if len(left) != 0 {
			t.Errorf("CLAUDE_PROJECT_DIR set %v: VIBE_HOME holds %d entries after a silent session (first %s)", named, len(left), left[0].Name())
		}
	}
	answered := func(env map[string]string) {
		t.Helper()
		replies := run(env, true)
		if !strings.Contains(replies[2], `"permissionDecision":"deny"`) || !strings.Contains(replies[2], "DQ4") {
			t.Errorf("the findings write was not refused by DQ4: %s", replies[2])
		}
		if !strings.Contains(replies[3], `"permissionDecision":"deny"`) {
			t.Errorf("the event too large to judge was not refused: %s", replies[3])
		}
		if !strings.Contains(replies[0], "[VIBE STATE]") {
			t.Errorf("SessionStart gave no context: %s", replies[0])
		}
	}
	home := t.TempDir()
	answered(map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off", "VIBE_ENFORCE": "everywhere"})
	os.MkdirAll(filepath.Join(repo, ".vibe-science"), 0o755)
	home = t.TempDir()
	answered(map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"})
}
