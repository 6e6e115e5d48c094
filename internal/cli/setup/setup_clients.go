package setup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vibe-science/vibe/internal/client"
)

// setupClients installs (or, with --remove, removes) vibe's hooks and
// methodology for each client named with --client. Claude Code is the plugin
// registration; Codex and Gemini get their settings and context files.
func setupClients(ctx context.Context, o *SetupOptions) []SetupStep {
	var steps []SetupStep
	for _, name := range o.Clients {
		if name == client.Claude {
			if o.Remove {
				steps = append(steps, step("claude", true, "remove the plugin with `claude plugin uninstall vibe@vibe-science`", ""))
				continue
			}
			steps = append(steps, o.plugin().register(ctx, o.Recheck))
			continue
		}
		home := o.Getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		in, err := client.Locate(name, home)
		if err != nil {
			steps = append(steps, step(name, false, err.Error(), "use --client claude, codex or gemini"))
			continue
		}
		skill, err := os.ReadFile(filepath.Join(o.Root, "skill", "vibe", "SKILL.md"))
		if err != nil {
			steps = append(steps, step(name, false, err.Error(), "run setup from the vibe checkout (or set VIBE_PLUGIN_ROOT)"))
			continue
		}
		changed, err := in.Apply(o.Root, o.Getenv("VIBE_HOME"), client.Methodology(string(skill)), o.Remove)
		if err != nil {
			steps = append(steps, step(name, false, err.Error(), ""))
			continue
		}
		what := map[bool]string{true: "hooks and methodology written", false: "already up to date"}[changed]
		if o.Remove {
			what = map[bool]string{true: "hooks and methodology removed", false: "nothing of vibe's was there"}[changed]
		}
		s := step(name, true, fmt.Sprintf("%s: %s and %s", what, in.Settings, in.Context), "")
		if name == client.Codex && !o.Remove {
			s.Note, s.Fix = true, "Codex runs user hooks only once trusted: open `codex`, type /hooks and trust vibe's hooks (or run with --dangerously-bypass-hook-trust in automation); `vibe doctor` checks that Codex trusts them"
		}
		steps = append(steps, s)
	}
	return steps
}
