package hookrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Forensic checklist items (blueprint section 15) judged on the hook
// replies of recorded cases in testdata/. Each test names what the item asks
// and asserts it on the reply Claude Code would receive.

func runNamed(t *testing.T, hookFolder, name string) goldenOut {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", hookFolder, name+".in.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c goldenCase
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return runCase(t, specs[hookFolder], c)
}

func replyField(t *testing.T, r json.RawMessage, path ...string) string {
	t.Helper()
	var v any
	json.Unmarshal(r, &v)
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

// TestForensicC1: a blocking verdict actually stops the agent. vibe blocks
// at PreToolUse (before the write), where a deny is final; PostToolUse
// cannot undo a call, so it only reports.
func TestForensicC1(t *testing.T) {
	out := runNamed(t, "pre-tool-use", "reviewer-write-ledger-lowercase")
	if got := replyField(t, out.Replies[0], "hookSpecificOutput", "permissionDecision"); got != "deny" {
		t.Fatalf("permissionDecision = %q, want deny", got)
	}
	if out.ExitCodes[0] != 0 {
		t.Errorf("exit %d: the decision is carried by JSON on exit 0", out.ExitCodes[0])
	}
}

// TestForensicC3: the claim-ledger gate denies a promotion whose gates
// have not passed, naming each missing gate and its command.
func TestForensicC3(t *testing.T) {
	out := runNamed(t, "pre-tool-use", "ledger-promotion-without-gates")
	reason := replyField(t, out.Replies[0], "hookSpecificOutput", "permissionDecisionReason")
	for _, want := range []string{"C-001 cannot become PROMOTED", "DQ4", "DQ1", "DC0", "vibe gate run DQ1"} {
		if !strings.Contains(reason, want) {
			t.Errorf("reason lacks %q: %s", want, reason)
		}
	}
	if out.Rows["claim_events"] != 0 {
		t.Errorf("a denied promotion recorded claim events")
	}
}

// TestForensicC5: every significant action lands in the research spine
// with its provenance.
func TestForensicC5(t *testing.T) {
	out := runNamed(t, "post-tool-use", "write")
	if out.Rows["spine_entries"] != 1 || out.Rows["provenance"] != 1 {
		t.Errorf("rows %v, want one spine entry and one provenance row", out.Rows)
	}
	out = runNamed(t, "post-tool-use", "bash-with-secret")
	if out.Rows["spine_entries"] != 1 || out.Rows["memories"] != 1 {
		t.Errorf("a training run must be recorded and remembered: %v", out.Rows)
	}
}

// TestForensicC7: Stop writes the narrative summary (checked on the second
// session's context, which shows the first session's narrative).
func TestForensicC7(t *testing.T) {
	out := runNamed(t, "session-start", "second-session-sees-narrative")
	ctx := replyField(t, out.Replies[1], "hookSpecificOutput", "additionalContext")
	if !strings.Contains(ctx, "Session 372e7d5d: 1 actions (DOCUMENTATION 1).") {
		t.Errorf("the previous narrative is missing from: %s", ctx)
	}
}

// TestForensicC8: Stop blocks while claims are unreviewed (LAW 4), bounded,
// and a review clears it.
func TestForensicC8(t *testing.T) {
	out := runNamed(t, "stop", "law4-blocks-then-lets-go")
	want := []string{"block", "block", "", "block"}
	for i, w := range want {
		if got := replyField(t, out.Replies[i], "decision"); got != w {
			t.Errorf("stop %d: decision %q, want %q", i+1, got, w)
		}
	}
	out = runNamed(t, "stop", "law4-review-clears")
	if replyField(t, out.Replies[1], "decision") != "" {
		t.Errorf("a reviewed claim still blocks Stop")
	}
}

// TestForensicB7: without a database the session starts and resumes from
// the .vibe-science files, saying so.
func TestForensicB7(t *testing.T) {
	out := runNamed(t, "session-start", "no-database-resumes-from-files")
	ctx := replyField(t, out.Replies[0], "hookSpecificOutput", "additionalContext")
	for _, want := range []string{"Database unavailable: resuming from .vibe-science files.", "C-001 PROVISIONAL", "re-run DQ2 on fold 3"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("context lacks %q:\n%s", want, ctx)
		}
	}
	if replyField(t, out.Replies[0], "systemMessage") == "" {
		t.Error("the user is not told the database is unavailable")
	}
}
