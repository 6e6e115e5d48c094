package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// sessionStartQueries are the store reads one SessionStart makes in the
// resident worker (handler.handleSessionStart, disclosure.statePart and
// sessionMemories, seeds.Tick and Pending, calibrate.Hint and Patterns,
// integritycheck.BriefContext), each called as the hook calls it.
var sessionStartQueries = []struct {
	name string
	run  func(ctx context.Context, s *Store, project, session string) error
}{
	{"ProjectSessionCount", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.ProjectSessionCount(ctx, p)
		return err
	}},
	{"SessionCounts", func(ctx context.Context, s *Store, p, _ string) error {
		_, _, _, err := s.SessionCounts(ctx, p, "")
		return err
	}},
	{"PreviousSession", func(ctx context.Context, s *Store, p, sess string) error {
		_, _, err := s.PreviousSession(ctx, p, sess)
		return err
	}},
	{"SalientCandidates", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.SalientCandidates(ctx, p, 200) // disclosure.salientPool
		return err
	}},
	{"Alerts", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.Alerts(ctx, record.AlertFilter{Project: p, Limit: 5})
		return err
	}},
	{"AdvisoriesByCheck", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.AdvisoriesByCheck(ctx, p, "protected-change", benchNow.Add(-7*24*time.Hour), 5)
		return err
	}},
	{"RecentReviews", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.RecentReviews(ctx, p, 5)
		return err
	}},
	{"RepeatedFixes", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.RepeatedFixes(ctx, p, 2, 2)
		return err
	}},
	{"GateFailureCounts", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.GateFailureCounts(ctx, p, 2, 3)
		return err
	}},
	{"TickSeeds", func(ctx context.Context, s *Store, p, sess string) error {
		_, err := s.TickSeeds(ctx, p, sess, 3)
		return err
	}},
	{"SeedsToTriage", func(ctx context.Context, s *Store, p, _ string) error {
		_, err := s.SeedsToTriage(ctx, p, 5)
		return err
	}},
	{"CurrentBrief", func(ctx context.Context, s *Store, p, _ string) error {
		_, _, err := s.CurrentBrief(ctx, p)
		return err
	}},
}

// benchNow is the "now" of the realistic database: every row is written in
// the month before it.
var benchNow = t0.Add(30 * 24 * time.Hour)

