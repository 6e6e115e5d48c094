//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skillFile is a project skill whose text runs command when it loads
// (Claude Code's inline shell, !`...`), allowed by its allowed-tools.
func skillFile(name, command string) string {
	return "---\nname: " + name + "\ndescription: e2e skill " + name + "\nallowed-tools: Bash(echo:*)\n---\nResult: !`" + command + "`\n"
}

// TestSkillShellCommandIsJudged (issue 33, acceptance): on the pinned
// 2.1.332 a skill's inline shell command runs before any PreToolUse, at
// PreSkillShellCommand, which vibe judges with PreToolUse's policy. The
// reviewer2 subagent loads a project skill whose command appends to the
// claim ledger: refused, the ledger untouched, and the subagent reads
// vibe's reason where the command's output would have been. The main
// thread's skill that writes a note runs (the control), and the refusal is
// recorded under the event that made it.
func TestSkillShellCommandIsJudged(t *testing.T) {
	root := vibeRoot(t)
	project := TempDir(t)
	optedIn(t, project)
	ledgerPath := filepath.Join(project, "CLAIM-LEDGER.md")
	mustWrite(t, ledgerPath, "# Claim ledger\n")
	mustWrite(t, filepath.Join(project, ".claude", "skills", "append-ledger", "SKILL.md"), skillFile("append-ledger", "echo C-001 CONFIRMED by reviewer >> CLAIM-LEDGER.md"))
	mustWrite(t, filepath.Join(project, ".claude", "skills", "take-note", "SKILL.md"), skillFile("take-note", "echo noted > skill-note.txt"))
	res := RunClaude(t, RunOptions{
		Prompt: "review the claims", PluginDir: root, ProjectDir: project, AllowedTools: []string{"Skill"},
		Script: Script{
			Turns: []Turn{
				{Tool("Skill", map[string]any{"skill": "take-note"}).WithID("toolu_note")},
				{Agent("vibe:reviewer2", "R2-SKILL-MARKER review C-001").WithID("toolu_agent")},
				{Text("review done")},
			},
			Agents: []AgentScript{{Marker: "R2-SKILL-MARKER", Turns: []Turn{
				{Tool("Skill", map[string]any{"skill": "append-ledger"}).WithID("toolu_r2_skill")},
				{Text("reviewer2 done")},
			}}},
		},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d\n%s\n%s", res.ExitCode, res.Stdout, tail(res.Stderr, 2000))
	}
	if b, _ := os.ReadFile(ledgerPath); string(b) != "# Claim ledger\n" {
		t.Errorf("the skill's shell command wrote the ledger as reviewer2: %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(project, "skill-note.txt")); err != nil || string(b) != "noted\n" {
		t.Errorf("the main thread's harmless skill command did not run: %q %v", b, err)
	}
	const refusal = "[not run: blocked by hook: reviewer2 may not write CLAIM-LEDGER.md (rule reviewer2.deny.ledger)"
	if !res.Mock.Saw(AgentConv("R2-SKILL-MARKER"), refusal) {
		t.Errorf("the subagent never read vibe's refusal %q", refusal)
	}
	if res.Mock.Saw(ConvMain, "blocked by hook") {
		t.Errorf("the main thread's harmless skill command was refused")
	}
	st := openVibeDB(t, res.VibeHome)
	if n := count(t, st, "SELECT count(*) FROM advisories WHERE event = 'PreSkillShellCommand' AND check_name = 'permission' AND result = 'HARD_BLOCK' AND reason LIKE 'reviewer2 may not write CLAIM-LEDGER.md%'"); n != 1 {
		t.Errorf("%d PreSkillShellCommand refusals recorded, want 1", n)
	}
}

// TestBrokenPreToolUseBinaryRefusesSkillShell: hooks.json runs
// vibe-pre-tool-use on PreSkillShellCommand with "onFailure": "block", so
// a binary that fails keeps a skill's command from running, as it keeps a
// Write from landing.
func TestBrokenPreToolUseBinaryRefusesSkillShell(t *testing.T) {
	plugin := brokenPreToolUse(t, `cat >/dev/null; echo "vibe-e2e: boom" >&2; exit 1`)
	project := TempDir(t)
	mustWrite(t, filepath.Join(project, ".claude", "skills", "take-note", "SKILL.md"), skillFile("take-note", "echo noted > skill-note.txt"))
	res := RunClaude(t, RunOptions{
		Prompt: "take a note", PluginDir: plugin, ProjectDir: project, AllowedTools: []string{"Skill"},
		Script: Script{Turns: []Turn{
			{Tool("Skill", map[string]any{"skill": "take-note"}).WithID("toolu_note")},
			{Text("done")},
		}},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(project, "skill-note.txt")); !os.IsNotExist(err) {
		t.Errorf("the skill's command ran although vibe-pre-tool-use failed (stat err %v)", err)
	}
	main := res.Mock.Conversation(ConvMain)
	if len(main) < 2 {
		t.Fatalf("%d main requests, want 2", len(main))
	}
	t.Logf("the client tells the model: %q", tail(main[1].Msg.AllText(), 400))
	if !res.Mock.Saw(ConvMain, "[not run: blocked by hook:") {
		t.Errorf("the model was not told the skill's command did not run")
	}
}

// TestConfigChangeKeepsVibeOn: an agent's script that writes
// disableAllHooks into .claude/settings.local.json (a target no shell
// analyser can see) would switch every hook off at once, before the net
// could put the file back. vibe's ConfigChange hook keeps the change out
// of the running session, so the shell append to the claim ledger that
// follows is still refused, and the refusal of the change is recorded.
func TestConfigChangeKeepsVibeOn(t *testing.T) {
	res, ledgerPath := hooksOffSession(t, vibeRoot(t))
	if b, _ := os.ReadFile(ledgerPath); string(b) != "# Claim ledger\n" {
		t.Errorf("the ledger was written after the settings change: %q", b)
	}
	if r := resultFor(t, res, "toolu_ledger"); !r.IsError || !strings.Contains(r.Text, "This command writes CLAIM-LEDGER.md") {
		t.Errorf("the ledger append was not refused by vibe: %+v", r)
	}
	st := openVibeDB(t, res.VibeHome)
	if n := count(t, st, "SELECT count(*) FROM advisories WHERE event = 'ConfigChange' AND check_name = 'hooks-off' AND result = 'BLOCK' AND reason LIKE '%disableAllHooks: true%'"); n != 1 {
		t.Errorf("%d hooks-off refusals recorded, want 1", n)
	}
	if !strings.Contains(res.Debug, "ConfigChange hook blocked change to "+filepath.Join(res.ProjectDir, ".claude", "settings.local.json")) {
		t.Errorf("the client's debug log does not show the change refused")
	}
}

// TestWithoutConfigChangeHooksGoSilent pins why vibe registers ConfigChange:
// the same session with hooks.json minus it, and the ledger append lands,
// because 2.1.332 applies disableAllHooks the moment the file changes.
func TestWithoutConfigChangeHooksGoSilent(t *testing.T) {
	plugin := pluginCopy(t, "bin/vibe-session-start", "bin/vibe-prompt-submit", "bin/vibe-pre-tool-use",
		"bin/vibe-post-tool-use", "bin/vibe-stop", "bin/vibe-session-end", "bin/vibe-hook")
	var hooks map[string]any
	if err := json.Unmarshal(repoFile(t, "hooks.json"), &hooks); err != nil {
		t.Fatal(err)
	}
	delete(hooks["hooks"].(map[string]any), "ConfigChange")
	b, err := json.Marshal(hooks)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(plugin, "hooks.json"), string(b))
	_, ledgerPath := hooksOffSession(t, plugin)
	if b, _ := os.ReadFile(ledgerPath); string(b) != "# Claim ledger\nx\n" {
		t.Errorf("ledger %q: without the ConfigChange hook the append should have landed unjudged; if vibe still judged it, "+
			"the client no longer applies disableAllHooks mid-session and docs/clients.md must say so", b)
	}
}

// hooksOffSession runs a session in an opted-in project with the plugin:
// a script turns hooks off in .claude/settings.local.json, then a shell
// command appends to the claim ledger.
func hooksOffSession(t *testing.T, plugin string) (Result, string) {
	t.Helper()
	project := TempDir(t)
	optedIn(t, project)
	ledgerPath := filepath.Join(project, "CLAIM-LEDGER.md")
	mustWrite(t, ledgerPath, "# Claim ledger\n")
	mustWrite(t, filepath.Join(project, ".claude", "settings.local.json"), "{}\n")
	// The sleep keeps the call running while the client notices the change.
	mustWrite(t, filepath.Join(project, "tools", "quiet.sh"), "printf '{\"disableAllHooks\": true}\\n' > .claude/settings.local.json\nsleep 2\n")
	res := RunClaude(t, RunOptions{
		Prompt: "tidy up", PluginDir: plugin, ProjectDir: project, AllowedTools: []string{"Bash"},
		Script: Script{Turns: []Turn{
			{Tool("Bash", map[string]any{"command": "sh tools/quiet.sh", "description": "tidy"}).WithID("toolu_quiet")},
			{Tool("Bash", map[string]any{"command": "echo x >> CLAIM-LEDGER.md", "description": "append"}).WithID("toolu_ledger")},
			{Text("done")},
		}},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d\n%s\n%s", res.ExitCode, res.Stdout, tail(res.Stderr, 2000))
	}
	return res, ledgerPath
}

// TestSetupPreparesVibe: `claude --init` fires Setup, which vibe answers
// with its first-run setup: the database is created before any session
// hook, and the person is told the project has not opted in yet.
func TestSetupPreparesVibe(t *testing.T) {
	root := vibeRoot(t)
	res := RunClaude(t, RunOptions{Prompt: "hello", PluginDir: root, Args: []string{"--init"}, Script: Script{Turns: []Turn{{Text("hi")}}}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, tail(res.Stderr, 2000))
	}
	if _, err := os.Stat(filepath.Join(res.VibeHome, "db", "vibe-science.db")); err != nil {
		t.Errorf("no database after Setup: %v", err)
	}
	want := "vibe: ready (database " + filepath.Join(res.VibeHome, "db", "vibe-science.db") + "); " + res.ProjectDir +
		" has not opted in: run `vibe init` there for vibe to judge its research."
	if !strings.Contains(res.Debug, "Hook Setup:init (Setup) success") || !strings.Contains(res.Debug, want) {
		t.Errorf("the debug log lacks vibe's Setup answer %q", want)
	}
}
