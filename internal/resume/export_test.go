package resume

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

var update = flag.Bool("update", false, "rewrite golden files")

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

const userState = "# State of the off-target project\r\n\r\nphase: validation\r\n\r\n## Next\r\n\r\n- rerun the ablation with seed 7\r\n- ask R2 about C-002\r\n\r\n## Notes\r\n\r\nNotes in Italiano: è così ✓"

const ledger = `# Claim ledger

## C-001: Off-target rate rises with mismatch count
- status: PROVISIONAL
- type: correlative
- confidence: 0.62

## C-002: GC content predicts cleavage
- status: PROMOTED
- type: descriptive
- confidence: 0.8

## C-003: Bulges cause cleavage
- status: KILLED
- type: causal
- kill-reason: ARTIFACT

## C-004: Coverage holds on held-out guides
- status: DISPUTED
- type: predictive
`

func golden(t *testing.T, name string, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

type fixture struct {
	st   *store.Store
	proj project.Project
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	proj := project.Project{Root: root}
	if err := os.MkdirAll(proj.VibeDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "vibe.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return fixture{st: st, proj: proj}
}

func (fx fixture) session(t *testing.T, id string, start time.Time, actions []string, narrative string, ended bool) {
	t.Helper()
	ctx := context.Background()
	err := fx.st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: id, ProjectPath: fx.proj.Root, At: start, Start: true}); err != nil {
			return err
		}
		for i, a := range actions {
			e := record.SpineEntry{SessionID: id, ProjectPath: fx.proj.Root, At: start.Add(time.Duration(i) * time.Minute),
				ActionType: a, ToolName: "Write", ToolUseID: fmt.Sprintf("%s-%d-%d", id, start.Unix(), i),
				InputSummary: fmt.Sprintf("RQ-001/03-analysis/step_%d.py\nline two", i)}
			if i == 1 {
				e.GateResult, e.AgentType = "FAIL", "vibe:experimenter"
			}
			if _, err := tx.AddSpine(ctx, e, nil); err != nil {
				return err
			}
		}
		if narrative == "" {
			return nil
		}
		var endedAt *time.Time
		if ended {
			e := start.Add(time.Hour)
			endedAt = &e
		}
		return tx.SaveSummary(ctx, record.SessionSummary{ID: id, Narrative: narrative, EndedAt: endedAt, EndReason: "exit"})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (fx fixture) exec(t testing.TB, q string, args ...any) {
	t.Helper()
	if _, err := fx.st.DB().Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

func (fx fixture) richProject(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	os.WriteFile(fx.proj.Path(StateFile), []byte(userState), 0o644)
	os.WriteFile(fx.proj.Path(LedgerFile), []byte(ledger), 0o644)
	fx.session(t, "aaaaaaaa-1111", t0, []string{"DATA_LOAD", "MODEL_TRAIN", "EVALUATION"},
		"Session aaaaaaaa: 3 actions (DATA_LOAD 1, EVALUATION 1, MODEL_TRAIN 1).\nClaims:\n- C-001 CREATED", true)
	root := fx.proj.Root
	for i, g := range []struct{ gate, claim, status string }{
		{"DQ4", "C-001", "PASS"}, {"DC0", "C-001", "FAIL"}, {"DQ1", "", "FAIL"}, {"DD0", "", "FAIL"}, {"DD0", "", "PASS"},
	} {
		fx.exec(t, `INSERT INTO gate_checks (project_path, gate_id, claim_id, status, ts) VALUES (?, ?, NULLIF(?, ''), ?, ?)`,
			root, g.gate, g.claim, g.status, t0.Add(time.Duration(i)*time.Minute).UnixMilli())
	}
	fx.exec(t, `INSERT INTO serendipity_seeds (seed_id, project_path, created_session, status, source, causal_question,
sessions_pending, escalated, created_at, updated_at) VALUES ('SEED-20261120-001', ?, 'aaaaaaaa-1111', 'PENDING_TRIAGE', 'SCANNER',
'Do bulged sites cleave more than mismatch count predicts?', 6, 1, 0, 0)`, root)
	err := fx.st.Tx(ctx, func(tx *store.Tx) error {
		for i, a := range []struct{ level, check, msg string }{
			{record.AlertWarn, "literature-drought", "No literature search in the last 30 actions."},
			{record.AlertHalt, "state-stale", "STATE.md has not been updated in 80 h of work."},
		} {
			if _, _, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: root, Check: a.check, Level: a.level, Message: a.msg,
				Fingerprint: a.check, At: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestExport(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	fx.richProject(t)
	fx.session(t, "bbbbbbbb-2222", t0.Add(2*time.Hour), []string{"LITERATURE", "FINDINGS"}, "", false)

	// The ending session has no narrative yet: the previous one is summarised.
	if err := Export(ctx, fx.st, fx.proj, "bbbbbbbb-2222", t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	state := readFile(t, fx.proj.Path(StateFile))
	if !strings.HasPrefix(state, userState) {
		t.Fatal("the researcher's part of STATE.md changed")
	}
	golden(t, "export/STATE.md", state)
	golden(t, "export/SPINE.md", readFile(t, fx.proj.Path(SpineFile)))
	golden(t, "export/project_pickup.md", strings.ReplaceAll(readFile(t, fx.proj.Path(PickupFile)), fx.proj.Root, "<ROOT>"))

	// A second export with nothing new leaves STATE.md and SPINE.md alone.
	info1, _ := os.Stat(fx.proj.Path(StateFile))
	spine1 := readFile(t, fx.proj.Path(SpineFile))
	if err := Export(ctx, fx.st, fx.proj, "bbbbbbbb-2222", t0.Add(4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if readFile(t, fx.proj.Path(StateFile)) != state {
		t.Fatal("STATE.md was rewritten although only the time changed")
	}
	if info2, _ := os.Stat(fx.proj.Path(StateFile)); !info2.ModTime().Equal(info1.ModTime()) {
		t.Fatal("STATE.md mtime changed")
	}
	if readFile(t, fx.proj.Path(SpineFile)) != spine1 {
		t.Fatal("SPINE.md changed with nothing new to export")
	}

	// New entries are appended after the old bytes, which stay as they were.
	fx.session(t, "bbbbbbbb-2222", t0.Add(26*time.Hour), []string{"REVIEW"}, "Session bbbbbbbb: 3 actions.", true)
	if err := Export(ctx, fx.st, fx.proj, "bbbbbbbb-2222", t0.Add(27*time.Hour)); err != nil {
		t.Fatal(err)
	}
	spine2 := readFile(t, fx.proj.Path(SpineFile))
	want := spine1 + "\n## 2026-11-23 · session bbbbbbbb\n\n- 11:00:00 REVIEW (Write): RQ-001/03-analysis/step_0.py line two\n"
	if spine2 != want {
		t.Fatalf("append:\n%q\nwant\n%q", spine2[len(spine1)-10:], want[len(spine1)-10:])
	}
	state2 := readFile(t, fx.proj.Path(StateFile))
	if !strings.Contains(state2, "- last session: bbbbbbbb, ended 2026-11-23 12:00 UTC: Session bbbbbbbb: 3 actions.") ||
		!strings.HasPrefix(state2, userState) {
		t.Fatalf("STATE.md after the second session:\n%s", state2)
	}
}

func TestExportWithoutVibeDirDoesNothing(t *testing.T) {
	fx := newFixture(t)
	os.RemoveAll(fx.proj.VibeDir())
	if err := Export(context.Background(), fx.st, fx.proj, "s", t0); err != nil {
		t.Fatal(err)
	}
	if changed, err := Checkpoint(context.Background(), fx.st, fx.proj, "s", t0); err != nil || changed {
		t.Fatalf("checkpoint: %v %v", changed, err)
	}
	if _, err := os.Stat(fx.proj.VibeDir()); !os.IsNotExist(err) {
		t.Fatal("Export created .vibe-science")
	}
}

func TestExportKeepsGoingAndReportsAnUnclosedSection(t *testing.T) {
	fx := newFixture(t)
	broken := "mine\n" + BeginMarker + "\n"
	os.WriteFile(fx.proj.Path(StateFile), []byte(broken), 0o644)
	fx.session(t, "s1", t0, []string{"OTHER"}, "Session s1: 1 actions (OTHER 1).", true)
	err := Export(context.Background(), fx.st, fx.proj, "s1", t0)
	if err == nil || !strings.Contains(err.Error(), "line 2 has vibe's begin marker") {
		t.Fatalf("err %v", err)
	}
	if readFile(t, fx.proj.Path(StateFile)) != broken {
		t.Fatal("broken STATE.md was changed")
	}
	if !strings.Contains(readFile(t, fx.proj.Path(SpineFile)), "OTHER (Write)") {
		t.Fatal("SPINE.md was not written after the STATE.md error")
	}
	if !strings.Contains(readFile(t, fx.proj.Path(PickupFile)), "Session s1: 1 actions") {
		t.Fatal("pickup was not written after the STATE.md error")
	}
}

func TestCheckpointFreshProject(t *testing.T) {
	fx := newFixture(t)
	changed, err := Checkpoint(context.Background(), fx.st, fx.proj, "new-session", t0)
	if err != nil || !changed {
		t.Fatalf("%v %v", changed, err)
	}
	want := BeginMarker + "\n## Where the work stands (vibe)\n\n" +
		"_vibe rewrites the lines between the markers at the end of each session; write your own notes outside them._\n\n" +
		"- updated: 2026-11-22 09:00 UTC\n- last session: none recorded yet\n- active claims: none\n- pending gates: none\n" +
		"- open alerts: none\n- pending seeds: none\n" + EndMarker + "\n"
	if got := readFile(t, fx.proj.Path(StateFile)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSpineAppendRepairsOpenLastLine(t *testing.T) {
	fx := newFixture(t)
	os.WriteFile(fx.proj.Path(SpineFile), []byte("# my spine\nhand-written, no newline"), 0o644)
	fx.session(t, "s1", t0, []string{"OTHER"}, "", false)
	n, err := AppendSpine(context.Background(), fx.st, fx.proj)
	if err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	want := "# my spine\nhand-written, no newline\n\n## 2026-11-22 · session s1\n\n- 09:00:00 OTHER (Write): RQ-001/03-analysis/step_0.py line two\n"
	if got := readFile(t, fx.proj.Path(SpineFile)); got != want {
		t.Fatalf("got %q", got)
	}
}

func TestRenderSpineCapsAndFolds(t *testing.T) {
	long := strings.Repeat("é", 300)
	text, mark := renderSpine([]record.SpineEntry{
		{ID: 7, SessionID: "s1", At: t0, ActionType: "A", ToolName: "Bash", InputSummary: "  a\n\tb  "},
		{ID: 8, SessionID: "s1", At: t0.Add(time.Second), ActionType: "B", ToolName: "Read", InputSummary: long},
	}, record.SpineMark{LastID: 6, Session: "s1", Day: "2026-11-22"})
	want := "- 09:00:00 A (Bash): a b\n- 09:00:01 B (Read): " + strings.Repeat("é", 199) + "…\n"
	if text != want || mark != (record.SpineMark{LastID: 8, Session: "s1", Day: "2026-11-22"}) {
		t.Fatalf("got %q %+v", text, mark)
	}
}

func TestFileState(t *testing.T) {
	ctx := context.Background()
	fx := newFixture(t)
	fx.richProject(t)
	if err := Export(ctx, fx.st, fx.proj, "aaaaaaaa-1111", t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	fx.st.Close()
	got, err := FileState(fx.proj)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "filestate/rich.txt", got+"\n")

	empty := project.Project{Root: t.TempDir()}
	if got, err := FileState(empty); got != "" || err != nil {
		t.Fatalf("no .vibe-science: %q %v", got, err)
	}
	os.MkdirAll(empty.VibeDir(), 0o755)
	got, err = FileState(empty)
	if err != nil || got != "State from the project's .vibe-science files:\n- STATE.md: missing; `vibe init` creates it (it changes no existing file)" {
		t.Fatalf("empty .vibe-science: %q %v", got, err)
	}
}

func TestFileStateIsBounded(t *testing.T) {
	fx := newFixture(t)
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "## C-%03d: %s\n- status: PROVISIONAL\n\n", i, strings.Repeat("long title ", 30))
	}
	os.WriteFile(fx.proj.Path(LedgerFile), []byte(b.String()), 0o644)
	os.WriteFile(fx.proj.Path(StateFile), []byte(strings.Repeat(strings.Repeat("x", 500)+"\n", 100)), 0o644)
	got, err := FileState(fx.proj)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > fileStateMaxBytes+64 || !strings.Contains(got, "claims in CLAIM-LEDGER.md: 200 (200 PROVISIONAL)") {
		t.Fatalf("%d bytes:\n%s", len(got), got)
	}
}
