//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// hookCall is one hook invocation the throwaway plugin logged.
type hookCall struct {
	Event string
	Input map[string]any
}

// copyPlugin copies testdata/plugin into a temp dir, so a test can never
// write into the source tree, and returns the copy's path.
func copyPlugin(t *testing.T) string {
	t.Helper()
	dst := TempDir(t)
	src := filepath.Join("testdata", "plugin")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy plugin: %v", err)
	}
	return dst
}

// readHookLog returns the hook calls logged in dir, in firing order.
func readHookLog(t *testing.T, dir string) []hookCall {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read hook log: %v", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names) // nanosecond timestamps of equal width
	calls := make([]hookCall, 0, len(names))
	for _, name := range names {
		parts := strings.Split(name, "-")
		if len(parts) != 3 {
			t.Fatalf("hook log file %q is not <ns>-<event>-<rand>", name)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("read hook log: %v", err)
		}
		var in map[string]any
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("hook log %s: %v", name, err)
		}
		calls = append(calls, hookCall{Event: parts[1], Input: in})
	}
	return calls
}

func events(calls []hookCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Event
	}
	return out
}

// TestSessionDrivesEveryHook drives one scripted session through the real
// client and checks, from the hook log, the disk and the mock's recording,
// that each hook fired and that each decision reached Claude.
func TestSessionDrivesEveryHook(t *testing.T) {
	plugin := copyPlugin(t)
	hookLog := TempDir(t)
	project := TempDir(t)
	notes := filepath.Join(project, "notes.txt")
	denied := filepath.Join(project, "DENIED.txt")
	review := filepath.Join(project, "review.txt")

	res := RunClaude(t, RunOptions{
		Prompt:     "E2E-PROMPT record the notes",
		PluginDir:  plugin,
		ProjectDir: project,
		Env:        []string{"E2E_HOOK_LOG=" + hookLog},
		Script: Script{
			Turns: []Turn{
				{Text("writing notes"), Tool("Write", map[string]any{"file_path": notes, "content": "main was here\n"}).WithID("toolu_write_notes")},
				{Tool("Write", map[string]any{"file_path": denied, "content": "must not land\n"}).WithID("toolu_write_denied")},
				{Tool("Bash", map[string]any{"command": "echo bash-ran > bash.txt", "description": "write bash.txt"}).WithID("toolu_bash")},
				{Agent("e2etest:reviewer2", "E2E-REVIEW-MARKER review the notes").WithID("toolu_agent")},
				{Text("all done")},
				{Text("review finished, done")},
			},
			Agents: []AgentScript{{Marker: "E2E-REVIEW-MARKER", Turns: []Turn{
				{Tool("Write", map[string]any{"file_path": review, "content": "reviewed\n"}).WithID("toolu_review_write")},
				{Text("reviewer2 done")},
			}}},
		},
	})
	if res.ExitCode != 0 {
		t.Fatalf("claude exit code %d, want 0\nstdout: %s\nstderr: %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if errs := res.Mock.Errors(); len(errs) > 0 {
		t.Errorf("mock errors:\n%s", strings.Join(errs, "\n"))
	}
	calls := readHookLog(t, hookLog)

	t.Run("events fire in order", func(t *testing.T) {
		want := []string{
			"SessionStart", "UserPromptSubmit",
			"PreToolUse", "PostToolUse", "PostToolBatch", // Write notes.txt
			"PreToolUse", "PostToolBatch", // Write DENIED.txt, denied: no PostToolUse
			"PreToolUse", "PostToolUse", "PostToolBatch", // Bash
			"PreToolUse", "SubagentStart", // Agent
			"PreToolUse", "PostToolUse", "PostToolBatch", // reviewer2's Write
			"SubagentStop", "PostToolUse", "PostToolBatch", // Agent returns
			"Stop", "Stop", // blocked once, then allowed
			"SessionEnd",
		}
		if got := events(calls); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("hook events\n got %v\nwant %v", got, want)
		}
	})

	t.Run("files on disk", func(t *testing.T) {
		for path, want := range map[string]string{notes: "main was here\n", filepath.Join(project, "bash.txt"): "bash-ran\n", review: "reviewed\n"} {
			b, err := os.ReadFile(path)
			if err != nil || string(b) != want {
				t.Errorf("%s = %q, %v; want %q", path, b, err, want)
			}
		}
		if _, err := os.Stat(denied); !os.IsNotExist(err) {
			t.Errorf("%s exists after PreToolUse denied it (stat err %v)", denied, err)
		}
	})

	t.Run("SessionStart context reaches Claude", func(t *testing.T) {
		main := res.Mock.Conversation(ConvMain)
		if len(main) == 0 {
			t.Fatal("no main-conversation request recorded")
		}
		got := strings.Join(main[0].Msg.SystemMessages(), "\n")
		if !strings.Contains(got, "SessionStart hook additional context: E2E-SESSION-MARKER") {
			t.Errorf("first main request's system messages lack the SessionStart context:\n%s", got)
		}
		if !strings.Contains(main[0].Msg.FirstUserText(), "E2E-PROMPT record the notes") {
			t.Errorf("first user message %q lacks the prompt", main[0].Msg.FirstUserText())
		}
		if res.Mock.Saw(AgentConv("E2E-REVIEW-MARKER"), "E2E-SESSION-MARKER") {
			t.Error("the subagent saw the main thread's SessionStart context")
		}
	})

	t.Run("deny reason is the tool error", func(t *testing.T) {
		got := toolResult(t, res.Mock, "toolu_write_denied")
		want := ToolResult{ToolUseID: "toolu_write_denied", Name: "Write", Conv: ConvMain,
			Text: "PreToolUse:Write hook error: E2E-DENY-MARKER DENIED.txt is protected", IsError: true, Seq: got.Seq}
		if got != want {
			t.Errorf("tool result\n got %+v\nwant %+v", got, want)
		}
		if ok := toolResult(t, res.Mock, "toolu_write_notes"); ok.IsError {
			t.Errorf("allowed Write came back as an error: %q", ok.Text)
		}
	})

	t.Run("Stop block becomes feedback", func(t *testing.T) {
		var stops []hookCall
		for _, c := range calls {
			if c.Event == "Stop" {
				stops = append(stops, c)
			}
		}
		if len(stops) != 2 || stops[0].Input["stop_hook_active"] != false || stops[1].Input["stop_hook_active"] != true {
			t.Fatalf("Stop inputs: %v", stops)
		}
		main := res.Mock.Conversation(ConvMain)
		last := main[len(main)-1]
		if last.Turn != 5 {
			t.Errorf("last main request served turn %d, want 5", last.Turn)
		}
		// 2.1.332 relays the block inside a system-reminder after
		// HookOutputPreamble (2.1.330 sent the feedback bare).
		got := last.Msg.LastUser().Text()
		if fb, ok := HookFeedback(got); !ok || fb != "Stop hook feedback:\nE2E-STOP-MARKER finish the review first" {
			t.Errorf("last user message after the Stop block = %q, want the feedback in one system-reminder after the hook preamble", got)
		}
		if res.Output.Result != "review finished, done" || res.Output.IsError {
			t.Errorf("final result %q (is_error %v), want the last scripted text", res.Output.Result, res.Output.IsError)
		}
	})

	t.Run("subagent identifies itself", func(t *testing.T) {
		var sub []hookCall
		for _, c := range calls {
			if c.Event == "PreToolUse" && c.Input["tool_name"] == "Write" {
				sub = append(sub, c)
			}
		}
		if len(sub) != 3 {
			t.Fatalf("%d PreToolUse Write calls, want 3", len(sub))
		}
		for i, c := range sub[:2] {
			if _, ok := c.Input["agent_type"]; ok {
				t.Errorf("main-thread Write %d carries agent_type %v", i, c.Input["agent_type"])
			}
		}
		r2 := sub[2].Input
		if r2["agent_type"] != "e2etest:reviewer2" || r2["agent_id"] == nil || r2["agent_id"] == "" {
			t.Errorf("reviewer2's PreToolUse agent_type=%v agent_id=%v, want e2etest:reviewer2 and an id", r2["agent_type"], r2["agent_id"])
		}
		agentReqs := res.Mock.Conversation(AgentConv("E2E-REVIEW-MARKER"))
		if len(agentReqs) != 2 {
			t.Fatalf("%d subagent requests, want 2", len(agentReqs))
		}
		for _, r := range agentReqs {
			if r.AgentID != r2["agent_id"] {
				t.Errorf("subagent request %d has agent id header %q, hook saw %v", r.Seq, r.AgentID, r2["agent_id"])
			}
			if r.Msg.HasTool("Agent") {
				t.Errorf("subagent request %d offers the Agent tool", r.Seq)
			}
		}
		if got := toolResult(t, res.Mock, "toolu_agent"); !strings.Contains(got.Text, "reviewer2 done") {
			t.Errorf("Agent tool result lacks the subagent's report: %q", got.Text)
		}
	})
}

