package resume

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// BenchmarkExport measures SessionEnd's file work on a database with 100k
// spine entries, 2k gate runs and 200 alerts: one session's 200 new entries
// to append (the usual case) after the backlog was exported. SessionEnd's
// whole budget is 1.5 s; the target for Export is about 200 ms.
func BenchmarkExport(b *testing.B) {
	ctx := context.Background()
	fx := benchFixture(b)
	if err := Export(ctx, fx.st, fx.proj, "bench-0", t0); err != nil {
		b.Fatal(err)
	}
	for { // drain the backlog, MaxSpineExport entries at a time
		k, err := AppendSpine(ctx, fx.st, fx.proj)
		if err != nil {
			b.Fatal(err)
		}
		if k == 0 {
			break
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		addBenchSpine(b, fx, fmt.Sprintf("bench-%d", i+1), 200, t0.Add(time.Duration(i+1)*time.Hour))
		b.StartTimer()
		if err := Export(ctx, fx.st, fx.proj, fmt.Sprintf("bench-%d", i+1), t0.Add(time.Duration(i+1)*time.Hour)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExportFirst measures the first export of a 100k-entry history:
// MaxSpineExport entries are appended, the rest waits for the next export.
func BenchmarkExportFirst(b *testing.B) {
	ctx := context.Background()
	fx := benchFixture(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.Remove(fx.proj.Path(SpineFile))
		fx.exec(b, "DELETE FROM meta WHERE key LIKE 'spine_export:%'")
		b.StartTimer()
		if err := Export(ctx, fx.st, fx.proj, "bench-0", t0); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFixture(b *testing.B) fixture {
	b.Helper()
	fx := newFixture(b)
	os.WriteFile(fx.proj.Path(StateFile), []byte(userState), 0o644)
	var ledger []byte
	for i := 0; i < 60; i++ {
		ledger = fmt.Appendf(ledger, "## C-%03d: claim %d\n- status: PROVISIONAL\n- type: causal\n- confidence: 0.5\n\n", i, i)
	}
	os.WriteFile(fx.proj.Path(LedgerFile), ledger, 0o644)
	addBenchSpine(b, fx, "bench-0", 100_000, t0.Add(-100_000*time.Second))
	ctx := context.Background()
	err := fx.st.Tx(ctx, func(tx *store.Tx) error {
		for i := 0; i < 200; i++ {
			if _, _, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: fx.proj.Root, Check: "c", Level: record.AlertWarn,
				Message: "m", Fingerprint: fmt.Sprint(i), At: t0}); err != nil {
				return err
			}
		}
		return tx.SaveSummary(ctx, record.SessionSummary{ID: "bench-0", Narrative: "Session bench-0: 100000 actions."})
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		fx.exec(b, `INSERT INTO gate_checks (project_path, gate_id, claim_id, status, ts) VALUES (?, 'DQ4', ?, 'PASS', ?)`,
			fx.proj.Root, fmt.Sprintf("C-%03d", i%60), int64(i))
	}
	return fx
}

func addBenchSpine(b testing.TB, fx fixture, session string, n int, start time.Time) {
	ctx := context.Background()
	err := fx.st.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: session, ProjectPath: fx.proj.Root, At: start}); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: session, ProjectPath: fx.proj.Root,
				At: start.Add(time.Duration(i) * time.Second), ActionType: "CODE_EDIT", ToolName: "Edit",
				ToolUseID: fmt.Sprintf("%s-%d", session, i), InputSummary: "RQ-001/03-analysis/train.py: edit the loss"}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWriteTree measures what each Stop adds after its reply on the
// benchFixture project (60 claims, 2k gate runs, 200 open alerts) with a
// research question of 150 tree nodes: the usual turn, whose state did
// not change, so the file is read and compared, not written.
func BenchmarkWriteTree(b *testing.B) {
	ctx := context.Background()
	fx := benchFixture(b)
	nodes := []byte(`{"tree_mode": "BRANCHING", "nodes": [`)
	for i := 0; i < 150; i++ {
		if i > 0 {
			nodes = append(nodes, ',')
		}
		nodes = fmt.Appendf(nodes, `{"id": "node-%03d", "node_type": "improve", "parent": "node-001", "status": "good"}`, i)
	}
	nodes = append(nodes, "]}"...)
	os.MkdirAll(fx.proj.Path("RQ-001-bench", "08-tree"), 0o755)
	os.WriteFile(fx.proj.Path("RQ-001-bench", "08-tree", TreeStateFile), nodes, 0o644)
	if wrote, err := WriteTree(ctx, fx.st, fx.proj, "bench-0", "v1", t0); err != nil || !wrote {
		b.Fatal(wrote, err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if wrote, err := WriteTree(ctx, fx.st, fx.proj, "bench-1", "v1", t0.Add(time.Hour)); err != nil || wrote {
			b.Fatal(wrote, err)
		}
	}
}
