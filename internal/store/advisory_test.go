package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// TestDecisionsFilters: by project, session, kind, check and time, newest
// first; without kinds every decision but the recorded-only ones.
func TestDecisionsFilters(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	type rec struct {
		session, project, event, tool, check string
		result                               verdict.Result
		kind, file                           string
		at                                   time.Duration
	}
	recs := []rec{
		{"s1", "/p", "PreToolUse", "Write", "DQ4", verdict.Block, "deny", "a/FINDINGS.md", 0},
		{"s1", "/p", "PreToolUse", "Bash", "permission", verdict.Warn, "ask", "", time.Minute},
		{"s1", "/p", "PostToolUse", "Bash", "DC0", verdict.Warn, "warn", "results/x.csv", 2 * time.Minute},
		{"s2", "/p", "PostToolUse", "Bash", "tamper", verdict.Block, "block", ".vibe-science/CLAIM-LEDGER.md", 3 * time.Minute},
		{"s2", "/p", "PostToolUse", "Write", "DQ1", verdict.Pass, "recorded", "data/f.csv", 4 * time.Minute},
		{"s3", "/q", "Stop", "", "review", verdict.Block, "block", "", 5 * time.Minute},
	}
	if err := s.Tx(ctx, func(tx *Tx) error {
		for _, r := range recs {
			v := verdict.New(r.check, r.result, verdict.High, r.check+" reason", nil)
			v.Recommendation = "fix " + r.check
			v.Evidence.Claims = []string{"C-001"}
			if r.check == "DC0" {
				v.Evidence.Claims = []string{"C-002", "C-003"}
			}
			c := record.AdvisoryContext{SessionID: r.session, ProjectPath: r.project, Event: r.event, Tool: r.tool, At: t0.Add(r.at)}
			if err := tx.AppendAdvisories(ctx, c, []verdict.Verdict{v}, record.Decided{Kind: r.kind, File: r.file}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		f    record.DecisionFilter
		want string // checks, newest first
	}{
		{record.DecisionFilter{Project: "/p"}, "[tamper DC0 permission DQ4]"},
		{record.DecisionFilter{}, "[review tamper DC0 permission DQ4]"},
		{record.DecisionFilter{Project: "/p", Kinds: record.DecisionKinds}, "[DQ1 tamper DC0 permission DQ4]"},
		{record.DecisionFilter{Project: "/p", Session: "s1"}, "[DC0 permission DQ4]"},
		{record.DecisionFilter{Project: "/p", Kinds: []string{"deny", "block"}}, "[tamper DQ4]"},
		{record.DecisionFilter{Project: "/p", Kinds: []string{"ask"}}, "[permission]"},
		{record.DecisionFilter{Project: "/p", Checks: []string{"DQ4", "DC0"}}, "[DC0 DQ4]"},
		{record.DecisionFilter{Project: "/p", Since: t0.Add(2 * time.Minute)}, "[tamper DC0]"},
		{record.DecisionFilter{Project: "/p", Limit: 2}, "[tamper DC0]"},
		{record.DecisionFilter{Project: "/nowhere"}, "[]"},
		{record.DecisionFilter{Project: "/p", Claim: "C-002"}, "[DC0]"},
		{record.DecisionFilter{Project: "/p", Claim: "C-001"}, "[tamper permission DQ4]"},
	}
	for _, c := range cases {
		got, err := s.Decisions(ctx, c.f)
		if err != nil {
			t.Fatal(err)
		}
		checks := []string{}
		for _, d := range got {
			checks = append(checks, d.Check)
		}
		if fmt.Sprint(checks) != c.want {
			t.Errorf("%+v: %v, want %s", c.f, checks, c.want)
		}
	}
	got, _ := s.Decisions(ctx, record.DecisionFilter{Project: "/p", Checks: []string{"DQ4"}})
	want := record.Decision{ID: 1, SessionID: "s1", ProjectPath: "/p", Event: "PreToolUse", Tool: "Write", File: "a/FINDINGS.md",
		Check: "DQ4", Result: "BLOCK", Severity: "HIGH", Kind: "deny", Reason: "DQ4 reason", Recommendation: "fix DQ4",
		Claims: []string{"C-001"}, DecisionHash: verdict.Hash("DQ4", nil, verdict.Block), At: t0}
	if len(got) != 1 || fmt.Sprintf("%+v", got[0]) != fmt.Sprintf("%+v", want) {
		t.Fatalf("decision\n%+v\nwant\n%+v", got, want)
	}
	counts, err := s.DecisionCounts(ctx, "/p")
	if err != nil || fmt.Sprint(counts) != "[{ask 1} {block 1} {deny 1} {warn 1}]" {
		t.Fatalf("counts %v %v", counts, err)
	}
}

// TestHookDecisionsBackfill: verdicts recorded before hook_decisions existed
// get the decision the reply table made of them, the call's tool (from its
// spine entry, else the verdict's input) and their first evidence path.
func TestHookDecisionsBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type old struct {
		event, toolUse, check string
		result                verdict.Result
		input                 any
		paths                 []string
	}
	olds := []old{
		{"PreToolUse", "toolu_1", "permission", verdict.HardBlock, map[string]string{"tool": "Bash"}, []string{"data/raw/x.csv"}},
		{"PostToolUse", "toolu_2", "DQ1", verdict.Block, nil, []string{"data/f.csv", "data/g.csv"}},
		{"PostToolUseFailure", "toolu_3", "DQ1", verdict.Warn, nil, nil},
		{"Stop", "", "review", verdict.Block, nil, nil},
		{"SessionStart", "", "tamper", verdict.HardBlock, nil, nil},
		{"PreToolUse", "toolu_4", "brief-constraint", verdict.Pass, nil, nil},
	}
	err = s.Tx(ctx, func(tx *Tx) error {
		if err := tx.UpsertSession(ctx, record.SessionSeen{ID: "s1", ProjectPath: "/p", At: t0}); err != nil {
			return err
		}
		if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: "s1", ProjectPath: "/p", At: t0, ActionType: "WRITE",
			ToolName: "Write", ToolUseID: "toolu_2"}, nil); err != nil {
			return err
		}
		for _, o := range olds {
			v := verdict.New(o.check, o.result, verdict.High, o.check, o.input)
			v.Evidence.Paths = o.paths
			// No decided: as an older vibe recorded them.
			if err := tx.AppendAdvisories(ctx, record.AdvisoryContext{SessionID: "s1", ProjectPath: "/p", Event: o.event,
				ToolUseID: o.toolUse, At: t0}, []verdict.Verdict{v}); err != nil {
				return err
			}
		}
		// A row whose JSON is not JSON must not stop the migration.
		_, err := tx.tx.ExecContext(ctx, `INSERT INTO advisories (project_path, event, check_name, result, severity, reason,
    evidence, input, decision_hash, ts) VALUES ('/p', 'PreToolUse', 'odd', 'BLOCK', 'HIGH', 'odd', '{', 'nope', 'h', 0)`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	version := 0
	ms, _ := db.Migrations()
	for _, m := range ms {
		if m.Name == "hook_decisions" {
			version = m.Version
		}
	}
	for _, q := range []string{"DROP TABLE hook_decisions", fmt.Sprintf("PRAGMA user_version = %d", version-1)} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	if s, err = Open(ctx, path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(ctx); v != db.Latest() {
		t.Fatalf("version %d, want %d", v, db.Latest())
	}
	got, err := s.Decisions(ctx, record.DecisionFilter{Project: "/p", Kinds: record.DecisionKinds})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, d := range got {
		rows = append(rows, fmt.Sprintf("%s %s %s %s tool=%s file=%s", d.Event, d.Check, d.Result, d.Kind, d.Tool, d.File))
	}
	want := []string{
		"PreToolUse brief-constraint PASS recorded tool= file=",
		"SessionStart tamper HARD_BLOCK warn tool= file=",
		"Stop review BLOCK block tool= file=",
		"PostToolUseFailure DQ1 WARN warn tool= file=",
		"PostToolUse DQ1 BLOCK block tool=Write file=data/f.csv",
		"PreToolUse permission HARD_BLOCK deny tool=Bash file=data/raw/x.csv",
		"PreToolUse odd BLOCK deny tool= file=",
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("backfilled\n%v\nwant\n%v", rows, want)
	}
}
