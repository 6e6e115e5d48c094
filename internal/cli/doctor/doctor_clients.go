package doctor

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/vibe-science/vibe/internal/client"
)

// clientChecks checks each agent client vibe was set up for with
// `vibe setup --client`: its hooks, the binaries they run, plugin/guard.sh
// through which it runs vibe-pre-tool-use, and that its context file holds
// the current methodology. Clients never set up are not
// reported.
func clientChecks(o *DoctorOptions) []Check {
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
	}
	return out
}
