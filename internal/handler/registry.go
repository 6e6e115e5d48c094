package handler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/hookrun"
)

// Specs are the hooks by the name their binary carries after "vibe-".
var Specs = map[string]hookrun.Spec{
	"session-start": SessionStart,
	"prompt-submit": PromptSubmit,
	"pre-tool-use":  PreToolUse,
	"post-tool-use": PostToolUse,
	"stop":          Stop,
	"session-end":   SessionEnd,
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
