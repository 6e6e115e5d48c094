package store

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

func addGateCheck(t *testing.T, s *Store, c record.GateCheck) record.GateRecord {
	t.Helper()
	var rec record.GateRecord
	if err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		rec, err = tx.AddGateCheck(context.Background(), c)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return rec
}

var dq4Fail = record.GateResult{Gate: "DQ4", Status: record.GateFail, Numbers: []string{"0.93"},
	Checks: []record.GateItem{
		{Name: "source", Status: record.GatePass, Detail: "FINDINGS.json: 4 distinct numbers"},
		{Name: "number", Status: record.GateFail, Detail: "line 3: 0.93 in \"AUC 0.93\" matches no number", Fix: "correct it"},
		{Name: "sample_size", Status: record.GateWarn, Detail: "no sample size is stated (n = …)", Fix: "state n"},
	}}

func TestAddGateCheckAndHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	pass := record.GateResult{Gate: "DQ1", Status: record.GatePass, Checks: []record.GateItem{{Name: "rows", Status: record.GatePass, Detail: "12 data rows"}}}
	inputs := []record.GateInput{{Path: "RQ-001/04-results/F.md", SHA256: "aa"}, {Path: "RQ-001/04-results/F.json", SHA256: "bb"}}

	first := addGateCheck(t, s, record.GateCheck{Project: "/p", ClaimID: "C-001", Result: dq4Fail, Inputs: inputs, At: t0})
	second := addGateCheck(t, s, record.GateCheck{Session: "s1", Project: "/p", Result: pass, At: t0.Add(time.Minute)})
	addGateCheck(t, s, record.GateCheck{Project: "/other", ClaimID: "C-001", Result: dq4Fail, At: t0.Add(2 * time.Minute)})

	wantFirst := record.GateRecord{ID: first.ID, Project: "/p", GateID: "DQ4", ClaimID: "C-001", Status: record.GateFail,
		Passed: 1, Warned: 1, Failed: 1, Checks: dq4Fail.Checks, Numbers: []string{"0.93"}, Inputs: inputs,
		DecisionHash: first.DecisionHash, At: t0}
	if first.ID == 0 || len(first.DecisionHash) != 64 {
		t.Fatalf("first = %+v", first)
	}
	if !reflect.DeepEqual(first, wantFirst) {
		t.Errorf("AddGateCheck returned\n%+v\nwant\n%+v", first, wantFirst)
	}
	wantSecond := record.GateRecord{ID: second.ID, Session: "s1", Project: "/p", GateID: "DQ1", Status: record.GatePass,
		Passed: 1, Checks: pass.Checks, DecisionHash: second.DecisionHash, At: t0.Add(time.Minute)}

	tests := []struct {
		name                   string
		project, gateID, claim string
		limit                  int
		want                   []record.GateRecord
	}{
		{"project, newest first", "/p", "", "", 0, []record.GateRecord{wantSecond, wantFirst}},
		{"one gate", "/p", "DQ4", "", 0, []record.GateRecord{wantFirst}},
		{"one claim", "/p", "", "C-001", 0, []record.GateRecord{wantFirst}},
		{"limit", "/p", "", "", 1, []record.GateRecord{wantSecond}},
		{"no match", "/p", "DQ3", "", 0, nil},
	}
	for _, tc := range tests {
		got, err := s.GateHistory(ctx, tc.project, tc.gateID, tc.claim, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
	all, err := s.GateHistory(ctx, "", "DQ4", "C-001", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Project != "/other" || all[1].Project != "/p" {
		t.Errorf("every project: %+v", all)
	}
	// The recorded PASS is what promotion gating reads.
	passed, err := s.PassedGates(ctx, "/p", "C-001")
	if err != nil {
		t.Fatal(err)
	}
	if len(passed) != 0 {
		t.Errorf("a FAIL counts as passed: %v", passed)
	}
	addGateCheck(t, s, record.GateCheck{Project: "/p", ClaimID: "C-001", Result: pass, At: t0.Add(3 * time.Minute)})
	if passed, _ = s.PassedGates(ctx, "/p", "C-001"); !passed["DQ1"] || len(passed) != 1 {
		t.Errorf("PassedGates after a DQ1 PASS = %v", passed)
	}
	// The session's own counters see the check it recorded.
	counts, err := sessionCounts(s, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if counts.GatesPassed != 1 || counts.GatesFailed != 0 {
		t.Errorf("session counts = %+v", counts)
	}
}

func sessionCounts(s *Store, id string) (record.SessionCounts, error) {
	var c record.SessionCounts
	err := s.Tx(context.Background(), func(tx *Tx) error {
		var err error
		c, err = tx.SessionCountsFor(context.Background(), id)
		return err
	})
	return c, err
}

func TestAddGateCheckStatusFollowsTheChecks(t *testing.T) {
	s := openTest(t)
	// A Result whose Status field says PASS while a check failed is
	// recorded as the FAIL it is.
	stale := record.GateResult{Gate: "DQ3", Status: record.GatePass, Checks: []record.GateItem{{Name: "n", Status: record.GateFail, Detail: "n = 3"}}}
	rec := addGateCheck(t, s, record.GateCheck{Project: "/p", Result: stale, At: t0})
	if rec.Status != record.GateFail || rec.Failed != 1 {
		t.Errorf("recorded %+v", rec)
	}
	var status string
	if err := s.DB().QueryRow("SELECT status FROM gate_checks WHERE id = ?", rec.ID).Scan(&status); err != nil || status != "FAIL" {
		t.Errorf("stored status %q, %v", status, err)
	}
}

func TestAddGateCheckScrubsSecrets(t *testing.T) {
	s := openTest(t)
	secret := "sk-ant-api03-" + strings.Repeat("A", 40)
	res := record.GateResult{Gate: "L0", Status: record.GateFail, Checks: []record.GateItem{
		{Name: "schema", Status: record.GateFail, Detail: "at /token: " + secret + " is not allowed", Fix: "remove <private>my note</private>"}}}
	rec := addGateCheck(t, s, record.GateCheck{Project: "/p", Result: res, Inputs: []record.GateInput{{Path: "a.json"}}, At: t0})
	var details string
	if err := s.DB().QueryRow("SELECT details FROM gate_checks WHERE id = ?", rec.ID).Scan(&details); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(details, secret) || strings.Contains(details, "my note") {
		t.Errorf("details keep a secret: %s", details)
	}
}

func TestAddGateCheckRejects(t *testing.T) {
	s := openTest(t)
	tests := []struct {
		name string
		c    record.GateCheck
		kind fault.Kind
	}{
		{"no gate", record.GateCheck{Project: "/p", At: t0}, fault.Invalid},
		{"no project", record.GateCheck{Result: record.GateResult{Gate: "DQ1"}, At: t0}, fault.Invalid},
		{"unknown session", record.GateCheck{Session: "nope", Project: "/p", Result: record.GateResult{Gate: "DQ1", Status: record.GatePass}, At: t0}, fault.Invalid},
	}
	for _, tc := range tests {
		err := s.Tx(context.Background(), func(tx *Tx) error {
			_, err := tx.AddGateCheck(context.Background(), tc.c)
			return err
		})
		if fault.KindOf(err) != tc.kind {
			t.Errorf("%s: error %v (kind %v), want kind %v", tc.name, err, fault.KindOf(err), tc.kind)
		}
	}
}

func TestGateDecisionHash(t *testing.T) {
	base := record.GateCheck{Project: "/p", ClaimID: "C-001", Result: dq4Fail, Inputs: []record.GateInput{{Path: "F.md", SHA256: "aa"}}, At: t0}
	h := GateDecisionHash(base)
	same := base
	same.Session, same.At, same.Project = "s9", t0.Add(time.Hour), "/elsewhere"
	if GateDecisionHash(same) != h {
		t.Error("the session, time or project changed the decision hash")
	}
	for name, change := range map[string]func(*record.GateCheck){
		"claim":  func(c *record.GateCheck) { c.ClaimID = "C-002" },
		"input":  func(c *record.GateCheck) { c.Inputs = []record.GateInput{{Path: "F.md", SHA256: "ab"}} },
		"result": func(c *record.GateCheck) { r := dq4Fail; r.Numbers = []string{"0.94"}; c.Result = r },
		"gate":   func(c *record.GateCheck) { r := dq4Fail; r.Gate = "DQ3"; c.Result = r },
		"status": func(c *record.GateCheck) {
			r := dq4Fail
			r.Checks = []record.GateItem{dq4Fail.Checks[0], dq4Fail.Checks[2]}
			c.Result = r
		},
	} {
		c := base
		change(&c)
		if GateDecisionHash(c) == h {
			t.Errorf("changing the %s kept the decision hash", name)
		}
	}
}
