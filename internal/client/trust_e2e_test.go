//go:build e2e

package client_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/client"
)

// TestDoctorKnowsCodexTrust drives the pinned Codex: after `vibe setup
// --client codex` (client.Install.Apply), `vibe doctor` fails on the
// hooks Codex has not trusted and says how to trust them; once they are
// trusted as the TUI's /hooks does it (config/batchWrite of
// hooks.state.<key>.trusted_hash through codex app-server), doctor passes,
// and Codex run without --dangerously-bypass-hook-trust runs them: the
// shell write to the claim ledger is refused.
func TestDoctorKnowsCodexTrust(t *testing.T) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	codex := installClient(t, client.Codex)
	files := map[string]string{".vibe-science/CLAIM-LEDGER.md": "# Claim ledger\n"}
	script := []step{
		{Tool: "exec_command", Args: map[string]any{"cmd": "sed -i 's/ledger/LEDGER/' .vibe-science/CLAIM-LEDGER.md"}},
		{Say: "done"},
	}
	doctor := func(t *testing.T, env []string) map[string]any {
		t.Helper()
		cmd := exec.Command(filepath.Join(root, "bin", "vibe"), "doctor", "--json")
		cmd.Env = append(env, "PATH="+filepath.Dir(codex)+":"+os.Getenv("PATH"))
		out, _ := cmd.Output() // doctor exits 1 when a check fails
		var report struct {
			Checks []map[string]any `json:"checks"`
		}
		if err := json.Unmarshal(out, &report); err != nil {
			t.Fatalf("vibe doctor --json: %v\n%s", err, out)
		}
		for _, c := range report.Checks {
			if c["name"] == "codex hook trust" {
				return c
			}
		}
		t.Fatalf("vibe doctor has no codex hook trust check:\n%s", out)
		return nil
	}
	r, m := runClient(t, client.Codex, files, script, "fix the ledger", runOption{trusted: true, before: func(r *clientRun, env []string) {
		settings := filepath.Join(r.home, ".codex", "hooks.json")
		c := doctor(t, env)
		if c["ok"] != false || !strings.HasPrefix(c["detail"].(string), "Codex will not run 8 of vibe's 8 hooks (untrusted: ") ||
			!strings.Contains(c["fix"].(string), "type /hooks") {
			t.Errorf("before trust, doctor says %v", c)
		}
		trustAll(t, codex, env, r.home, settings)
		if c := doctor(t, env); c["ok"] != true || c["detail"] != codex+" trusts and runs vibe's 8 hooks in "+settings {
			t.Errorf("after trust, doctor says %v", c)
		}
	}})
	if b, _ := os.ReadFile(filepath.Join(r.proj, ".vibe-science/CLAIM-LEDGER.md")); string(b) != "# Claim ledger\n" {
		t.Errorf("the trusted hooks did not refuse the ledger write: %q\n%s", b, r.out)
	}
	if reqs := m.requests(); len(reqs) < 2 || !strings.Contains(reqs[1], "This command writes .vibe-science/CLAIM-LEDGER.md") {
		t.Errorf("the model did not read the ledger refusal (%d requests)", len(reqs))
	}
}

// trustAll trusts every hook of settings as the TUI's /hooks review does:
// it asks codex app-server for each hook's key and current hash and writes
// them to hooks.state in config.toml.
func trustAll(t *testing.T, codex string, env []string, cwd, settings string) {
	t.Helper()
	srv, err := client.StartAppServer(context.Background(), codex, env, cwd)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	raw, err := srv.Call(2, "hooks/list", map[string]any{"cwds": []string{cwd}})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct {
			Hooks []struct {
				Key, CurrentHash, SourcePath string
			} `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	state := map[string]any{}
	for _, d := range list.Data {
		for _, h := range d.Hooks {
			if h.SourcePath == settings {
				state[h.Key] = map[string]string{"trusted_hash": h.CurrentHash}
			}
		}
	}
	if len(state) == 0 {
		t.Fatalf("codex lists no hooks from %s", settings)
	}
	if _, err := srv.Call(3, "config/batchWrite", map[string]any{"edits": []any{map[string]any{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": state}}}); err != nil {
		t.Fatal(err)
	}
}
