package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

func TestAddCalibrationSkipsARepeatedOutcome(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	two := 2
	add := func(claim, outcome string, p float64, at time.Time) bool {
		var ok bool
		if err := s.Tx(ctx, func(tx *Tx) error {
			var err error
			ok, err = tx.AddCalibration(ctx, record.CalibrationEntry{ClaimID: claim, ProjectPath: "/p", SessionID: "s1",
				Predicted: p, Outcome: outcome, Stage: &two, At: at})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	steps := []struct {
		claim, outcome string
		p              float64
		want           bool
	}{
		{"C-001", "VERIFIED", 0.8, true},
		{"C-001", "VERIFIED", 0.8, false}, // the same edit seen twice
		{"C-002", "CONFOUNDED", 0.6, true},
		{"C-001", "REJECTED", 0.8, true}, // reopened and killed later: a new outcome
		{"C-001", "VERIFIED", 0.5, true},
	}
	for i, st := range steps {
		if got := add(st.claim, st.outcome, st.p, t0.Add(time.Duration(i)*time.Minute)); got != st.want {
			t.Errorf("step %d: added %v, want %v", i, got, st.want)
		}
	}
	es, err := s.CalibrationEntries(ctx, "/p")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.ClaimID+" "+e.Outcome)
		if e.Stage == nil || *e.Stage != 2 || e.SessionID != "s1" {
			t.Errorf("entry %+v", e)
		}
	}
	want := []string{"C-001 VERIFIED", "C-002 CONFOUNDED", "C-001 REJECTED", "C-001 VERIFIED"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("log %v, want %v", got, want)
	}
}

func TestLastClaimConfidence(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	ins := func(conf any, at time.Time) {
		if _, err := s.DB().Exec(`INSERT INTO claim_events (claim_id, session_id, project_path, event_type, confidence, ts)
VALUES ('C-001', 's1', '/p', 'CONFIDENCE_UPDATED', ?, ?)`, conf, at.UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	ins(0.4, t0)
	ins(0.7, t0.Add(time.Minute))
	ins(nil, t0.Add(2*time.Minute))
	s.Tx(ctx, func(tx *Tx) error {
		c, ok, err := tx.LastClaimConfidence(ctx, "/p", "C-001")
		if err != nil || !ok || c != 0.7 {
			t.Errorf("got %v %v %v, want 0.7", c, ok, err)
		}
		if _, ok, _ := tx.LastClaimConfidence(ctx, "/p", "C-002"); ok {
			t.Error("C-002 has no confidence")
		}
		return nil
	})
}

func TestRepeatedFixesAndGateFailureCounts(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	reviewSession(t, s, "s2", "/q", t0)
	spine := func(session, project, action, summary string, i int) {
		if _, err := s.DB().Exec(`INSERT INTO spine_entries (session_id, project_path, ts, action_type, tool_name, input_summary)
VALUES (?, ?, ?, ?, 'Edit', ?)`, session, project, t0.Add(time.Duration(i)*time.Second).UnixMilli(), action, summary); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range []struct{ action, summary string }{
		{"BUG_FIX", "fix off-by-one in fold split"}, {"BUG_FIX", "fix off-by-one in fold split"},
		{"BUG_FIX", "fix off-by-one in fold split"}, {"BUG_FIX", "guard empty guide list"},
		{"BUG_FIX", "guard empty guide list"}, {"BUG_FIX", "rename column"}, {"MODEL_TRAIN", "fix off-by-one in fold split"},
	} {
		spine("s1", "/p", e.action, e.summary, i)
	}
	spine("s2", "/q", "BUG_FIX", "rename column", 0)
	spine("s2", "/q", "BUG_FIX", "rename column", 1)

	fixes, err := s.RepeatedFixes(ctx, "/p", 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []record.PatternCount{{Key: "fix off-by-one in fold split", Count: 3}, {Key: "guard empty guide list", Count: 2}}
	if !reflect.DeepEqual(fixes, want) {
		t.Errorf("fixes %v, want %v", fixes, want)
	}
	gate := func(project, id, status string) {
		if _, err := s.DB().Exec(`INSERT INTO gate_checks (project_path, gate_id, status, ts) VALUES (?, ?, ?, 0)`, project, id, status); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []string{"DQ4", "DQ4", "DQ4", "DQ1", "DQ1", "DD0"} {
		gate("/p", g, "FAIL")
	}
	gate("/p", "DQ2", "PASS")
	gate("/p", "DQ2", "PASS")
	gate("/q", "DQ3", "FAIL")
	gate("/q", "DQ3", "FAIL")
	fails, err := s.GateFailureCounts(ctx, "/p", 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []record.PatternCount{{Key: "DQ4", Count: 3}}; !reflect.DeepEqual(fails, want) {
		t.Errorf("fails %v, want %v", fails, want)
	}
	fails, _ = s.GateFailureCounts(ctx, "/p", 1, 5)
	if want := []record.PatternCount{{Key: "DQ4", Count: 3}, {Key: "DQ1", Count: 2}, {Key: "DD0", Count: 1}}; !reflect.DeepEqual(fails, want) {
		t.Errorf("fails min 1 %v, want %v", fails, want)
	}
}
