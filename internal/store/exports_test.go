package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

func TestPendingSeeds(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/p", At: t0}); err != nil {
			return err
		}
		for _, r := range []struct {
			id, project, status string
			pending, escalated  int
		}{
			{"SEED-20260101-001", "/p", "PENDING_TRIAGE", 3, 0},
			{"SEED-20260101-002", "/p", "QUEUED", 7, 1},
			{"SEED-20260101-003", "/p", "KILLED", 12, 0},
			{"SEED-20260101-004", "/p", "PROMOTED_TO_CLAIM", 9, 0},
			{"SEED-20260101-005", "/p", "TESTING", 3, 0},
			{"SEED-20260101-006", "/q", "PENDING_TRIAGE", 20, 0},
		} {
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO serendipity_seeds (seed_id, project_path, created_session, status, source,
causal_question, sessions_pending, escalated, created_at, updated_at) VALUES (?, ?, 's1', ?, 'SCANNER', ?, ?, ?, 0, 0)`,
				r.id, r.project, r.status, "why "+r.id[len(r.id)-3:], r.pending, r.escalated); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.PendingSeeds(ctx, "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "[{SEED-20260101-002 QUEUED why 002 7 true} {SEED-20260101-001 PENDING_TRIAGE why 001 3 false} {SEED-20260101-005 TESTING why 005 3 false}]"
	if fmt.Sprint(got) != want {
		t.Fatalf("PendingSeeds\n got %v\nwant %s", got, want)
	}
	got, _ = s.PendingSeeds(ctx, "/p", 1)
	if len(got) != 1 || got[0].SeedID != "SEED-20260101-002" {
		t.Fatalf("limit: %v", got)
	}
}

func TestSpineMarkAndSpineAfter(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	addSpineRows(t, s, "/p", "s1", []string{"A", "B", "C", "D"}, t0, time.Second)
	addSpineRows(t, s, "/q", "s2", []string{"X"}, t0, time.Second)
	addSpineRows(t, s, "/p", "s3", []string{"E"}, t0.Add(time.Hour), time.Second)
	err := s.Tx(ctx, func(tx *Tx) error {
		m, err := tx.SpineMark(ctx, "/p")
		if err != nil || m != (record.SpineMark{}) {
			t.Fatalf("fresh mark %+v %v", m, err)
		}
		page, err := tx.SpineAfter(ctx, "/p", 0, 3)
		if err != nil {
			return err
		}
		if got := types(page); got != "A B C" {
			t.Fatalf("first page %s", got)
		}
		if err := tx.SetSpineMark(ctx, "/p", record.SpineMark{LastID: page[2].ID, Session: "s1", Day: "2026-11-22"}); err != nil {
			return err
		}
		m, err = tx.SpineMark(ctx, "/p")
		if err != nil || m != (record.SpineMark{LastID: page[2].ID, Session: "s1", Day: "2026-11-22"}) {
			t.Fatalf("mark %+v %v", m, err)
		}
		rest, err := tx.SpineAfter(ctx, "/p", m.LastID, 100)
		if err != nil {
			return err
		}
		if got := types(rest); got != "D E" {
			t.Fatalf("rest %s", got)
		}
		if rest[1].SessionID != "s3" || !rest[1].At.Equal(t0.Add(time.Hour)) || rest[1].InputSummary != "step 0" || rest[1].ProjectPath != "/p" {
			t.Fatalf("entry %+v", rest[1])
		}
		// A damaged mark restarts the export.
		if _, err := tx.tx.ExecContext(ctx, `UPDATE meta SET value = 'garbage' WHERE key = 'spine_export:/p'`); err != nil {
			return err
		}
		m, err = tx.SpineMark(ctx, "/p")
		if err != nil || m != (record.SpineMark{}) {
			t.Fatalf("damaged mark %+v %v", m, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func types(es []record.SpineEntry) string {
	out := ""
	for i, e := range es {
		if i > 0 {
			out += " "
		}
		out += e.ActionType
	}
	return out
}

func TestPassedGatesForAndFailingGates(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	rows := []struct{ project, gate, claim, status string }{
		{"/p", "DQ4", "C-001", "FAIL"},
		{"/p", "DQ4", "C-001", "PASS"},
		{"/p", "DC0", "C-001", "PASS"},
		{"/p", "DQ1", "C-002", "PASS"},
		{"/p", "DQ1", "C-002", "FAIL"},
		{"/p", "DQ1", "", "FAIL"},
		{"/p", "DD0", "", "FAIL"},
		{"/p", "DD0", "", "PASS"},
		{"/q", "DQ4", "C-001", "FAIL"},
	}
	err := s.Tx(ctx, func(tx *Tx) error {
		for i, r := range rows {
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO gate_checks (project_path, gate_id, claim_id, status, ts) VALUES (?, ?, NULLIF(?, ''), ?, ?)`,
				r.project, r.gate, r.claim, r.status, t0.Add(time.Duration(i)*time.Minute).UnixMilli()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cg, err := s.PassedGatesFor(ctx, "/p", []string{"C-001", "C-002", "C-009"})
	if err != nil {
		t.Fatal(err)
	}
	// Any PASS counts, as in PassedGates: C-002's DQ1 passed before it failed.
	if fmt.Sprint(cg) != "map[C-001:map[DC0:true DQ4:true] C-002:map[DQ1:true]]" {
		t.Fatalf("PassedGatesFor %v", cg)
	}
	for _, c := range []string{"C-001", "C-002"} {
		one, err := s.PassedGates(ctx, "/p", c)
		if err != nil || fmt.Sprint(one) != fmt.Sprint(cg[c]) {
			t.Fatalf("PassedGates(%s) = %v, PassedGatesFor says %v", c, one, cg[c])
		}
	}
	if cg, err := s.PassedGatesFor(ctx, "/p", nil); err != nil || len(cg) != 0 {
		t.Fatalf("no claims: %v %v", cg, err)
	}
	fg, err := s.FailingGates(ctx, "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []record.GateState{{GateID: "DQ1", ClaimID: "", Status: "FAIL", At: t0.Add(5 * time.Minute)}, {GateID: "DQ1", ClaimID: "C-002", Status: "FAIL", At: t0.Add(4 * time.Minute)}}
	if fmt.Sprint(fg) != fmt.Sprint(want) {
		t.Fatalf("FailingGates %v, want %v", fg, want)
	}
	// A window of 3 sees only the last three runs of /p: DD0 PASS, DD0 FAIL (older, shadowed), DQ1 FAIL.
	fg, _ = s.FailingGates(ctx, "/p", 3)
	if fmt.Sprint(fg) != fmt.Sprint(want[:1]) {
		t.Fatalf("window 3: %v", fg)
	}
	lg, err := s.LatestGates(ctx, "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	wantLatest := []record.GateState{
		{GateID: "DD0", Status: "PASS", At: t0.Add(7 * time.Minute)}, want[0], want[1],
		{GateID: "DC0", ClaimID: "C-001", Status: "PASS", At: t0.Add(2 * time.Minute)},
		{GateID: "DQ4", ClaimID: "C-001", Status: "PASS", At: t0.Add(1 * time.Minute)},
	}
	if fmt.Sprint(lg) != fmt.Sprint(wantLatest) {
		t.Fatalf("LatestGates %v, want %v", lg, wantLatest)
	}
}
