package narrative

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
)

func conf(f float64) *float64 { return &f }

// TestBuild renders a session's facts, built in memory as the store would
// return them, into the fixed summary: actions by count (ties by name),
// claims with their status change, confidence and kill reason, failed gates
// in order and passed gates once each, corrections and literature.
func TestBuild(t *testing.T) {
	f := record.SessionFacts{
		SessionID: "0123456789abcdef",
		Actions:   map[string]int{"FILE_READ": 4, "COMMAND": 2, "LITERATURE": 2},
		Total:     8,
		Claims: []record.ClaimState{
			{ClaimID: "C-001", EventType: "CREATED", NewStatus: "CREATED", Confidence: conf(0.6)},
			{ClaimID: "C-002", EventType: "KILLED", NewStatus: "KILLED", KillReason: "CONFOUNDED"},
			{ClaimID: "C-003", EventType: "STATUS_CHANGE", NewStatus: "ROBUST"},
		},
		Gates: []record.GateOutcome{
			{GateID: "DQ4", ClaimID: "C-001", Status: "FAIL"},
			{GateID: "DQ1", Status: "PASS"},
			{GateID: "DQ1", Status: "PASS"},
			{GateID: "DQ2", Status: "WARN"},
		},
		Corrections: []record.SpineEntry{{ActionType: "BUG_FIX", InputSummary: "fix fold split"}},
		Literature:  []string{"CRISPR off-target bulges", "GUIDE-seq"},
	}
	want := `Session 01234567: 8 actions (FILE_READ 4, COMMAND 2, LITERATURE 2).
Claims:
- C-001 CREATED (confidence 0.60)
- C-002 KILLED, reason CONFOUNDED
- C-003 STATUS_CHANGE → ROBUST
Gates failed: DQ4 (C-001).
Gates passed: DQ1.
Corrections and decisions:
- [BUG_FIX] fix fold split
Literature consulted: CRISPR off-target bulges; GUIDE-seq.`
	if got := Build(f); got != want {
		t.Errorf("Build:\n%s\nwant\n%s", got, want)
	}
	if got := Build(record.SessionFacts{SessionID: "s1"}); got != "Session s1: 0 actions." {
		t.Errorf("an empty session: %q", got)
	}
}

// TestBuildCapsLists: each list section shows MaxLines items and counts
// the rest, so a long session still summarises briefly.
func TestBuildCapsLists(t *testing.T) {
	var f record.SessionFacts
	for i := range MaxLines + 3 {
		f.Claims = append(f.Claims, record.ClaimState{ClaimID: fmt.Sprintf("C-%03d", i), EventType: "CREATED"})
		f.Gates = append(f.Gates, record.GateOutcome{GateID: fmt.Sprintf("G%d", i), Status: "FAIL"})
	}
	got := Build(f)
	for _, want := range []string{"\n- C-007 CREATED\n- … 3 more", "G7, … 3 more."} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "C-008") || strings.Contains(got, "G8") {
		t.Errorf("summary lists more than %d items:\n%s", MaxLines, got)
	}
}
