package hook

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDecodeRecorded2_1_332: the inputs Claude Code 2.1.332 sent
// (testdata/clients/claude-code-2.1.332, recorded by internal/e2e
// TestRecordedInputs) take the fast path and decode the fields vibe reads
// of the events it added: PreSkillShellCommand as a Bash call with the
// subagent's identity, Setup's trigger, ConfigChange's source and file.
func TestDecodeRecorded2_1_332(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "clients", "claude-code-2.1.332")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no recorded inputs in %s", dir)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !sameAsJSON(t, raw) {
			t.Errorf("%s: a recorded event left the fast path", filepath.Base(f))
		}
		if _, err := Decode(raw); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
	decode := func(name string) *Event {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	if ev := decode("11-PreSkillShellCommand.json"); ev.HookEventName != PreSkillShellCommand || ev.ToolName != "Bash" ||
		ev.Files().Command != "echo C-001 CONFIRMED by reviewer >> CLAIM-LEDGER.md" || ev.AgentType != "e2etest:reviewer2" ||
		ev.ToolUseID != "toolu_record_r2_skill:preamble-0" || ev.Cwd != "/home/researcher/project" {
		t.Errorf("reviewer2's skill shell command: %+v", ev)
	}
	if ev := decode("01-Setup.json"); ev.HookEventName != Setup || ev.Trigger != "init" {
		t.Errorf("Setup: %+v", ev)
	}
	if ev := decode("18-ConfigChange.json"); ev.HookEventName != ConfigChange || ev.Source != "local_settings" ||
		ev.FilePath != "/home/researcher/project/.claude/settings.local.json" {
		t.Errorf("ConfigChange: %+v", ev)
	}
}
