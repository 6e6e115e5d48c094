package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	vibeclient "github.com/vibe-science/vibe/internal/client"
)

// Checks of the plugin as a folder (no client needed); the E2E suite also
// runs `claude plugin validate --strict` on it.

func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestForensicB1: plugin.json is valid and every component it names exists.
func TestForensicB1(t *testing.T) {
	var m struct {
		Name     string   `json:"name"`
		Version  string   `json:"version"`
		Hooks    string   `json:"hooks"`
		Skills   string   `json:"skills"`
		Commands string   `json:"commands"`
		Agents   []string `json:"agents"`
	}
	if err := json.Unmarshal(repoFile(t, ".claude-plugin/plugin.json"), &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "vibe" || m.Version == "" || m.Hooks != "./hooks.json" || len(m.Agents) != 4 {
		t.Errorf("manifest %+v", m)
	}
	for _, p := range append([]string{m.Hooks, m.Skills + "vibe/SKILL.md", m.Commands + "init.md"}, m.Agents...) {
		if _, err := os.Stat(filepath.Join("..", "..", p)); err != nil {
			t.Errorf("plugin.json names %s: %v", p, err)
		}
	}
	var mk struct {
		Plugins []struct{ Name, Source string } `json:"plugins"`
	}
	if err := json.Unmarshal(repoFile(t, ".claude-plugin/marketplace.json"), &mk); err != nil || len(mk.Plugins) != 1 || mk.Plugins[0].Name != "vibe" {
		t.Errorf("marketplace.json: %v %+v", err, mk)
	}
}

// TestForensicB2: hooks.json registers exactly the Claude Code events that
// client.Events marks registered, each with its binary (run through
// plugin/hook.sh, which execs bin/<binary> or, while the binaries are not
// installed, answers through plugin/bootstrap.sh: docs/install.md) in exec
// form and its timeout, and nothing for an event the table ignores. The blueprint's
// "Setup hook" is the Setup event (Claude Code ships it: `claude --init`),
// served by vibe-session-start; `vibe setup` does the same from the CLI.
// The guarded events (PreToolUse, PreSkillShellCommand) run their binary
// alone with "onFailure": "block", so the client refuses the call when the
// binary cannot start, crashes or answers JSON that fails validation; every
// other hook keeps the client's default ("continue"), since a broken
// UserPromptSubmit or SessionStart must not block the session. The E2E
// suite validates the file with the real client
// (TestVibePluginValidatesStrict), proves the refusal
// (TestABrokenPreToolUseBinaryFailsClosed) and checks the table against the
// events the installed client ships (internal/client TestEventInventory).
func TestForensicB2(t *testing.T) {
	var h struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command   string   `json:"command"`
				Args      []string `json:"args"`
				Timeout   int      `json:"timeout"`
				OnFailure string   `json:"onFailure"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(repoFile(t, "hooks.json"), &h); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range vibeclient.Events[vibeclient.Claude] {
		seen[e.Name] = true
		groups := h.Hooks[e.Name]
		if !e.Registered() {
			if len(groups) > 0 {
				t.Errorf("hooks.json registers %s, which client.Events ignores (%s)", e.Name, e.Ignored)
			}
			continue
		}
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Errorf("%s: %d groups, want 1 with 1 hook", e.Name, len(groups))
			continue
		}
		c := groups[0].Hooks[0]
		if c.Command != "${CLAUDE_PLUGIN_ROOT}/plugin/hook.sh" || len(c.Args) != 1 || c.Args[0] != e.Binary {
			t.Errorf("%s runs %q %q, want ${CLAUDE_PLUGIN_ROOT}/plugin/hook.sh in exec form with args [%s]", e.Name, c.Command, c.Args, e.Binary)
		}
		if c.Timeout != e.Timeout {
			t.Errorf("%s: timeout %d, client.Events says %d", e.Name, c.Timeout, e.Timeout)
		}
		if want := map[bool]string{true: "block"}[e.Guarded]; c.OnFailure != want {
			t.Errorf("%s %s: onFailure %q, want %q (only the guarded events fail closed)", e.Name, c.Command, c.OnFailure, want)
		}
	}
	for ev := range h.Hooks {
		if !seen[ev] {
			t.Errorf("hooks.json registers %s, which client.Events does not list", ev)
		}
	}
}

// TestForensicH1: the README's two commands install and test.
func TestForensicH1(t *testing.T) {
	readme := string(repoFile(t, "README.md"))
	for _, want := range []string{"```sh\nmake install\n```", "```sh\nmake test\n```", "vibe setup"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	if ci := string(repoFile(t, ".ci/run")); !strings.Contains(ci, "make test") {
		t.Error(".ci/run does not call the README's test command")
	}
}

// TestForensicH2: the blueprints the docs refer to ship (domain configs and
// the literature registry).
func TestForensicH2(t *testing.T) {
	for _, d := range []string{"generic", "crispr-off-target", "photonics-integrated", "particle-physics"} {
		var cfg map[string]any
		if err := json.Unmarshal(repoFile(t, "blueprints/domains/"+d+".json"), &cfg); err != nil || cfg["literature"] == nil {
			t.Errorf("domain %s: %v (literature section present: %v)", d, err, cfg["literature"] != nil)
		}
	}
	var reg struct {
		Total     int            `json:"total"`
		Databases map[string]any `json:"databases"`
	}
	if err := json.Unmarshal(repoFile(t, "blueprints/literature-registry.json"), &reg); err != nil || reg.Total < 100 {
		t.Errorf("literature registry: %v total %d", err, reg.Total)
	}
}

// TestForensicH3: domain-config.json is documented where a researcher looks
// (the skill) with its literature section and thresholds.
func TestForensicH3(t *testing.T) {
	var found bool
	filepath.Walk(filepath.Join("..", "..", "skill", "vibe"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			s := string(b)
			if strings.Contains(s, "domain-config.json") && strings.Contains(s, "literature") && strings.Contains(s, "dq2") {
				found = true
			}
		}
		return nil
	})
	if !found {
		t.Error("no skill document explains domain-config.json with its literature section and thresholds")
	}
}
