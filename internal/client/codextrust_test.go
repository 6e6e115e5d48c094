package client

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCodex writes a `codex` that speaks app-server's JSON-RPC: it answers
// initialize, sends a notification first, and answers hooks/list with the
// recorded Codex 0.171.0 answer named (testdata/clients/codex-0.171.0),
// its $HOME, $VIBE_HOME and $ROOT made this test's.
func fakeCodex(t *testing.T, recording, home string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "clients", "codex-0.171.0", "hooks-list-"+recording+".json"))
	if err != nil {
		t.Fatal(err)
	}
	answer := strings.NewReplacer("$HOME", home, "$VIBE_HOME", "/vh", "$ROOT", "/opt/vibe").Replace(string(raw))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "answer.json"), []byte(answer), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
[ "$1" = app-server ] || exit 3
while read -r line; do
	case $line in
	*'"id":1,'*) echo '{"id":1,"result":{"userAgent":"fake"}}' ;;
	*'"id":2,'*) echo '{"method":"thread/started","params":{}}'; echo '{"id":0,"method":"item/approve","params":{}}'; cat "` + filepath.Join(dir, "answer.json") + `" ;;
	esac
done
`
	bin := filepath.Join(dir, "codex")
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestCodexTrust(t *testing.T) {
	home := t.TempDir()
	in, _ := Locate(Codex, home)
	for _, c := range []struct {
		recording, settings, problem string
	}{
		{"untrusted", in.Settings, "Codex will not run 8 of vibe's 8 hooks (untrusted: PreToolUse, PostToolUse, PreCompact, SessionStart, SessionEnd, UserPromptSubmit, SubagentStop, Stop): it runs no untrusted hook, so nothing the agent does in Codex is judged"},
		{"modified", in.Settings, "Codex will not run 2 of vibe's 8 hooks (changed since trusted: PreToolUse, PostToolUse): it runs no untrusted hook, so nothing the agent does in Codex is judged"},
		{"trusted", in.Settings, ""},
		{"trusted", filepath.Join(home, "elsewhere", "hooks.json"), "Codex does not list vibe's PreToolUse, PostToolUse, PreCompact, SessionStart, SessionEnd, UserPromptSubmit, SubagentStop, Stop hooks from " + filepath.Join(home, "elsewhere", "hooks.json")},
	} {
		hooks, err := CodexTrust(context.Background(), fakeCodex(t, c.recording, home), os.Environ(), c.settings, home)
		if err != nil {
			t.Fatalf("%s: %v", c.recording, err)
		}
		problem, fix := TrustProblem(c.settings, hooks)
		if problem != c.problem {
			t.Errorf("%s:\n got %q\nwant %q", c.recording, problem, c.problem)
		}
		if (fix == "") != (c.problem == "") || (fix != "" && !strings.Contains(fix, "/hooks")) {
			t.Errorf("%s: fix %q", c.recording, fix)
		}
	}
}

func TestCodexTrustFailures(t *testing.T) {
	dir := t.TempDir()
	silent := filepath.Join(dir, "codex")
	os.WriteFile(silent, []byte("#!/bin/sh\nread -r l\nexit 0\n"), 0o755)
	if _, err := CodexTrust(context.Background(), silent, os.Environ(), "/x/hooks.json", dir); err == nil || !strings.Contains(err.Error(), "closed its output before answering initialize") {
		t.Errorf("a codex that says nothing: %v", err)
	}
	refusing := filepath.Join(dir, "codex-err")
	os.WriteFile(refusing, []byte("#!/bin/sh\nread -r l; echo '{\"id\":1,\"error\":{\"message\":\"no such method\"}}'\nsleep 5\n"), 0o755)
	if _, err := CodexTrust(context.Background(), refusing, os.Environ(), "/x/hooks.json", dir); err == nil || err.Error() != "codex app-server initialize: no such method" {
		t.Errorf("a codex that refuses: %v", err)
	}
	if _, err := CodexTrust(context.Background(), filepath.Join(dir, "missing"), os.Environ(), "/x/hooks.json", dir); err == nil || !strings.Contains(err.Error(), "start codex app-server") {
		t.Errorf("no codex: %v", err)
	}
}
