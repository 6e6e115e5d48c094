package disclosure

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/recall"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

var update = flag.Bool("update", false, "rewrite golden files")

var now = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

const project = "/lab/crispr-offtarget"

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "vibe.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// research builds a project the way the hooks leave it: two sessions, the
// last one with a long narrative, claims, a failing gate, and memories.
func research(t testing.TB, st *store.Store, narrative string) {
	t.Helper()
	ctx := context.Background()
	must(t, st.Tx(ctx, func(tx *store.Tx) error {
		ended := now.Add(-40 * time.Hour)
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "sess-prev-1", ProjectPath: project, At: now.Add(-48 * time.Hour), Start: true}); err != nil {
			return err
		}
		if err := tx.SaveSummary(ctx, record.SessionSummary{ID: "sess-prev-1", Narrative: narrative, EndedAt: &ended, EndReason: "exit"}); err != nil {
			return err
		}
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "sess-now-2", ProjectPath: project, At: now, Start: true}); err != nil {
			return err
		}
		return tx.AddClaimEvents(ctx, "sess-prev-1", project, now.Add(-47*time.Hour), []record.ClaimEvent{
			{ClaimID: "C-007", Type: "CREATED", NewStatus: "PROVISIONAL"},
			{ClaimID: "C-009", Type: "CREATED", NewStatus: "PROVISIONAL"},
			{ClaimID: "C-009", Type: "KILLED", NewStatus: "KILLED", KillReason: "ARTIFACT"},
		})
	}))
	_, err := st.DB().Exec(`INSERT INTO gate_checks (session_id, project_path, gate_id, claim_id, status, ts) VALUES ('sess-prev-1', ?, 'DQ2', 'C-007', 'FAIL', 0)`, project)
	must(t, err)
}

func addMemories(t testing.TB, st *store.Store, ms ...record.NewMemory) []int64 {
	t.Helper()
	var ids []int64
	for _, m := range ms {
		m.ProjectPath = project
		a, err := recall.AddMemory(context.Background(), st, nil, m)
		must(t, err)
		ids = append(ids, a.ID)
	}
	return ids
}

