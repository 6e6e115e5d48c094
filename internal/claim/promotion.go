package claim

import (
	"slices"
	"strings"
)

// PromotionGate is the gate every promotion needs whatever the claim's
// tier: D1, the record that the claim survived attack (a ROBUST confounder
// harness for a quantitative claim, at least three falsification attempts,
// a finished counter-evidence search; skill/vibe/schemas/
// claim-promotion.schema.json), validated by `vibe gate run D1 --claim ID`.
const PromotionGate = "D1"

// PromotionGates returns the gates c needs before it may become PROMOTED or
// VERIFIED: its tier's (RequiredGates with table), then PromotionGate when
// the table does not list it. A fresh slice.
func PromotionGates(c Claim, table map[int][]string) []string {
	gates := RequiredGates(c, table)
	if !slices.Contains(gates, PromotionGate) {
		gates = append(gates, PromotionGate)
	}
	return gates
}

// Shortfall is what a claim still lacks for promotion: the one rule the
// hooks (PreToolUse on the proposed ledger, PostToolUse on the ledger on
// disk) and `vibe gate check` apply.
type Shortfall struct {
	// Required are the gates the promotion needs (PromotionGates).
	Required []string
	// Gates are those of Required with no PASS for the claim.
	Gates []string
	// Review says no Reviewer 2 report cites the claim (CitedClaims).
	Review bool
}

// None reports whether nothing is missing.
func (s Shortfall) None() bool { return len(s.Gates) == 0 && !s.Review }

// PromotionShortfall judges c's promotion: every gate of PromotionGates
// must have passed for it (passed holds the gates with a PASS), and a
// Reviewer 2 report must cite it (reviewed).
func PromotionShortfall(c Claim, table map[int][]string, passed map[string]bool, reviewed bool) Shortfall {
	s := Shortfall{Required: PromotionGates(c, table), Review: !reviewed}
	for _, g := range s.Required {
		if !passed[g] {
			s.Gates = append(s.Gates, g)
		}
	}
	return s
}

// Missing says in a few words what s lacks, each part with its fix:
// command(gate) gives the command that passes a gate for the claim, and
// record where the claim's D1 record is or goes.
func (s Shortfall) Missing(id string, command func(gate string) string, record string) string {
	var parts []string
	var codeGates []string
	for _, g := range s.Gates {
		if g == PromotionGate {
			continue
		}
		codeGates = append(codeGates, command(g))
	}
	if len(codeGates) > 0 {
		parts = append(parts, "gates not passed: "+strings.Join(codeGates, ", "))
	}
	if slices.Contains(s.Gates, PromotionGate) {
		parts = append(parts, "no D1 evidence: write "+record+
			" (confounder harness ROBUST, 3+ falsification attempts, a counter-evidence search; its shape: `vibe help schemas claim-promotion`), then "+command(PromotionGate))
	}
	if s.Review {
		parts = append(parts, "no Reviewer 2 report cites "+id+": run `/vibe:review "+id+"`")
	}
	return strings.Join(parts, "; ")
}
