package mistake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/mistake"
	"github.com/vibe-science/vibe/internal/store"
)

func TestTarget(t *testing.T) {
	root, cwd := "/p", "/p"
	tests := []struct {
		tool, input, want string
	}{
		{"Bash", `{"command": "python3 03-analysis/train.py --seed 2"}`, "run 03-analysis/train.py"},
		{"Bash", `{"command": "cd 03-analysis && python3 train.py"}`, "run 03-analysis/train.py"},
		{"Bash", `{"command": "OMP_NUM_THREADS=1 python -u /p/03-analysis/train.py"}`, "run 03-analysis/train.py"},
		{"Bash", `{"command": "Rscript 'fit model.R'"}`, "run fit model.R"},
		{"Bash", `{"command": "./run_all.sh"}`, "run run_all.sh"},
		{"Bash", `{"command": "python3 -c 'import x'"}`, "command python3 -c 'import x'"},
		{"Bash", `{"command": "make   figures"}`, "command make figures"},
		{"Edit", `{"file_path": "/p/RQ-001/DESIGN.md"}`, "edit RQ-001/DESIGN.md"},
		{"mcp__pubmed__search", `{}`, "call mcp__pubmed__search"},
		{"Read", `{"file_path": "/p/x"}`, ""},
	}
	for _, tt := range tests {
		if got := mistake.Target(tt.tool, json.RawMessage(tt.input), cwd, root); got != tt.want {
			t.Errorf("Target(%s %s) = %q, want %q", tt.tool, tt.input, got, tt.want)
		}
	}
}

// TestAFailedCallIsRememberedWithItsFix drives the hooks: a script fails,
// the same script later succeeds, and a third run in a new session is told
// what went wrong and what fixed it.
func TestAFailedCallIsRememberedWithItsFix(t *testing.T) {
	home := t.TempDir()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.MkdirAll(filepath.Join(root, ".vibe-science"), 0o755) // a vibe project (project.OptedIn)
	env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
	clock := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	run := func(spec hookrun.Spec, ev map[string]any) string {
		raw, _ := json.Marshal(ev)
		var out bytes.Buffer
		e := &hookrun.Env{Stdin: bytes.NewReader(raw), Stdout: &out, Stderr: &bytes.Buffer{},
			Now: func() time.Time { return clock }, Getenv: func(k string) string { return env[k] }}
		hookrun.Main(spec, e)
		clock = clock.Add(time.Minute)
		return out.String()
	}
	call := func(session, name, cmd, id string) map[string]any {
		return map[string]any{"session_id": session, "cwd": root, "hook_event_name": name, "tool_name": "Bash",
			"tool_input": map[string]any{"command": cmd}, "tool_use_id": id}
	}
	fail := call("s1", "PostToolUseFailure", "python3 03-analysis/train.py", "t1")
	fail["error"] = "Exit code 1\nTraceback (most recent call last):\nKeyError: 'guide_id'"
	run(handler.PostToolUse, fail)

	// Before the same script runs again in the session, the error is recalled.
	if out := run(handler.PreToolUse, call("s1", "PreToolUse", "python3 03-analysis/train.py --folds 5", "t2")); !strings.Contains(out, "KeyError: 'guide_id'") {
		t.Fatalf("the retry was not told about the last failure: %s", out)
	}
	// Another script is not concerned.
	if out := run(handler.PreToolUse, call("s1", "PreToolUse", "python3 03-analysis/plot.py", "t3")); strings.Contains(out, "mistake") {
		t.Fatalf("an unrelated script was told about the mistake: %s", out)
	}
	ok := call("s1", "PostToolUse", "cd 03-analysis && python3 train.py --id-column guide", "t4")
	ok["tool_response"] = map[string]any{"stdout": "auc 0.81"}
	run(handler.PostToolUse, ok)

	st, err := store.Open(context.Background(), filepath.Join(home, "db", "vibe-science.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := st.Mistakes(context.Background(), root, "run 03-analysis/train.py", 10)
	if err != nil || len(ms) != 1 || ms[0].FixedAt.IsZero() || !strings.Contains(ms[0].FixedBy, "--id-column guide") {
		t.Fatalf("mistakes = %+v, %v", ms, err)
	}
	var text string
	if err := st.DB().QueryRow("SELECT text FROM memories WHERE kind = 'failure' AND forgotten = 0").Scan(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "KeyError: 'guide_id'") || !strings.Contains(text, "fixed by") || !strings.Contains(text, "--id-column guide") {
		t.Fatalf("the mistake memory does not hold the error and the fix: %q", text)
	}
	st.Close()

	// Within the session that fixed it, nothing more is said; a new session
	// hears the mistake and its fix.
	if out := run(handler.PreToolUse, call("s1", "PreToolUse", "python3 03-analysis/train.py", "t5")); strings.Contains(out, "mistake") {
		t.Fatalf("the fixing session is still told about a fixed mistake: %s", out)
	}
	out := run(handler.PreToolUse, call("s2", "PreToolUse", "python3 03-analysis/train.py", "t6"))
	if !strings.Contains(out, "KeyError") || !strings.Contains(out, "--id-column guide") {
		t.Fatalf("a new session was not told the mistake and its fix: %s", out)
	}
}