func toolResult(t *testing.T, m *Mock, id string) ToolResult {
	t.Helper()
	for _, r := range m.ToolResults() {
		if r.ToolUseID == id {
			return r
		}
	}
	t.Fatalf("no tool_result for %s", id)
	return ToolResult{}
}

// TestPromptHookIsSideRequest checks the routing rule on a real side
// request: a prompt-type hook asks the model with structured output, must
// not consume a scripted turn, and gets a schema-valid answer that lets the
// action go ahead.
func TestPromptHookIsSideRequest(t *testing.T) {
	plugin := TempDir(t)
	writeFile(t, filepath.Join(plugin, ".claude-plugin", "plugin.json"), `{"name":"e2eprompt"}`)
	writeFile(t, filepath.Join(plugin, "hooks", "hooks.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Write","hooks":[{"type":"prompt","prompt":"E2E-PROMPT-HOOK may this run? $ARGUMENTS"}]}]}}`)
	project := TempDir(t)
	target := filepath.Join(project, "ok.txt")

	res := RunClaude(t, RunOptions{
		Prompt: "write ok.txt", PluginDir: plugin, ProjectDir: project,
		Script: Script{Turns: []Turn{
			{Tool("Write", map[string]any{"file_path": target, "content": "ok\n"})},
			{Text("done")},
		}},
	})
	if res.ExitCode != 0 || res.Output.Result != "done" {
		t.Fatalf("exit %d result %q; stderr %s", res.ExitCode, res.Output.Result, res.Stderr)
	}
	if errs := res.Mock.Errors(); len(errs) > 0 {
		t.Errorf("mock errors:\n%s", strings.Join(errs, "\n"))
	}
	side := res.Mock.Conversation(ConvSide)
	if len(side) != 1 || !strings.Contains(side[0].Msg.FirstUserText(), "E2E-PROMPT-HOOK") {
		t.Fatalf("side requests = %d, want the one prompt-hook request", len(side))
	}
	if n := len(res.Mock.Conversation(ConvMain)); n != 2 {
		t.Errorf("%d main requests, want 2", n)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "ok\n" {
		t.Errorf("%s = %q, %v; the prompt hook's schema answer should have allowed the write", target, b, err)
	}
}

// TestValidatePlugin pins what `claude plugin validate` of 2.1.330 says.
// Unlike 2.1.197, which rejected an unknown event name, 2.1.330 only warns
// that the entry is ignored at runtime, so a misspelt event fails only
// under --strict: vibe's CI must validate with --strict.
func TestValidatePlugin(t *testing.T) {
	withHooks := func(hooks string) string {
		dir := copyPlugin(t)
		writeFile(t, filepath.Join(dir, "hooks", "hooks.json"), hooks)
		return dir
	}
	good := copyPlugin(t)
	misspelt := withHooks(`{"hooks":{"PreToolUze":[{"hooks":[{"type":"command","command":"/bin/true"}]}]}}`)
	badTimeout := withHooks(`{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/bin/true","timeout":"ten"}]}]}}`)

	tests := []struct {
		name    string
		dir     string
		strict  bool
		wantErr bool
		want    string
	}{
		{"valid plugin passes", good, false, false, "Validation passed"},
		{"misspelt event only warns", misspelt, false, false, "hooks.PreToolUze: unknown hook event; entry ignored at runtime"},
		{"misspelt event fails strict", misspelt, true, true, "--strict treats warnings as errors"},
		{"string timeout is an error", badTimeout, false, true, "timeout: Invalid input: expected number, received string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ValidatePlugin(t, tt.dir, tt.strict)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v\n%s", err, tt.wantErr, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
