package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/client"
)

// preToolUseBinary is the hook that must refuse a call it cannot judge.
const preToolUseBinary = "vibe-pre-tool-use"

// failClosedVerified is the Claude Code release on which the E2E suite
// proved that "onFailure": "block" refuses the call when the binary
// crashes or answers JSON that fails validation (internal/e2e
// TestABrokenPreToolUseBinaryFailsClosed, and for a skill's shell command
// TestBrokenPreToolUseBinaryRefusesSkillShell); a missing binary is
// answered by plugin/bootstrap.sh (TestWithoutBinariesOnlyProtectedWritesAreRefused).
// No minimum version is claimed: none was tested.
const failClosedVerified = "2.1.332"

// guarded names what each fail-closed event protects, for the message
// when hooks.json does not run vibe-pre-tool-use on it.
var guarded = map[string]string{
	"PreToolUse":           "protected files are not guarded",
	"PreSkillShellCommand": "the shell commands in skills and slash commands run unjudged",
}

// failClosedCheck reads the plugin's hooks.json: every hook that runs
// vibe-pre-tool-use on a guarded event (PreToolUse, PreSkillShellCommand:
// client.Events) must carry "onFailure": "block", or Claude Code treats a
// binary that cannot start or crashes as "no opinion" and lets protected
// writes through. ok is false with nothing to report when hooks.json cannot
// be read (the hooks.json check says so).
func failClosedCheck(root string) (c Check, ok bool) {
	path := filepath.Join(root, "hooks.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return Check{}, false
	}
	const name, fix = "fails closed", "restore hooks.json from the vibe checkout (`git checkout hooks.json`) and restart Claude Code"
	var h struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command   string   `json:"command"`
				Args      []string `json:"args"`
				OnFailure string   `json:"onFailure"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return Check{name, false, path + " is not valid JSON: " + err.Error(), fix}, true
	}
	var events []string
	for _, e := range client.Events[client.Claude] {
		if !e.Guarded {
			continue
		}
		events = append(events, e.Name)
		found := 0
		for _, g := range h.Hooks[e.Name] {
			for _, hk := range g.Hooks {
				if !runs(hk.Command, hk.Args, e.Binary) {
					continue
				}
				found++
				if hk.OnFailure != "block" {
					return Check{name, false, path + ": the " + e.Name + ` hook lacks "onFailure": "block", so a missing or crashing ` +
						e.Binary + " would let protected writes through", fix}, true
				}
			}
		}
		if found == 0 {
			return Check{name, false, path + " runs no " + e.Binary + " on " + e.Name + ": " + guarded[e.Name], fix}, true
		}
	}
	return Check{name, true, strings.Join(events, " and ") + ` have "onFailure": "block" (a binary that crashes refuses the call; verified on Claude Code ` +
		failClosedVerified + ")", ""}, true
}

// runs reports whether a hook with command and args runs the binary:
// plugin/hook.sh with the binary as its one argument, as the shipped
// hooks.json does, or "${CLAUDE_PLUGIN_ROOT}/bin/<binary>" itself, as the
// plugin's bootstrap rewrites it once bin/ is filled (docs/install.md).
func runs(command string, args []string, binary string) bool {
	if strings.HasSuffix(command, "/bin/"+binary) {
		return true
	}
	return strings.HasSuffix(command, "/plugin/hook.sh") && len(args) == 1 && args[0] == binary
}

// guardCheck is the problem with plugin/guard.sh, through which the clients
// without onFailure (Codex, Gemini) run vibe-pre-tool-use so that it fails
// closed; "" when it is there and executable.
func guardCheck(root string) string {
	guard := filepath.Join(root, "plugin", "guard.sh")
	if info, err := os.Stat(guard); err != nil || info.Mode()&0o111 == 0 {
		return guard + " is missing or not executable (it runs " + preToolUseBinary + " fail-closed); restore it from git and `chmod +x` it"
	}
	return ""
}
