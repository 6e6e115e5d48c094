package hookrun_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/client"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
)

// TestRecordedInputsReachTheirHandler replays every input Claude Code
// 2.1.332 sent (testdata/clients/claude-code-2.1.332) for an event vibe
// registers into the handler of the binary client.Events names for it, in
// a project where those paths exist: each is accepted (no "handles X, got
// Y" refusal), and the skill shell command reviewer2 ran against the claim
// ledger is refused while the main thread's note is not (the recording's
// plugin is "e2etest", so its reviewer2 is a guest to vibe's policy).
func TestRecordedInputsReachTheirHandler(t *testing.T) {
	binary := map[string]string{}
	for _, e := range client.Events[client.Claude] {
		binary[e.Name] = e.Binary
	}
	want := map[string]string{
		"05-PreSkillShellCommand.json": `null`,
		"11-PreSkillShellCommand.json": `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"guest (agent e2etest:reviewer2) may not write CLAIM-LEDGER.md (rule guest.deny.ledger): only the researcher or the lead updates CLAIM-LEDGER.md; report findings back to the main thread."}}`,
		"18-ConfigChange.json":         `null`,
		"01-Setup.json":                `{"systemMessage":"vibe: ready (database $VIBE_HOME/db/vibe-science.db); $PROJECT has not opted in: run ` + "`vibe init`" + ` there for vibe to judge its research."}`,
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "clients", "claude-code-2.1.332", "*.json"))
	if len(files) == 0 {
		t.Fatal("no recorded 2.1.332 inputs")
	}
	replayed := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		_, ev, _ := strings.Cut(strings.TrimSuffix(name, ".json"), "-")
		bin := binary[ev]
		if bin == "" {
			continue
		}
		spec, err := handler.Lookup(strings.TrimPrefix(bin, "vibe-"))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		step := json.RawMessage(strings.ReplaceAll(string(raw), "/home/researcher/project", "$PROJECT"))
		out := runCase(t, spec, goldenCase{
			Files: map[string]string{"CLAIM-LEDGER.md": "# Claim ledger\n", ".claude/settings.local.json": `{"permissions": {"allow": ["Bash(ls:*)"]}}` + "\n"},
			Steps: []json.RawMessage{step},
		})
		replayed[ev] = true
		if out.ExitCodes[0] != 0 {
			t.Errorf("%s: exit %d", name, out.ExitCodes[0])
		}
		reply := string(out.Replies[0])
		if strings.Contains(reply, "handles") {
			t.Errorf("%s: %s does not take the event: %s", name, bin, reply)
		}
		if w, ok := want[name]; ok && reply != w {
			t.Errorf("%s: reply\n got %s\nwant %s", name, reply, w)
		}
	}
	for _, ev := range []string{"Setup", "SessionStart", "UserPromptSubmit", "PreToolUse", "PreSkillShellCommand", "PostToolUse", "SubagentStop", "ConfigChange", "Stop", "SessionEnd"} {
		if !replayed[ev] {
			t.Errorf("no recorded %s was replayed", ev)
		}
	}
}

// TestSetupIsAnsweredOutsideVibeProjects: in a folder that did not opt in
// (no .vibe-science, enforcement not on everywhere), Setup, which the
// person runs on purpose with `claude --init`, prepares vibe and says so,
// while a SessionStart of the same folder gets no reply.
func TestSetupIsAnsweredOutsideVibeProjects(t *testing.T) {
	home, plain := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		event, want string
	}{
		{`{"session_id": "s-1", "hook_event_name": "Setup", "trigger": "init", "cwd": "` + plain + `"}`, "has not opted in"},
		{`{"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": "` + plain + `"}`, ""},
	} {
		for _, named := range []string{plain, ""} {
			env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off", "CLAUDE_PROJECT_DIR": named}
			var out bytes.Buffer
			code := hookrun.Main(handler.SessionStart, &hookrun.Env{Stdin: strings.NewReader(c.event), Stdout: &out, Stderr: &bytes.Buffer{},
				Now: time.Now, Getenv: func(k string) string { return env[k] }})
			if code != 0 || (c.want == "" && out.Len() != 0) || !strings.Contains(out.String(), c.want) {
				t.Errorf("CLAUDE_PROJECT_DIR=%q, %s: exit %d, reply %q; want %q", named, c.event, code, out.String(), c.want)
			}
		}
	}
}
