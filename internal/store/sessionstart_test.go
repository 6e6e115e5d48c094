package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// The SQL the SessionStart reads had before 0011, kept as the oracle of
// their rewrites. oldPreviousSession pins the plan it ran with then (the
// sort of idx_sessions_project's rows), which decided its ties.
const (
	oldClaimGateCounts = `
SELECT
 (SELECT count(*) FROM (
    SELECT (SELECT e2.new_status FROM claim_events e2
            WHERE e2.project_path = ?1 AND e2.claim_id = e.claim_id AND e2.new_status IS NOT NULL
            ORDER BY e2.id DESC LIMIT 1) AS status
    FROM claim_events e WHERE e.project_path = ?1 GROUP BY e.claim_id)
  WHERE status IS NULL OR status NOT IN ('KILLED', 'VERIFIED')),
 (SELECT count(*) FROM gate_checks g
  WHERE g.project_path = ?1 AND g.status = 'FAIL' AND g.id = (
    SELECT max(g2.id) FROM gate_checks g2
    WHERE g2.project_path = ?1 AND g2.gate_id = g.gate_id AND COALESCE(g2.claim_id,'') = COALESCE(g.claim_id,'')))`
	oldPreviousSession = `SELECT id FROM sessions INDEXED BY idx_sessions_project
WHERE project_path = ? AND id <> ? AND narrative_summary IS NOT NULL AND narrative_summary <> ''
ORDER BY COALESCE(ended_at, last_seen_at) DESC LIMIT 1`
	oldAlerts = `SELECT id FROM observer_alerts
WHERE (?1 = '' OR project_path = ?1) AND (?2 OR resolved = 0) AND (?3 = '' OR level = ?3)
ORDER BY resolved, ` + alertOrder + ` LIMIT ?4`
)

// fillTricky writes the cases the rewritten queries could get wrong: ties
// in end times, sessions never ended, empty and missing narratives; claims
// reopened, closed, closed then commented (an event without a status),
// never given a status, given an empty one; gate runs with NULL and ”
// claims (one group), a later PASS over a FAIL and the reverse; alerts of
// every level, open and resolved, created at the same time.
func fillTricky(t *testing.T, s *Store, project string) {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.DB().ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	sessions := []struct {
		id                   string
		started, last, ended int64 // ended 0: NULL
		narrative            any
	}{
		{"a", 5, 50, 0, "a"}, {"b", 1, 50, 0, "b"}, {"c", 3, 40, 50, "c"}, {"d", 2, 60, 50, "d"},
		{"e", 9, 70, 0, ""}, {"f", 8, 80, 0, nil}, {"g", 1, 30, 50, "g"}, {"h", 4, 20, 45, "h"},
		{"i", 1, 50, 0, "i"}, {"j", 7, 10, 0, "j"},
	}
	for _, se := range sessions {
		var ended any
		if se.ended != 0 {
			ended = se.ended
		}
		exec(`INSERT INTO sessions (id, project_path, started_at, last_seen_at, ended_at, narrative_summary)
VALUES (?, ?, ?, ?, ?, ?)`, project+"#"+se.id, project, se.started, se.last, ended, se.narrative)
	}
	claims := []struct{ claim, status string }{
		{"C1", "PROVISIONAL"}, {"C1", "KILLED"}, // closed
		{"C2", "VERIFIED"}, {"C2", "PROMOTED"}, // reopened
		{"C3", "KILLED"}, {"C3", ""}, // closed, then an event without a status
		{"C4", ""}, {"C4", ""}, // never given a status
		{"C5", "VERIFIED"},                               // closed at once
		{"C6", "KILLED"}, {"C6", "DISPUTED"}, {"C6", ""}, // reopened, then commented
	}
	for i, c := range claims {
		var status any
		if c.status != "" {
			status = c.status
		}
		exec(`INSERT INTO claim_events (claim_id, session_id, project_path, event_type, new_status, ts)
VALUES (?, ?, ?, 'X', ?, ?)`, c.claim, project+"#a", project, status, i%3)
	}
	exec(`INSERT INTO claim_events (claim_id, session_id, project_path, event_type, new_status, ts)
VALUES ('C7', ?, ?, 'X', '', 0)`, project+"#a", project) // an empty status, not NULL
	gates := []struct {
		gate, claim string // claim "-": NULL
		status      string
	}{
		{"G1", "-", "FAIL"}, {"G1", "", "PASS"}, // NULL and '' are one group: latest PASS
		{"G1", "C1", "PASS"}, {"G1", "C1", "FAIL"}, // latest FAIL
		{"G2", "-", "PASS"}, {"G2", "-", "FAIL"}, // latest FAIL without a claim
		{"G2", "C1", "FAIL"}, {"G2", "C1", "WARN"}, // latest WARN
		{"G3", "", "FAIL"}, {"G3", "-", "FAIL"}, {"G3", "C2", "FAIL"},
	}
	for i, g := range gates {
		var claim any = g.claim
		if g.claim == "-" {
			claim = nil
		}
		exec(`INSERT INTO gate_checks (project_path, gate_id, claim_id, status, ts) VALUES (?, ?, ?, ?, ?)`,
			project, g.gate, claim, g.status, i%2)
	}
	for i, level := range []string{"INFO", "HALT", "WARN", "HALT", "INFO", "WARN", "HALT"} {
		exec(`INSERT INTO observer_alerts (project_path, check_name, level, message, fingerprint, resolved, created_at)
VALUES (?, 'c', ?, 'm', ?, ?, ?)`, project, level, fmt.Sprint(i), i%3 == 0, int64(i/2))
	}
}

