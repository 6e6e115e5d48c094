package handler

import (
	"sort"

	"github.com/vibe-science/vibe/internal/artifact"
	"github.com/vibe-science/vibe/internal/hook"
)

// EventGates says, per hook event, which gates its handler runs: the one
// place the registry's Enforced field and the trigger columns of gates.md
// and SKILL.md are checked against (gates_test.go), each list taken from
// the code that runs the gates.
func EventGates() map[string][]string {
	return map[string][]string{
		hook.PreToolUse:  sortedCopy(PreToolUseGates),
		hook.PostToolUse: sortedCopy(append(artifact.Gates(), PostToolUseNets...)),
	}
}

// PostToolUseNets are the gates PostToolUse judges on disk besides the
// artifacts' (artifact.Gates), whatever wrote the file: D1 on a changed
// claim ledger (ledgerNet) and L-1 on a changed direction (directionNet).
var PostToolUseNets = []string{"D1", "L-1"}

// GateEvents inverts EventGates: for each gate, the hook events that run it,
// in the order PreToolUse, PostToolUse.
func GateEvents() map[string][]string {
	out := map[string][]string{}
	for _, ev := range []string{hook.PreToolUse, hook.PostToolUse} {
		for _, g := range EventGates()[ev] {
			out[g] = append(out[g], ev)
		}
	}
	return out
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
