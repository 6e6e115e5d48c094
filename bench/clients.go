package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ClientScenario names the samples of clientBench.
const ClientScenario = "clients, worker running"

// clientCases are the recorded events each client's hooks are timed on
// (testdata/clients/<client>/<case>.in.json), by hook binary.
var clientCases = []struct{ client, hook, file string }{
	{"codex", "vibe-pre-tool-use", "recorded-06-PreToolUse"},   // Bash
	{"codex", "vibe-pre-tool-use", "recorded-04-PreToolUse"},   // apply_patch, Update
	{"codex", "vibe-post-tool-use", "recorded-07-PostToolUse"}, // Bash
	{"gemini", "vibe-pre-tool-use", "recorded-09-BeforeTool"},  // run_shell_command
	{"gemini", "vibe-post-tool-use", "recorded-10-AfterTool"},  // run_shell_command
}

// clientBench times the hooks as Codex and Gemini run them (`--client
// NAME`, the event translated in the worker) next to the same hooks on
// Claude Code's recorded events and the empty binary, in one run. It times
// the binaries themselves: the plugin/guard.sh those clients run in front
// of vibe-pre-tool-use is timed apart (run's extra job).
func clientBench(rep *report, bin, empty, fixtures string, runs int) error {
	home, project, cleanup, err := homeAndProject("vibe-clients-")
	if err != nil {
		return err
	}
	defer cleanup()
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	os.MkdirAll(filepath.Join(project, "notes"), 0o755)
	os.WriteFile(filepath.Join(project, "notes", "a.md"), []byte("hello\n"), 0o644)
	env := append(os.Environ(), "VIBE_HOME="+home)
	claude, err := loadInputs(fixtures, project)
	if err != nil {
		return err
	}
	stop, err := startWorker(bin, home)
	if err != nil {
		return err
	}
	defer stop()
	rep.Samples = append(rep.Samples, measure("empty Go binary", ClientScenario, []string{empty}, env, func(int) []byte { return nil }, runs))
	for _, h := range []string{"vibe-pre-tool-use", "vibe-post-tool-use"} {
		rep.Samples = append(rep.Samples, measure(h+" (claude)", ClientScenario, []string{filepath.Join(bin, h)}, env, claude[h], runs))
	}
	for _, c := range clientCases {
		raw, err := os.ReadFile(filepath.Join("testdata", "clients", c.client, c.file+".in.json"))
		if err != nil {
			return fmt.Errorf("client fixture: %w", err)
		}
		var in struct{ Event json.RawMessage }
		if err := json.Unmarshal(raw, &in); err != nil {
			return fmt.Errorf("%s: %w", c.file, err)
		}
		text := strings.ReplaceAll(string(in.Event), "$PROJECT", project)
		input := func(i int) []byte {
			return []byte(strings.Replace(text, `"tool_use_id": "call_`, fmt.Sprintf(`"tool_use_id": "bench_%d_call_`, i), 1))
		}
		name := fmt.Sprintf("%s (%s, %s)", c.hook, c.client, c.file)
		rep.Samples = append(rep.Samples, measure(name, ClientScenario, []string{filepath.Join(bin, c.hook), "--client", c.client}, env, input, runs))
	}
	return nil
}
