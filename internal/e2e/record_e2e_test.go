//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	vibeclient "github.com/vibe-science/vibe/internal/client"
)

// recordedDir holds the hook inputs of the pinned Claude Code, recorded by
// TestRecordedInputs with -update.
var recordedDir = filepath.Join("..", "..", "testdata", "clients", "claude-code-"+PinnedVersion)

// Neutral paths the recorded inputs use, as in the 2.1.330 recording.
const (
	recordedHome    = "/home/researcher"
	recordedProject = "/home/researcher/project"
)

// TestRecordedInputs drives one session through the real client with a
// plugin that logs every event Claude Code ships (client.Events) and
// decides nothing: `--init` (Setup), a skill whose inline shell command
// runs in the main thread and one run by the reviewer2 subagent
// (PreSkillShellCommand, SubagentStart), a script that changes the project's
// settings (ConfigChange) and a file SessionStart asked to watch
// (FileChanged). With -update it writes each input, paths made neutral,
// to testdata/clients/claude-code-<pin>/NN-<Event>.json; otherwise it checks
// that the client still sends the recorded events, in the recorded order,
// each with the recorded fields, so the fixtures the unit tests read are
// what the pinned client sends.
func TestRecordedInputs(t *testing.T) {
	plugin := copyPlugin(t)
	hookLog := TempDir(t)
	project := TempDir(t)
	// The logger answers only SessionStart, with the file to watch.
	logger := `#!/bin/sh
ev="$1"
in=$(cat)
f=$(mktemp "$E2E_HOOK_LOG/$(date +%s%N)-$ev-XXXXXX") || exit 1
printf '%s\n' "$in" >"$f"
if [ "$ev" = SessionStart ]; then
	printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","watchPaths":["%s"]}}' "$E2E_WATCH"
fi
exit 0
`
	mustWrite(t, filepath.Join(plugin, "hooks", "record.sh"), logger)
	hooks := map[string]any{}
	for _, e := range vibeclient.Events[vibeclient.Claude] {
		if e.Name == "WorktreeCreate" {
			continue // a hook for it replaces the client's worktree creation
		}
		hooks[e.Name] = []any{map[string]any{"hooks": []any{map[string]any{
			"type": "command", "command": "/bin/sh", "args": []string{"${CLAUDE_PLUGIN_ROOT}/hooks/record.sh", e.Name}, "timeout": 10}}}}
	}
	b, err := json.Marshal(map[string]any{"hooks": hooks})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(plugin, "hooks", "hooks.json"), string(b))
	mustWrite(t, filepath.Join(plugin, "agents", "reviewer2.md"),
		"---\nname: reviewer2\ndescription: Reviews the notes of the E2E harness session.\ntools: Read, Write, Bash, Skill\n---\nYou are reviewer2, a test subagent.\n")
	mustWrite(t, filepath.Join(project, "CLAIM-LEDGER.md"), "# Claim ledger\n")
	mustWrite(t, filepath.Join(project, ".claude", "settings.local.json"), "{}\n")
	mustWrite(t, filepath.Join(project, ".claude", "skills", "append-ledger", "SKILL.md"), skillFile("append-ledger", "echo C-001 CONFIRMED by reviewer >> CLAIM-LEDGER.md"))
	mustWrite(t, filepath.Join(project, ".claude", "skills", "take-note", "SKILL.md"), skillFile("take-note", "echo noted > skill-note.txt"))
	mustWrite(t, filepath.Join(project, "tools", "settle.sh"),
		// A second apart, so ConfigChange and FileChanged fire in this order.
		"printf '{\"permissions\": {\"allow\": [\"Bash(ls:*)\"]}}\\n' > .claude/settings.local.json\nsleep 1\necho watched > watched.txt\nsleep 1.5\n")
	mustWrite(t, filepath.Join(project, "watched.txt"), "start\n")

	res := RunClaude(t, RunOptions{
		Prompt: "record the events", PluginDir: plugin, ProjectDir: project, Args: []string{"--init"},
		AllowedTools: []string{"Skill", "Bash"},
		Env:          []string{"E2E_HOOK_LOG=" + hookLog, "E2E_WATCH=" + filepath.Join(project, "watched.txt")},
		Script: Script{
			Turns: []Turn{
				{Tool("Skill", map[string]any{"skill": "take-note"}).WithID("toolu_record_note")},
				{Agent("e2etest:reviewer2", "R2-RECORD-MARKER review C-001").WithID("toolu_record_agent")},
				{Tool("Bash", map[string]any{"command": "sh tools/settle.sh", "description": "settle"}).WithID("toolu_record_settle")},
				{Text("done")},
			},
			Agents: []AgentScript{{Marker: "R2-RECORD-MARKER", Turns: []Turn{
				{Tool("Skill", map[string]any{"skill": "append-ledger"}).WithID("toolu_record_r2_skill")},
				{Text("reviewer2 done")},
			}}},
		},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d\n%s\n%s", res.ExitCode, res.Stdout, tail(res.Stderr, 2000))
	}
	// The log files as the client wrote them (readHookLog decodes them, and
	// a map would lose the client's field order).
	calls := readHookLog(t, hookLog)
	files, _ := filepath.Glob(filepath.Join(hookLog, "*"))
	slices.Sort(files)
	var got []recorded
	for i, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recorded{calls[i].Event, neutral(bytes.TrimSpace(raw), res.Home, project)})
	}
	for _, want := range []string{"Setup", "PreSkillShellCommand", "SubagentStart", "ConfigChange", "FileChanged"} {
		if !slices.ContainsFunc(got, func(r recorded) bool { return r.event == want }) {
			t.Errorf("the session fired no %s: %v", want, events(calls))
		}
	}
	if *update {
		writeRecorded(t, got)
		return
	}
	want := readRecorded(t)
	if len(got) != len(want) {
		t.Fatalf("the client fired %d events, %d recorded (rerun with -update and review the diff):\n got %v\nwant %v", len(got), len(want), names(got), names(want))
	}
	for i := range got {
		if got[i].event != want[i].event || !slices.Equal(keys(got[i].input), keys(want[i].input)) {
			t.Errorf("event %d: %s with %v, recorded %s with %v", i+1, got[i].event, keys(got[i].input), want[i].event, keys(want[i].input))
		}
	}
}

