package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/client"
)

// clientChecks checks each agent client vibe was set up for with
// `vibe setup --client`: its hooks, the binaries they run, plugin/guard.sh
// through which it runs vibe-pre-tool-use, that its context file holds
// the current methodology, and for Codex that it trusts the hooks (it runs
// no hook it has not). Clients never set up are not reported.
func clientChecks(ctx context.Context, o *DoctorOptions) []Check {
	home := o.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	skill, _ := os.ReadFile(filepath.Join(o.Root, "skill", "vibe", "SKILL.md"))
	var out []Check
	for _, name := range []string{client.Codex, client.Gemini} {
		in, err := client.Locate(name, home)
		if err != nil || !in.Installed() {
			continue
		}
		p := in.Check(o.Root, client.Methodology(string(skill)))
		if g := guardCheck(o.Root); g != "" { // failclosed.go
			p = append(p, g)
		}
		if len(p) > 0 {
			out = append(out, Check{name + " hooks", false, strings.Join(p, "; "), "run `vibe setup --client " + name + "` (and `make build`)"})
		} else {
			out = append(out, Check{name + " hooks", true, in.Settings + ", " + in.Context, ""})
		}
		if name == client.Codex {
			out = append(out, codexTrust(ctx, o, in, home))
		}
	}
	return out
}

// codexTrust asks Codex whether it trusts vibe's hooks: Codex runs a user
// hook only once the person has reviewed and trusted it in /hooks, and
// trusts it again after each change, so hooks that are installed and
// correct can still be hooks that never run.
func codexTrust(ctx context.Context, o *DoctorOptions, in client.Install, home string) Check {
	const name = "codex hook trust"
	codex, err := o.LookPath("codex")
	if err != nil {
		return Check{name, false, "codex is not on PATH, so vibe cannot ask it whether it trusts vibe's hooks (Codex runs no hook it has not trusted)",
			"put codex on PATH and run `vibe doctor` again; in codex, /hooks lists vibe's hooks to trust"}
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	hooks, err := o.AskCodex(ctx, codex, in.Settings, home)
	if err != nil {
		return Check{name, false, "could not ask " + codex + " which hooks it trusts: " + err.Error(),
			"open `codex` and type /hooks: vibe's hooks must be trusted and enabled"}
	}
	if problem, fix := client.TrustProblem(in.Settings, hooks); problem != "" {
		return Check{name, false, problem, fix}
	}
	return Check{name, true, fmt.Sprintf("%s trusts and runs vibe's %d hooks in %s", codex, len(hooks), in.Settings), ""}
}

// askCodex is DoctorOptions.AskCodex outside tests.
func askCodex(ctx context.Context, codex, settings, cwd string) ([]client.HookTrust, error) {
	return client.CodexTrust(ctx, codex, os.Environ(), settings, cwd)
}
