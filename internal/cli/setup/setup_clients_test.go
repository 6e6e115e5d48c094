package setup

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetupClientsWritesAndRemoves(t *testing.T) {
	claude := &fakeClaude{}
	f, out, home := setupFactory(t, claude)
	os.MkdirAll(filepath.Join(f.Root, "skill", "vibe"), 0o755)
	os.WriteFile(filepath.Join(f.Root, "skill", "vibe", "SKILL.md"), []byte("---\nname: vibe\n---\n# vibe\n"), 0o644)
	run := func(remove bool) string {
		out.Reset()
		args := []string{"--client", "codex,gemini"}
		if remove {
			args = append(args, "--remove")
		}
		if err := runSetup(context.Background(), setupOpts(t, f, args...)); err != nil {
			t.Fatalf("setup: %v\n%s", err, out)
		}
		return out.String()
	}
	first := run(false)
	if !strings.Contains(first, "hooks and methodology written: "+filepath.Join(home, ".codex", "hooks.json")) ||
		!strings.Contains(first, filepath.Join(home, ".gemini", "settings.json")) || !strings.Contains(first, "/hooks") {
		t.Errorf("first run:\n%s", first)
	}
	if len(claude.calls) != 0 {
		t.Errorf("--client codex,gemini must not touch Claude Code: %q", claude.calls)
	}
	if again := run(false); strings.Count(again, "already up to date") != 2 {
		t.Errorf("second run:\n%s", again)
	}
	if gone := run(true); strings.Count(gone, "hooks and methodology removed") != 2 {
		t.Errorf("remove:\n%s", gone)
	}
	raw, _ := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if strings.Contains(string(raw), "vibe-") {
		t.Errorf("settings after remove: %s", raw)
	}
}
