package resume

import (
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// Pickup renders project_pickup.md: where the work stands, open claims,
// pending gates, pending seeds, open alerts, next steps and how to resume.
// It is vibe's own file, rewritten whole at each session end.
func Pickup(f Facts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Project pickup: %s\n\n", f.Project.Name())
	if f.Session != nil {
		fmt.Fprintf(&b, "Written by vibe at %s, after session %s. ", stamp(f.Now), shortID(f.Session.ID))
	} else {
		fmt.Fprintf(&b, "Written by vibe at %s. ", stamp(f.Now))
	}
	b.WriteString("vibe rewrites this file at every session end; keep your own notes in STATE.md, outside vibe's markers.\n")

	b.WriteString("\n## Where the work stands\n\n")
	if f.Phase != "" {
		fmt.Fprintf(&b, "Phase (from STATE.md): %s\n\n", f.Phase)
	}
	if f.Session != nil && strings.TrimSpace(f.Session.NarrativeSummary) != "" {
		b.WriteString(strings.TrimSpace(f.Session.NarrativeSummary))
		b.WriteString("\n")
	} else {
		b.WriteString("No session summary recorded yet.\n")
	}

	b.WriteString("\n## Open claims\n\n")
	if len(f.Claims) == 0 {
		b.WriteString("None in CLAIM-LEDGER.md.\n")
	}
	for _, c := range f.Claims {
		b.WriteString("- " + claimLine(c))
		if g := f.MissingGates[c.ID]; len(g) > 0 {
			b.WriteString("; gates still needed: " + strings.Join(g, ", "))
		}
		b.WriteString("\n")
	}
	if f.LedgerErrors > 0 {
		fmt.Fprintf(&b, "\n%d ledger entries do not parse; `vibe gate check` lists them with the fix.\n", f.LedgerErrors)
	}

	b.WriteString("\n## Pending gates\n\n")
	pending := f.pendingGateItems()
	if len(pending) == 0 && len(f.Failing) == 0 {
		b.WriteString("None.\n")
	}
	for _, c := range f.Claims {
		for _, g := range f.MissingGates[c.ID] {
			fmt.Fprintf(&b, "- %s for %s: `vibe gate run %s --claim %s`\n", g, c.ID, g, c.ID)
		}
	}
	for _, g := range f.Failing {
		fmt.Fprintf(&b, "- %s failed at %s and was not passed since: fix the cause, then run it again\n", gateLabel(g), stamp(g.At))
	}

	b.WriteString("\n## Pending seeds\n\n")
	if len(f.Seeds) == 0 {
		b.WriteString("None.\n")
	}
	for _, s := range f.Seeds {
		fmt.Fprintf(&b, "- %s (%s, pending %d sessions", s.SeedID, s.Status, s.SessionsPending)
		if s.Escalated {
			b.WriteString(", escalated")
		}
		b.WriteString(")")
		if q := oneLine(s.CausalQuestion, 160); q != "" {
			b.WriteString(": " + q)
		}
		b.WriteString("\n")
	}

	b.WriteString("\n## Open alerts\n\n")
	if len(f.Alerts) == 0 {
		b.WriteString("None.\n")
	}
	for _, a := range f.Alerts {
		fmt.Fprintf(&b, "- #%d %s %s: %s\n", a.ID, a.Level, a.Check, oneLine(a.Message, 300))
	}
	if n := f.AlertCounts.Total(); n > len(f.Alerts) {
		fmt.Fprintf(&b, "- … %d more: `vibe alerts list`\n", n-len(f.Alerts))
	}

	b.WriteString("\n## Next steps\n\n")
	steps := f.nextSteps()
	if len(f.Next) > 0 {
		b.WriteString("From STATE.md:\n\n")
		for _, l := range f.Next {
			b.WriteString(l + "\n")
		}
		if len(steps) > 0 {
			b.WriteString("\nFrom vibe's records:\n\n")
		}
	}
	for _, s := range steps {
		b.WriteString("- " + s + "\n")
	}
	if len(f.Next) == 0 && len(steps) == 0 {
		b.WriteString("Nothing is pending in vibe's records; write the next step under a \"## Next\" heading in STATE.md.\n")
	}

	b.WriteString("\n## How to resume\n\n")
	fmt.Fprintf(&b, "1. Start Claude Code in `%s`: vibe's SessionStart hook injects this state, recalled memories, alerts and pending seeds.\n", f.Project.Root)
	b.WriteString("2. `vibe status` for the overview, `vibe alerts list` for open alerts")
	if f.Session != nil {
		fmt.Fprintf(&b, ", `vibe sessions show %s` for what the last session did", shortID(f.Session.ID))
	}
	b.WriteString(".\n")
	b.WriteString("3. Read `.vibe-science/STATE.md`, `CLAIM-LEDGER.md` and the end of `PROGRESS.md` (LAW 7); without the database, these files and this note are the whole state.\n")
	return privacy.Scrub(b.String()) // what the database held before a secret rule existed
}

func claimLine(c claim.Claim) string {
	s := c.ID + " " + orDash(c.Status)
	var attrs []string
	if c.Type != "" {
		attrs = append(attrs, c.Type)
	}
	if c.HasConfidence {
		attrs = append(attrs, fmt.Sprintf("confidence %.2f", c.Confidence))
	}
	if len(attrs) > 0 {
		s += " (" + strings.Join(attrs, ", ") + ")"
	}
	if c.Title != "" {
		s += ": " + oneLine(c.Title, 160)
	}
	return s
}

// nextSteps derives the next steps from vibe's records, most pressing first:
// HALT alerts, failing gates, claims that need gates, disputed claims, seeds
// waiting for triage, other alerts.
func (f Facts) nextSteps() []string {
	var out []string
	var warn []record.Alert
	for _, a := range f.Alerts {
		if a.Level == record.AlertHalt {
			out = append(out, fmt.Sprintf("Fix HALT alert #%d (%s), then `vibe alerts resolve %d`: writes are denied until it is resolved.", a.ID, a.Check, a.ID))
		} else {
			warn = append(warn, a)
		}
	}
	if len(f.Failing) > 0 {
		items := make([]string, len(f.Failing))
		for i, g := range f.Failing {
			items[i] = gateLabel(g)
		}
		out = append(out, "Fix and rerun the failing gates: "+capped(items, maxListed)+".")
	}
	if p := f.pendingGateItems(); len(p) > 0 {
		out = append(out, "Run the gates the provisional claims need before promotion: "+cappedSep(p, maxListed, "; ")+".")
	}
	var disputed []string
	for _, c := range f.Claims {
		if c.Status == claim.StatusDisputed {
			disputed = append(disputed, c.ID)
		}
	}
	if len(disputed) > 0 {
		out = append(out, "Settle the disputed claims with new evidence or kill them with a reason: "+capped(disputed, maxListed)+".")
	}
	if len(f.Seeds) > 0 {
		items := make([]string, 0, len(f.Seeds))
		for _, s := range f.Seeds {
			if s.Status == "PENDING_TRIAGE" {
				items = append(items, s.SeedID)
			}
		}
		if len(items) > 0 {
			out = append(out, "Triage the seeds waiting in SERENDIPITY.md (LAW 5): "+capped(items, maxListed)+".")
		}
	}
	if len(warn) > 0 {
		items := make([]string, len(warn))
		for i, a := range warn {
			items[i] = fmt.Sprintf("#%d %s", a.ID, a.Check)
		}
		out = append(out, "Look at the open alerts: "+capped(items, maxListed)+".")
	}
	return out
}