type recorded struct {
	event string
	input []byte
}

func names(rs []recorded) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.event
	}
	return out
}

// keys are the input's top-level field names, sorted.
func keys(input []byte) []string {
	var m map[string]json.RawMessage
	json.Unmarshal(input, &m)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// neutral rewrites the run's home and project paths (also in the form the
// client gives a project's transcript folder) to recordedHome and
// recordedProject.
func neutral(input []byte, home, project string) []byte {
	s := string(input)
	s = strings.ReplaceAll(s, strings.ReplaceAll(project, "/", "-"), strings.ReplaceAll(recordedProject, "/", "-"))
	s = strings.ReplaceAll(s, project, recordedProject)
	s = strings.ReplaceAll(s, home, recordedHome)
	return []byte(s)
}

func writeRecorded(t *testing.T, rs []recorded) {
	t.Helper()
	old, _ := filepath.Glob(filepath.Join(recordedDir, "*.json"))
	for _, f := range old {
		os.Remove(f)
	}
	if err := os.MkdirAll(recordedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		var buf bytes.Buffer
		json.Compact(&buf, r.input)
		buf.WriteByte('\n')
		if err := os.WriteFile(filepath.Join(recordedDir, fmt.Sprintf("%02d-%s.json", i+1, r.event)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readRecorded(t *testing.T) []recorded {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(recordedDir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no recorded inputs in %s: run with -update", recordedDir)
	}
	slices.Sort(files)
	var out []recorded
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		_, ev, _ := strings.Cut(base, "-")
		out = append(out, recorded{ev, b})
	}
	return out
}
