package store

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "vibe.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenMigratesOnceAndHasEveryTable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := s.Version(ctx)
	if v != db.Latest() || v < 1 {
		t.Fatalf("version %d, want %d", v, db.Latest())
	}
	for _, table := range []string{"sessions", "spine_entries", "claim_events", "r2_reviews", "serendipity_seeds",
		"gate_checks", "literature_searches", "observer_alerts", "calibration_log", "prompt_log", "embed_queue",
		"vec_memories", "memories", "memories_fts", "advisories", "provenance"} {
		var n int
		if err := s.DB().QueryRow("SELECT count(*) FROM sqlite_master WHERE name = ?", table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: n=%d err=%v", table, n, err)
		}
	}
	var mode string
	s.DB().QueryRow("PRAGMA journal_mode").Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal_mode %q", mode)
	}
	s.Close()
	// A second open must not re-run anything: the marker table would clash.
	s2, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var fk int
	s2.DB().QueryRow("PRAGMA foreign_keys").Scan(&fk)
	if fk != 1 {
		t.Errorf("foreign_keys = %d", fk)
	}
}

func TestUpsertSessionAndSpine(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/p", At: t0, Start: true, Source: "startup"}); err != nil {
			return err
		}
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/other", At: t0.Add(time.Minute), Start: true, Source: "resume"}); err != nil {
			return err
		}
		d := int64(13)
		for i := 0; i < 2; i++ { // the same tool_use_id twice records once
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "s1", ProjectPath: "/p", At: t0, ActionType: "DATA_LOAD",
				ToolName: "Write", ToolUseID: "toolu_1", DurationMS: &d},
				[]record.Touched{{Path: "data.csv", Op: "write", SHA256: "ab", Size: 3}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	se, err := s.Session(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if se.StartCount != 2 || se.LastSource != "resume" || se.ProjectPath != "/p" || !se.LastSeenAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("session %+v", se)
	}
	es, _ := s.Spine(ctx, record.SpineFilter{Session: "s1"})
	if len(es) != 1 || es[0].ActionType != "DATA_LOAD" || *es[0].DurationMS != 13 {
		t.Fatalf("spine %+v", es)
	}
	var prov int
	s.DB().QueryRow("SELECT count(*) FROM provenance").Scan(&prov)
	if prov != 1 {
		t.Errorf("provenance rows %d", prov)
	}
}

func TestSpineWithoutSessionFailsForeignKey(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	err := s.Tx(ctx, func(tx *Tx) error {
		_, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "nope", ProjectPath: "/p", At: t0, ActionType: "X", ToolName: "Bash"}, nil)
		return err
	})
	if err == nil || fault.KindOf(err) != fault.Invalid {
		t.Fatalf("want a constraint error, got %v", err)
	}
}

func TestAdvisoriesAreAppendOnly(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	v := verdict.New("permission", verdict.HardBlock, verdict.High, "denied", map[string]string{"path": "CLAIM-LEDGER.md"})
	if err := s.Tx(ctx, func(tx *Tx) error {
		return tx.AppendAdvisories(ctx, record.AdvisoryContext{ProjectPath: "/p", Event: "PreToolUse", Tool: "Write", At: t0},
			[]verdict.Verdict{v}, record.Decided{Kind: record.DecisionDeny, File: "CLAIM-LEDGER.md"})
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Decisions(ctx, record.DecisionFilter{Project: "/p"})
	if err != nil || len(got) != 1 || got[0].DecisionHash != v.DecisionHash || got[0].Result != "HARD_BLOCK" || got[0].Kind != "deny" {
		t.Fatalf("decisions %+v %v", got, err)
	}
	for _, q := range []string{"UPDATE advisories SET reason = 'x'", "DELETE FROM advisories",
		"UPDATE hook_decisions SET kind = 'warn'", "DELETE FROM hook_decisions"} {
		if _, err := s.DB().Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", q, err)
		}
	}
}

func TestAddMemoryDedupsAndQueues(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var ids []int64
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/p", At: t0}); err != nil {
			return err
		}
		for _, text := range []string{"AUC 0.81 on held-out guides", "AUC 0.81 on held-out guides", "leakage column dropped"} {
			id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", SessionID: "s1", Kind: record.KindNote, Text: text, At: t0})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ids[0] != ids[1] || ids[0] == ids[2] {
		t.Errorf("ids %v", ids)
	}
	var q, fts int
	s.DB().QueryRow("SELECT count(*) FROM embed_queue").Scan(&q)
	s.DB().QueryRow("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'leakage'").Scan(&fts)
	if q != 2 || fts != 1 {
		t.Errorf("queue %d fts %d", q, fts)
	}
}

// TestOpenRacesOnANewFile: hook processes that find no database all create
// it at once; those that lose the race for its locks (while another turns
// the file to WAL or writes the schema) are told "busy" without a wait
// (SQLite's deadlock guard), and must try again rather than fail the hook.
// Sixteen opens at once, on fresh files (without the retries one run in
// three failed, at the WAL switch or at the first schema read).
func TestOpenRacesOnANewFile(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 40; round++ {
		path := filepath.Join(t.TempDir(), "vibe.db")
		start := make(chan struct{})
		errs := make(chan error, 16)
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s, err := Open(ctx, path, Options{BusyTimeoutMS: HookBusyTimeoutMS})
				if err == nil {
					s.Close()
				}
				errs <- err
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