func TestSessionStartQueriesMatchTheirOldSQL(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	fillTricky(t, s, "/t")
	fillTricky(t, s, "/t2")
	fillRealistic(t, s, "/r")
	fillRealistic(t, s, "/r2")
	projects := []string{"/t", "/r", "/nothing"}

	for _, p := range projects {
		var claims, gates int
		if err := s.DB().QueryRowContext(ctx, oldClaimGateCounts, p).Scan(&claims, &gates); err != nil {
			t.Fatal(err)
		}
		_, gotClaims, gotGates, err := s.SessionCounts(ctx, p, "")
		if err != nil {
			t.Fatal(err)
		}
		if gotClaims != claims || gotGates != gates {
			t.Errorf("SessionCounts(%s) = %d, %d claims and gates; the old SQL says %d, %d", p, gotClaims, gotGates, claims, gates)
		}
	}
	// Known answers for the tricky project, so the oracle itself is checked:
	// C2, C4, C6 and C7 are in play (C3's latest status is still KILLED);
	// the latest runs of G1/C1, G2/no claim, G3/no claim and G3/C2 failed.
	if _, c, g, _ := s.SessionCounts(ctx, "/t", ""); c != 4 || g != 4 {
		t.Errorf("SessionCounts(/t) = %d, %d claims and gates, want 4 (C2 C4 C6 C7), 4", c, g)
	}
	// Its session number is SessionNumber's, and the counts do not depend
	// on the session.
	if err := s.Tx(ctx, func(tx *Tx) error {
		return tx.UpsertSession(ctx, record.SessionSeen{ID: "s-r", ProjectPath: "/r", At: time.UnixMilli(5)})
	}); err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		for _, session := range []string{"", "s-r", "s-new"} {
			n, err := s.SessionNumber(ctx, p, session)
			if err != nil {
				t.Fatal(err)
			}
			var claims, gates int
			if err := s.DB().QueryRowContext(ctx, oldClaimGateCounts, p).Scan(&claims, &gates); err != nil {
				t.Fatal(err)
			}
			gotN, gotClaims, gotGates, err := s.SessionCounts(ctx, p, session)
			if err != nil || gotN != n || gotClaims != claims || gotGates != gates {
				t.Errorf("SessionCounts(%s, %q) = %d, %d, %d, %v; SessionNumber and the old SQL say %d, %d, %d",
					p, session, gotN, gotClaims, gotGates, err, n, claims, gates)
			}
		}
	}
	recorded, _, _, _ := s.SessionCounts(ctx, "/r", "s-r")
	if n, _, _, _ := s.SessionCounts(ctx, "/r", "s-new"); n != recorded+1 {
		t.Errorf("SessionCounts(/r, s-new) numbers it %d; s-r, recorded, is number %d of the project, so want %d", n, recorded, recorded+1)
	}

	for _, p := range projects {
		var ids []string
		rows, err := s.DB().QueryContext(ctx, "SELECT id FROM sessions WHERE project_path = ? ORDER BY id", p)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for _, exclude := range append(ids, "none") {
			var want string
			err := s.DB().QueryRowContext(ctx, oldPreviousSession, p, exclude).Scan(&want)
			if err != nil && p != "/nothing" {
				t.Fatal(err)
			}
			got, ok, err := s.PreviousSession(ctx, p, exclude)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != want || ok != (want != "") {
				t.Errorf("PreviousSession(%s, excluding %s) = %q, %v; the old SQL says %q", p, exclude, got.ID, ok, want)
			}
		}
	}
	// Sessions a, b and i never ended and were last seen at 50, tying c, d
	// and g (ended at 50); b, g and i started first (1), and b was written
	// before g, g before i.
	for exclude, want := range map[string]string{"x": "/t#b", "/t#b": "/t#g", "/t#g": "/t#b"} {
		if got, _, _ := s.PreviousSession(ctx, "/t", exclude); got.ID != want {
			t.Errorf("PreviousSession(/t, excluding %s) = %s, want %s", exclude, got.ID, want)
		}
	}

	for _, p := range append(projects, "") {
		for _, resolved := range []bool{false, true} {
			for _, level := range []string{"", "INFO", "WARN", "HALT"} {
				for _, limit := range []int{0, 1, 3, 1000} {
					f := record.AlertFilter{Project: p, IncludeResolved: resolved, Level: level, Limit: limit}
					if limit == 0 {
						limit = 100
					}
					rows, err := s.DB().QueryContext(ctx, oldAlerts, p, resolved, level, limit)
					if err != nil {
						t.Fatal(err)
					}
					var want []int64
					for rows.Next() {
						var id int64
						if err := rows.Scan(&id); err != nil {
							t.Fatal(err)
						}
						want = append(want, id)
					}
					rows.Close()
					as, err := s.Alerts(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					var got []int64
					for _, a := range as {
						got = append(got, a.ID)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("Alerts(%+v) = %v; the old SQL says %v", f, got, want)
					}
				}
			}
		}
	}
}
