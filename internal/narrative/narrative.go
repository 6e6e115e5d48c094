// Package narrative writes a session's summary from its recorded facts with
// a fixed template: no language model, so the same facts always give the
// same text and nothing is invented. It imports the plain records
// (internal/store/record) and the standard library only, never the store.
package narrative

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/store/record"
)

// MaxLines caps each list section so a long session still summarises in a
// few hundred tokens.
const MaxLines = 8

// Build renders the summary.
func Build(f record.SessionFacts) string {
	var b strings.Builder
	id := f.SessionID
	if len(id) > 8 {
		id = id[:8]
	}
	fmt.Fprintf(&b, "Session %s: %d actions", id, f.Total)
	if f.Total > 0 {
		keys := make([]string, 0, len(f.Actions))
		for k := range f.Actions {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if f.Actions[keys[i]] != f.Actions[keys[j]] {
				return f.Actions[keys[i]] > f.Actions[keys[j]]
			}
			return keys[i] < keys[j]
		})
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, f.Actions[k])
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
	}
	b.WriteString(".")

	if len(f.Claims) > 0 {
		b.WriteString("\nClaims:")
		for i, c := range f.Claims {
			if i == MaxLines {
				fmt.Fprintf(&b, "\n- … %d more", len(f.Claims)-MaxLines)
				break
			}
			fmt.Fprintf(&b, "\n- %s %s", c.ClaimID, c.EventType)
			if c.NewStatus != "" && c.NewStatus != c.EventType {
				fmt.Fprintf(&b, " → %s", c.NewStatus)
			}
			if c.Confidence != nil {
				fmt.Fprintf(&b, " (confidence %.2f)", *c.Confidence)
			}
			if c.KillReason != "" {
				fmt.Fprintf(&b, ", reason %s", c.KillReason)
			}
		}
	}

	var failed, passed []string
	seenPass := map[string]bool{}
	for _, g := range f.Gates {
		name := g.GateID
		if g.ClaimID != "" {
			name += " (" + g.ClaimID + ")"
		}
		switch g.Status {
		case "FAIL":
			failed = append(failed, name)
		case "PASS":
			if !seenPass[name] {
				seenPass[name] = true
				passed = append(passed, name)
			}
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "\nGates failed: %s.", strings.Join(limit(failed), ", "))
	}
	if len(passed) > 0 {
		fmt.Fprintf(&b, "\nGates passed: %s.", strings.Join(limit(passed), ", "))
	}
	if len(f.Corrections) > 0 {
		b.WriteString("\nCorrections and decisions:")
		for i, c := range f.Corrections {
			if i == MaxLines {
				fmt.Fprintf(&b, "\n- … %d more", len(f.Corrections)-MaxLines)
				break
			}
			fmt.Fprintf(&b, "\n- [%s] %s", c.ActionType, c.InputSummary)
		}
	}
	if len(f.Literature) > 0 {
		fmt.Fprintf(&b, "\nLiterature consulted: %s.", strings.Join(limit(f.Literature), "; "))
	}
	return b.String()
}

func limit(xs []string) []string {
	if len(xs) <= MaxLines {
		return xs
	}
	return append(xs[:MaxLines:MaxLines], fmt.Sprintf("… %d more", len(xs)-MaxLines))
}
