// Package hooks is the registry of vibe's hook handlers by name, so one
// binary (vibe-hook) and the embed worker can run any of them through
// hookrun. It holds no logic of its own.
package hooks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/posttool"
	"github.com/vibe-science/vibe/internal/pretool"
	"github.com/vibe-science/vibe/internal/promptsubmit"
	"github.com/vibe-science/vibe/internal/sessionend"
	"github.com/vibe-science/vibe/internal/sessionstart"
	"github.com/vibe-science/vibe/internal/stopturn"
)

// Specs are the hooks by the name their binary carries after "vibe-".
var Specs = map[string]hookrun.Spec{
	"session-start": sessionstart.Spec,
	"prompt-submit": promptsubmit.Spec,
	"pre-tool-use":  pretool.Spec,
	"post-tool-use": posttool.Spec,
	"stop":          stopturn.Spec,
	"session-end":   sessionend.Spec,
}

// Names lists the hook names, sorted.
func Names() []string {
	out := make([]string, 0, len(Specs))
	for n := range Specs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Lookup returns a hook's spec.
func Lookup(name string) (hookrun.Spec, error) {
	s, ok := Specs[name]
	if !ok {
		return hookrun.Spec{}, fmt.Errorf("no hook %q (hooks: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}