// BenchmarkSessionStartQueries times each store read of a SessionStart on
// an empty database (the session's own row only), on a realistic one
// (fillRealistic: a few hundred rows per table in the project and as many
// in another project) and on the one `make bench` leaves (fillNarratives). Run it before and after changing a query or an
// index:
//
//	go test -tags sqlite_fts5 -run '^$' -bench SessionStartQueries ./internal/store/
func BenchmarkSessionStartQueries(b *testing.B) {
	ctx := context.Background()
	for _, db := range []struct {
		name string
		fill func(testing.TB, *Store, string)
	}{
		{"empty", func(testing.TB, *Store, string) {}},
		{"realistic", func(tb testing.TB, s *Store, p string) {
			fillRealistic(tb, s, p)
			fillRealistic(tb, s, p+"-other")
		}},
		{"narratives", fillNarratives},
	} {
		s, err := Open(ctx, filepath.Join(b.TempDir(), "vibe.db"), Options{})
		if err != nil {
			b.Fatal(err)
		}
		const project, session = "/home/u/proj", "bench-session"
		db.fill(b, s, project)
		if err := s.Tx(ctx, func(tx *Tx) error {
			return tx.UpsertSession(ctx, record.SessionSeen{ID: session, ProjectPath: project, At: benchNow, Start: true})
		}); err != nil {
			b.Fatal(err)
		}
		var total time.Duration
		for _, q := range sessionStartQueries {
			b.Run(db.name+"/"+q.name, func(b *testing.B) {
				if err := q.run(ctx, s, project, session); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				start := time.Now()
				for i := 0; i < b.N; i++ {
					if err := q.run(ctx, s, project, session); err != nil {
						b.Fatal(err)
					}
				}
				total += time.Since(start) / time.Duration(b.N)
			})
		}
		b.Run(db.name+"/all", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, q := range sessionStartQueries {
					if err := q.run(ctx, s, project, session); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		s.Close()
	}
}

// fillNarratives writes what `make bench` leaves in its project: a
// session and a narrative memory for each of 200 SessionEnds (the texts
// differ in their numbers only), and a few decisions.
func fillNarratives(tb testing.TB, s *Store, project string) {
	tb.Helper()
	ctx := context.Background()
	err := s.Tx(ctx, func(tx *Tx) error {
		for i := 0; i < 200; i++ {
			at := t0.Add(time.Duration(i) * 3 * time.Minute)
			sid := fmt.Sprintf("bench-%03d", i)
			if err := tx.UpsertSession(ctx, record.SessionSeen{ID: sid, ProjectPath: project, At: at, Start: true}); err != nil {
				return err
			}
			text := fmt.Sprintf("Session %s (exit): %d tool calls, 2 edits to analysis/run.py, 1 claim event (C-%03d PROVISIONAL), gate DQ1 passed; last prompt: re-run the GUIDE-seq alignment with the fixed aligner.", sid, 12+i%5, i%9)
			end := at.Add(time.Minute)
			if err := tx.SaveSummary(ctx, record.SessionSummary{ID: sid, Narrative: text, EndedAt: &end, EndReason: "exit"}); err != nil {
				return err
			}
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, SessionID: sid, Kind: record.KindNarrative,
				Text: text, Ref: "session:" + sid, Source: "hook", At: end}); err != nil {
				return err
			}
			if i%60 == 7 {
				if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, SessionID: sid, Kind: record.KindDecision,
					Text: fmt.Sprintf("Decided to keep GUIDE-seq reads only for run %d", i), Source: "cli", At: end}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// fillRealistic writes, with the store's own write methods, what a project
// holds after a month of work: 60 sessions (narratives, some never ended,
// timestamps that tie), 80 claims with 300 events (several status changes,
// events without a status), 300 gate checks (a fifth without a claim), 50
// alerts (half resolved), 40 seeds, 400 memories, 30 reviews, 200
// advisories of four checks, 120 spine entries (BUG_FIX among them) and 5
// briefs.
func fillRealistic(tb testing.TB, s *Store, project string) {
	tb.Helper()
	ctx := context.Background()
	at := func(i int) time.Time { return t0.Add(time.Duration(i/3) * 7 * time.Minute) } // every third ties
	sid := func(i int) string { return fmt.Sprintf("%s#s%02d", project, i%60) }
	err := s.Tx(ctx, func(tx *Tx) error {
		for i := 0; i < 60; i++ {
			if err := tx.UpsertSession(ctx, record.SessionSeen{ID: sid(i), ProjectPath: project, At: at(i * 20), Start: true}); err != nil {
				return err
			}
			sum := record.SessionSummary{ID: sid(i), Narrative: fmt.Sprintf("session %d worked on claim C-%03d", i, i%80)}
			if i%4 != 0 {
				end := at(i*20 + 5)
				sum.EndedAt = &end
			}
			if i%7 == 3 {
				sum.Narrative = ""
			}
			if err := tx.SaveSummary(ctx, sum); err != nil {
				return err
			}
		}
		statuses := []string{"PROVISIONAL", "PROMOTED", "", "DISPUTED", "VERIFIED", "KILLED", ""}
		for i := 0; i < 300; i++ {
			ev := record.ClaimEvent{ClaimID: fmt.Sprintf("C-%03d", (i*7)%80), Type: "CONFIDENCE_UPDATED",
				NewStatus: statuses[(i*5)%len(statuses)]}
			if err := tx.AddClaimEvents(ctx, sid(i), project, at(i), []record.ClaimEvent{ev}); err != nil {
				return err
			}
		}
		gates := []string{"DQ1", "DQ2", "DQ3", "L0", "L1", "V0"}
		for i := 0; i < 300; i++ {
			st := record.GatePass
			if i%3 == 0 || i%5 == 0 {
				st = record.GateFail
			}
			c := record.GateCheck{Session: sid(i), Project: project, At: at(i),
				Result: record.GateResult{Gate: gates[i%len(gates)], Checks: []record.GateItem{{Name: "n", Status: st}}}}
			if i%5 != 1 {
				c.ClaimID = fmt.Sprintf("C-%03d", (i*11)%80)
			}
			if _, err := tx.AddGateCheck(ctx, c); err != nil {
				return err
			}
		}
		for i := 0; i < 50; i++ {
			a, _, err := tx.RaiseAlert(ctx, record.NewAlert{ProjectPath: project, SessionID: sid(i), Check: "drift",
				Level: []string{"INFO", "WARN", "HALT"}[i%3], Message: fmt.Sprintf("alert %d", i),
				Fingerprint: fmt.Sprintf("fp%d", i), At: at(i * 10)})
			if err != nil {
				return err
			}
			if i%2 == 0 {
				if _, err := tx.tx.ExecContext(ctx, "UPDATE observer_alerts SET resolved = 1, resolved_at = ? WHERE id = ?",
					at(i*10+1).UnixMilli(), a.ID); err != nil {
					return err
				}
			}
		}
		for i := 0; i < 40; i++ {
			r := record.SeedRecord{SeedID: fmt.Sprintf("SEED-%03d", i), ProjectPath: project, Source: "OBSERVER",
				Status: []string{"PENDING_TRIAGE", "QUEUED", "PROMOTED", "PENDING_TRIAGE", "DISCARDED"}[i%5],
				Title:  fmt.Sprintf("seed %d", i)}
			if i%3 != 0 {
				v := float64(i%4) / 4
				r.Score = &v
			}
			if _, err := tx.UpsertSeed(ctx, r, sid(i), at(i*30)); err != nil {
				return err
			}
		}
		kinds := []string{record.KindDecision, record.KindGateFailure, record.KindClaimEvent, record.KindNote,
			record.KindNarrative, record.KindInsight}
		for i := 0; i < 400; i++ {
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, SessionID: sid(i), Kind: kinds[i%len(kinds)],
				Text: fmt.Sprintf("memory %d about claim C-%03d and gate DQ%d", i, i%80, i%4), Source: "hook", At: at(i), Checked: true}); err != nil {
				return err
			}
		}
		for i := 0; i < 30; i++ {
			score := 10 + i%8
			if _, err := tx.UpsertReview(ctx, record.R2Review{ReviewID: fmt.Sprintf("%s-R%02d", project, i), SessionID: sid(i),
				ProjectPath: project, Mode: "INLINE", Claims: []string{fmt.Sprintf("C-%03d", i)}, J0Score: &score,
				J0Dimensions: map[string]int{"evidence": i % 3, "alternatives": (i + 1) % 3}, At: at(i * 40)}); err != nil {
				return err
			}
		}
		checks := []string{"protected-change", "permission", "brief-anchors", "config-drift"}
		for i := 0; i < 200; i++ {
			v := verdict.New(checks[i%len(checks)], verdict.Warn, verdict.Med, fmt.Sprintf("reason %d", i),
				map[string]string{"i": fmt.Sprint(i)})
			if err := tx.AppendAdvisories(ctx, record.AdvisoryContext{SessionID: sid(i), ProjectPath: project,
				Event: "PostToolUse", At: benchNow.Add(-time.Duration(200-i) * 90 * time.Minute)}, []verdict.Verdict{v}); err != nil {
				return err
			}
		}
		for i := 0; i < 120; i++ {
			e := record.SpineEntry{SessionID: sid(i), ProjectPath: project, At: at(i), ActionType: "EDIT", ToolName: "Edit",
				ToolUseID: fmt.Sprintf("%s-tu%d", project, i), InputSummary: fmt.Sprintf("edit file%d.py", i%9)}
			if i%4 == 0 {
				e.ActionType, e.InputSummary = "BUG_FIX", fmt.Sprintf("fix off-by-one in step %d", i%5)
			}
			if _, err := tx.AddSpine(ctx, e, nil); err != nil {
				return err
			}
		}
		for i := 0; i < 5; i++ {
			if _, err := tx.AddBrief(ctx, record.BriefVersion{ProjectPath: project, SourcePath: "BRIEF.md",
				Hash: fmt.Sprintf("%s-h%d", project, i), Title: "brief", Content: []byte(`{"constraints":[]}`),
				IngestedAt: at(i * 100)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}
