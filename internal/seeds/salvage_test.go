package seeds

import (
	"context"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/claim"
	"github.com/vibe-science/vibe/internal/verdict"
)

func TestSalvageVerdict(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	startSession(t, st, "s1", "/p", t0)
	// C-007 was salvaged in an earlier session: the seed is in the database.
	stored := entry("SEED-20260110-001", StatusPendingTriage, SourceSalvaged, "C-007", 10, "Kept from C-007?")
	if _, err := Sync(ctx, st, "/p", "s1", []byte(stored), t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The file on disk now holds a valid seed for C-006 and a broken one for C-008.
	onDisk := stored + entry("SEED-20260112-001", StatusPendingTriage, SourceSalvaged, "C-006", 13, "Bulges?") +
		"## SEED-20260112-002: Broken\n- status: PENDING_TRIAGE\n- source: SALVAGED_FROM_R2\n- score: 5\n" +
		"- causal-question: q\n- discriminating-test: t\n- falsifiers: only one\n- salvaged-from: C-008\n- created: 2026-01-12\n"

	killed := func(id, reason string) claim.Claim {
		return claim.Claim{ID: id, Status: claim.StatusKilled, KillReason: reason}
	}
	tests := []struct {
		name   string
		c      claim.Claim
		file   string
		want   verdict.Result
		reason string
	}{
		{"not killed", claim.Claim{ID: "C-001", Status: claim.StatusPromoted}, "", verdict.Pass,
			"C-001 needs no salvaged seed (status PROMOTED, kill reason none)"},
		{"killed as artifact", killed("C-002", claim.KillArtifact), "", verdict.Pass,
			"C-002 needs no salvaged seed (status KILLED, kill reason ARTIFACT)"},
		{"killed logically false", killed("C-003", claim.KillLogicallyFalse), "", verdict.Pass,
			"C-003 needs no salvaged seed (status KILLED, kill reason LOGICALLY_FALSE)"},
		{"seed in the file", killed("C-006", claim.KillConfounded), onDisk, verdict.Pass,
			"C-006 is salvaged in SEED-20260112-001 (SERENDIPITY.md)"},
		{"seed only in the database", killed("C-007", claim.KillPremature), "", verdict.Pass,
			"C-007 is salvaged in SEED-20260110-001 (recorded earlier)"},
		{"seed broken", killed("C-008", claim.KillInsufficientEvidence), onDisk, verdict.HardBlock,
			"C-008 is killed for INSUFFICIENT_EVIDENCE and SEED-20260112-002 names it in salvaged-from, but that seed does not parse (SERENDIPITY.md line 19: SEED-20260112-002: at least 3 falsifiers are required (found 1): list ways the pattern could be an illusion); the Salvagente rule needs a valid seed: fix the entry in .vibe-science/SERENDIPITY.md, then write the kill again."},
		{"no seed", killed("C-009", claim.KillConfounded), onDisk, verdict.HardBlock,
			"C-009 is killed for CONFOUNDED, but no serendipity seed records what was salvaged from it (Salvagente rule): add a seed with source: SALVAGED_FROM_R2 and salvaged-from: C-009 to .vibe-science/SERENDIPITY.md and name it in the claim's salvaged-seed field, then write the kill again."},
		{"a seed of another claim does not count", killed("C-010", claim.KillPremature), onDisk, verdict.HardBlock,
			"C-010 is killed for PREMATURE, but no serendipity seed records what was salvaged from it (Salvagente rule): add a seed with source: SALVAGED_FROM_R2 and salvaged-from: C-010 to .vibe-science/SERENDIPITY.md and name it in the claim's salvaged-seed field, then write the kill again."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := SalvageVerdict(ctx, st, "/p", tt.c, []byte(tt.file))
			if v.Check != CheckSalvagente || v.Result != tt.want || v.Reason != tt.reason {
				t.Errorf("got %s %q\nwant %s %q", v.Result, v.Reason, tt.want, tt.reason)
			}
		})
	}
}

func TestSalvageVerdictWithoutDatabase(t *testing.T) {
	c := claim.Claim{ID: "C-006", Status: claim.StatusKilled, KillReason: claim.KillConfounded, SalvagedSeed: "SEED-20260112-004"}
	v := SalvageVerdict(context.Background(), nil, "/p", c, nil)
	if v.Result != verdict.HardBlock {
		t.Fatalf("got %s", v.Result)
	}
	want := "Add an entry like this to .vibe-science/SERENDIPITY.md:\n" +
		"## SEED-20260112-004: <the question C-006 leaves open>\n" +
		"- status: PENDING_TRIAGE\n- source: SALVAGED_FROM_R2\n- score: <0-20>\n" +
		"- causal-question: <what might cause what>\n- discriminating-test: <the one test that would tell>\n" +
		"- falsifiers: <illusion 1>; <illusion 2>; <illusion 3>\n- salvaged-from: C-006\n- created: <YYYY-MM-DD>"
	if v.Recommendation != want {
		t.Errorf("recommendation:\n%s\nwant\n%s", v.Recommendation, want)
	}
	// A closed database is an error: the file alone decides, and says so.
	st := openStore(t)
	st.Close()
	v = SalvageVerdict(context.Background(), st, "/p", c, nil)
	if v.Result != verdict.HardBlock || len(v.Evidence.Notes) != 1 {
		t.Errorf("closed db: %s %v", v.Result, v.Evidence.Notes)
	}
	ok := entry("SEED-20260112-004", StatusPendingTriage, SourceSalvaged, "C-006", 13, "Bulges?")
	if v := SalvageVerdict(context.Background(), st, "/p", c, []byte(ok)); v.Result != verdict.Pass {
		t.Errorf("closed db with the seed in the file: %s", v.Result)
	}
}
