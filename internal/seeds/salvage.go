package seeds

import (
	"context"
	"fmt"
	"strings"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/verdict"
)

// CheckSalvagente is the check of the Salvagente verdict.
const CheckSalvagente = "salvagente"

// NeedsSalvage reports whether a kill must be salvaged: a claim killed for
// insufficient evidence, confounding or prematurity may still hold a good
// question (the JavaScript reference and the ledger format agree on these
// three; ARTIFACT and LOGICALLY_FALSE need no seed).
func NeedsSalvage(c claim.Claim) bool {
	if c.Status != claim.StatusKilled {
		return false
	}
	switch c.KillReason {
	case claim.KillInsufficientEvidence, claim.KillConfounded, claim.KillPremature:
		return true
	}
	return false
}

// SalvageVerdict judges a ledger write that kills a claim (the Salvagente
// rule, LAW 5 for killed claims): when the claim needs salvage, a seed must
// record that it was salvaged from this claim (salvaged-from: the claim id),
// either already in the database or valid in serendipity (the content of
// .vibe-science/SERENDIPITY.md on disk). Otherwise the write is denied
// (HARD_BLOCK) with an example entry to add. st may be nil, and a database
// error falls back to the file alone: the file is where seeds live, the
// database only mirrors it. That the ledger names the seed in the claim's
// salvaged-seed field is claim.MissingSalvage's check, not this one.
func SalvageVerdict(ctx context.Context, st Salvaged, project string, killed claim.Claim, serendipity []byte) verdict.Verdict {
	input := map[string]any{"claim": killed.ID, "status": killed.Status, "kill_reason": killed.KillReason}
	if !NeedsSalvage(killed) {
		return verdict.New(CheckSalvagente, verdict.Pass, verdict.Low,
			fmt.Sprintf("%s needs no salvaged seed (status %s, kill reason %s)", killed.ID, orNone(killed.Status), orNone(killed.KillReason)), input)
	}
	var broken []Seed
	parsed, _ := Parse(serendipity)
	for _, s := range parsed {
		if s.SalvagedFrom != killed.ID {
			continue
		}
		if s.Valid() {
			v := verdict.New(CheckSalvagente, verdict.Pass, verdict.Low,
				fmt.Sprintf("%s is salvaged in %s (SERENDIPITY.md)", killed.ID, s.ID), input)
			v.Evidence.Claims = []string{killed.ID}
			v.Evidence.Notes = []string{s.ID}
			return v
		}
		broken = append(broken, s)
	}
	var dbNote string
	if st != nil {
		rs, err := st.SeedsSalvagedFrom(ctx, project, killed.ID)
		switch {
		case err != nil:
			dbNote = "the database could not be read, so only SERENDIPITY.md was checked"
		case len(rs) > 0:
			v := verdict.New(CheckSalvagente, verdict.Pass, verdict.Low,
				fmt.Sprintf("%s is salvaged in %s (recorded earlier)", killed.ID, rs[0].SeedID), input)
			v.Evidence.Claims = []string{killed.ID}
			v.Evidence.Notes = []string{rs[0].SeedID}
			return v
		}
	}
	var reason string
	if len(broken) > 0 {
		s := broken[0]
		reason = fmt.Sprintf("%s is killed for %s and %s names it in salvaged-from, but that seed does not parse (%s); the Salvagente rule needs a valid seed: fix the entry in .vibe-science/SERENDIPITY.md, then write the kill again.",
			killed.ID, killed.KillReason, s.ID, s.Errors[0].Error())
	} else {
		reason = fmt.Sprintf("%s is killed for %s, but no serendipity seed records what was salvaged from it (Salvagente rule): add a seed with source: SALVAGED_FROM_R2 and salvaged-from: %s to .vibe-science/SERENDIPITY.md and name it in the claim's salvaged-seed field, then write the kill again.",
			killed.ID, killed.KillReason, killed.ID)
	}
	v := verdict.New(CheckSalvagente, verdict.HardBlock, verdict.High, reason, input)
	v.Recommendation = "Add an entry like this to .vibe-science/SERENDIPITY.md:\n" + ExampleEntry(killed)
	v.Evidence.Claims = []string{killed.ID}
	v.Evidence.Paths = []string{".vibe-science/SERENDIPITY.md", ".vibe-science/CLAIM-LEDGER.md"}
	if dbNote != "" {
		v.Evidence.Notes = []string{dbNote}
	}
	return v
}

// ExampleEntry is a SERENDIPITY.md entry to fill in for a killed claim, with
// the seed id the claim names when it names one.
func ExampleEntry(killed claim.Claim) string {
	id := killed.SalvagedSeed
	if id == "" {
		id = "SEED-YYYYMMDD-NNN"
	}
	lines := []string{
		fmt.Sprintf("## %s: <the question %s leaves open>", id, killed.ID),
		"- status: PENDING_TRIAGE",
		"- source: SALVAGED_FROM_R2",
		"- score: <0-20>",
		"- causal-question: <what might cause what>",
		"- discriminating-test: <the one test that would tell>",
		"- falsifiers: <illusion 1>; <illusion 2>; <illusion 3>",
		"- salvaged-from: " + killed.ID,
		"- created: <YYYY-MM-DD>",
	}
	return strings.Join(lines, "\n")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