func extras() []Part {
	return []Part{
		AlertsPart([]Alert{
			{Level: "INFO", Message: "3 literature searches this session"},
			{Level: "WARN", Message: "FINDINGS.md and CLAIM-LEDGER.md disagree on C-007's count"},
			{Level: "HALT", Message: "DQ2 failed twice on C-007: fix the split before promoting"},
		}),
		{Layer: LayerRecall, Priority: PriorityCalibration, Title: "R2 CALIBRATION", Lines: []string{"R2 missed confounder checks in 3 of the last 5 reviews"}},
		{Layer: LayerRecall, Priority: PrioritySeeds, Title: "PENDING SEEDS", Lines: []string{"- S-05 CTCF proximity (score 14)"}, More: "vibe seeds"},
		{Layer: LayerState, Priority: PriorityBlueprint, Lines: []string{"[BLUEPRINT] Domain: CRISPR. Load blueprints/crispr.md on demand."}},
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden.txt")
	if *update {
		must(t, os.MkdirAll("testdata", 0o755))
		must(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	must(t, err)
	if got != string(want) {
		t.Errorf("%s differs from %s (run with -update after checking):\n%s", name, path, got)
	}
}

func TestSessionStartContextGolden(t *testing.T) {
	st := openStore(t)
	research(t, st, "Session summary: re-aligned the CHANGE-seq reads, DQ1 passes again, opened C-007 on PAM-distal mismatches.")
	addMemories(t, st,
		record.NewMemory{Kind: record.KindDecision, Text: "Score off-target sites with CFD, not MIT: CFD tracks CHANGE-seq read counts better.", At: now.Add(-20 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindGateFailure, Text: "DQ2 failed: the split was per site, so one guide sat on both sides.", At: now.Add(-3 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindNote, Text: "Lift the Lazzarotto table from hg19 to hg38 before joining.", At: now.Add(-60 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindAction, Text: "Ran Cas-OFFinder for 110 guides.", At: now.Add(-2 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindNarrative, Text: "Session summary from an older session.", At: now.Add(-90 * 24 * time.Hour)},
	)
	got, err := SessionStartContext(context.Background(), st, nil, project, "", now, DefaultBudgets(config.Defaults.SessionStartTokens), extras())
	must(t, err)
	golden(t, "sessionstart_small", got)
}

func TestPromptContextGolden(t *testing.T) {
	st := openStore(t)
	ids := addMemories(t, st,
		record.NewMemory{Kind: record.KindGateFailure, Text: "Gate DQ2 passed for C-007 on the guide-level split.", At: now.Add(-30 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindGateFailure, Text: "Gate DQ2 failed for C-007 on the guide-level split.", At: now.Add(-3 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindDecision, Text: "Hold out 22 guides entirely for testing.", At: now.Add(-10 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindNote, Text: "Mycoplasma test passed on 2 May.", At: now.Add(-100 * 24 * time.Hour)},
	)
	text, res, err := PromptContext(context.Background(), st, nil, project, "did the DQ2 gate pass on the guide split for C-007?", now, config.Defaults.PromptRecallTokens)
	must(t, err)
	if res.Mode != recall.ModeLexical || res.Note != "no vector search configured: lexical only" {
		t.Errorf("mode %s, note %q", res.Mode, res.Note)
	}
	if !strings.Contains(text, fmt.Sprintf("(contradicts [M-%d])", ids[0])) {
		t.Errorf("the contradiction is not flagged:\n%s", text)
	}
	golden(t, "prompt_small", text)
	// Nothing recalled: nothing injected.
	text, _, err = PromptContext(context.Background(), st, nil, project, "sourdough starter hydration", now, 500)
	if text != "" || err != nil {
		t.Errorf("no hit gave %q, %v", text, err)
	}
}

func TestAlertsPartOrdersBySeverity(t *testing.T) {
	p := AlertsPart([]Alert{{"INFO", "a"}, {"odd", "b"}, {"WARN", "c"}, {"halt", "d"}, {"WARN", "e  with\nspace"}})
	want := []string{"- halt d", "- WARN c", "- WARN e with space", "- INFO a", "- odd b"}
	if strings.Join(p.Lines, "|") != strings.Join(want, "|") || p.Layer != LayerRecall || p.Priority != PriorityAlerts {
		t.Errorf("AlertsPart = %+v, want lines %q", p, want)
	}
}

func TestMemoryLine(t *testing.T) {
	c := int64(7)
	at := time.Date(2026, 10, 2, 23, 0, 0, 0, time.FixedZone("x", -5*3600)) // 2026-10-03 UTC
	tests := []struct {
		text       string
		superseded *int64
		conflicts  []int64
		want       string
	}{
		{"short\n  text", nil, nil, "- [M-12] decision 2026-10-03: short text"},
		{"passed", nil, []int64{7}, "- [M-12] decision 2026-10-03: passed (contradicts [M-7])"},
		{"passed", nil, []int64{7, 9, 11, 13}, "- [M-12] decision 2026-10-03: passed (contradicts [M-7], [M-9] and 2 more)"},
		{"1% threshold", &c, []int64{7}, "- [M-12] decision 2026-10-03: 1% threshold (superseded by [M-7])"},
	}
	for _, tt := range tests {
		if got := MemoryLine(recall.Hit{ID: 12, Kind: "decision", CreatedAt: at, Text: tt.text, SupersededBy: tt.superseded, Conflicts: tt.conflicts}); got != tt.want {
			t.Errorf("MemoryLine = %q, want %q", got, tt.want)
		}
	}
	long := MemoryLine(recall.Hit{ID: 12, Kind: "note", CreatedAt: at, Text: strings.Repeat("word ", 200), Conflicts: []int64{c}})
	if Tokens(long) > MemoryLineTokens || !strings.HasSuffix(long, "… (contradicts [M-7])") {
		t.Errorf("long line %d tokens: %q", Tokens(long), long)
	}
}

// TestSessionMemoriesKindsAndSuperseded: SessionStart offers an open
// thread before a fresher action (salience 0.9 against 0.3), and a
// superseded decision last, with its pointer, though alone it would come
// first.
func TestSessionMemoriesKindsAndSuperseded(t *testing.T) {
	st := openStore(t)
	ids := addMemories(t, st,
		record.NewMemory{Kind: record.KindAction, Text: "Ran Cas-OFFinder for 110 guides.", At: now.Add(-1 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindOpenThread, Text: "Amplicon validation of the chromosome 7 sites is pending.", At: now.Add(-5 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindDecision, Text: "Use a 1% read threshold for calling off-target sites.", At: now.Add(-10 * 24 * time.Hour)},
		record.NewMemory{Kind: record.KindDecision, Text: "Use a 0.1% read threshold for calling off-target sites.", At: now.Add(-9 * 24 * time.Hour)},
	)
	part, err := sessionMemories(context.Background(), st, nil, project, "", now)
	must(t, err)
	want := []string{
		fmt.Sprintf("- [M-%d] decision 2026-10-23: Use a 0.1%% read threshold for calling off-target sites. (contradicts [M-%d])", ids[3], ids[2]),
		fmt.Sprintf("- [M-%d] open_thread 2026-10-27: Amplicon validation of the chromosome 7 sites is pending.", ids[1]),
		fmt.Sprintf("- [M-%d] action 2026-10-31: Ran Cas-OFFinder for 110 guides.", ids[0]),
		fmt.Sprintf("- [M-%d] decision 2026-10-22: Use a 1%% read threshold for calling off-target sites. (superseded by [M-%d])", ids[2], ids[3]),
	}
	if !reflect.DeepEqual(part.Lines, want) {
		t.Errorf("lines\n%s\nwant\n%s", strings.Join(part.Lines, "\n"), strings.Join(want, "\n"))
	}
}
