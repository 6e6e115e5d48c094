package permission

import "testing"

// The scenarios of blueprint section 7.2, each in SOLO and TEAM mode: a
// subagent's rules do not depend on the mode.
func blueprint72(t *testing.T, agent, tool, path string, want Action, rule, reason string) {
	t.Helper()
	prj := newProject(t)
	in := write("$ROOT/" + path)
	if tool == "Edit" {
		in = map[string]any{"file_path": "$ROOT/" + path, "old_string": "x", "new_string": "y"}
	}
	for _, p := range []*Policy{Default(), teamPolicy(t)} {
		req := prj.request(agent, tool, in, "")
		d := p.Check(req)
		if d.Action != want || d.Rule != rule || d.Reason != reason {
			t.Errorf("mode %s: got %s by %s: %q\nwant %s by %s: %q", p.Mode(), d.Action, d.Rule, d.Reason, want, rule, reason)
		}
	}
}

func TestBlueprint72_ReviewerEditsLedgerBlocked(t *testing.T) {
	blueprint72(t, "vibe:reviewer2", "Edit", "CLAIM-LEDGER.md", Deny, "reviewer2.deny.ledger",
		"reviewer2 may not write CLAIM-LEDGER.md (rule reviewer2.deny.ledger): reviewer2 writes verdicts under 05-reviewer2/; the researcher updates CLAIM-LEDGER.md.")
}

func TestBlueprint72_ReviewerWritesReportAllowed(t *testing.T) {
	blueprint72(t, "vibe:reviewer2", "Write", "RQ-001/05-reviewer2/report.yaml", Allow, "reviewer2.allow",
		"reviewer2 may write RQ-001/05-reviewer2/report.yaml (rule reviewer2.allow).")
}

func TestBlueprint72_JudgeEditsReviewBlocked(t *testing.T) {
	blueprint72(t, "vibe:judge", "Edit", "RQ-001/05-reviewer2/R2-001.yaml", Deny, "judge.deny.r2-reports",
		"judge may not write RQ-001/05-reviewer2/R2-001.yaml (rule judge.deny.r2-reports): the judge reads Reviewer 2 reports and never edits them; it writes its scores under 05-reviewer2/judge-reports/.")
}

func TestBlueprint72_ResearcherWritesFindingsAllowed(t *testing.T) {
	// In TEAM mode the main thread is the lead, which may write it as well.
	prj := newProject(t)
	req := prj.request("", "Write", write("$ROOT/FINDINGS.md"), "")
	for _, tc := range []struct {
		p    *Policy
		rule string
	}{{Default(), "researcher.allow"}, {teamPolicy(t), "lead.allow"}} {
		d := tc.p.Check(req)
		if d.Action != Allow || d.Rule != tc.rule || len(d.Paths) != 1 || d.Paths[0] != "FINDINGS.md" {
			t.Errorf("mode %s: got %s by %s %v, want allow by %s [FINDINGS.md]", tc.p.Mode(), d.Action, d.Rule, d.Paths, tc.rule)
		}
	}
}

func TestBlueprint72_SerendipityWritesLedgerBlocked(t *testing.T) {
	blueprint72(t, "vibe:serendipity", "Edit", "CLAIM-LEDGER.md", Deny, "serendipity.deny.ledger",
		"serendipity may not write CLAIM-LEDGER.md (rule serendipity.deny.ledger): serendipity records what it noticed in SERENDIPITY.md; the researcher decides what enters CLAIM-LEDGER.md.")
}

// forensic runs the same call through every tool that can write a file.
func forensic(t *testing.T, p *Policy, agent, path string, want Action, rule string) {
	t.Helper()
	prj := newProject(t)
	calls := []struct {
		tool  string
		input map[string]any
	}{
		{"Write", write("$ROOT/" + path)},
		{"Edit", map[string]any{"file_path": "$ROOT/" + path, "old_string": "x", "new_string": "y"}},
		{"MultiEdit", map[string]any{"file_path": "$ROOT/" + path, "edits": []any{}}},
		{"Bash", bash("printf 'x\\n' >> '" + path + "'")},
	}
	for _, c := range calls {
		d := p.Check(prj.request(agent, c.tool, c.input, ""))
		wantRule := rule
		switch {
		case c.tool == "Bash" && agent == "vibe:judge":
			wantRule = "judge.bash.write" // the judge never writes through Bash
		case c.tool == "Bash" && agent == "vibe:serendipity":
			wantRule = "serendipity.tools" // serendipity has no Bash at all
		}
		if d.Action != want || d.Rule != wantRule {
			t.Errorf("%s %s: got %s by %s (%s), want %s by %s", c.tool, path, d.Action, d.Rule, d.Reason, want, wantRule)
		}
	}
}

// F1: Reviewer 2 is blocked from writing the claim ledger.
func TestForensicF1(t *testing.T) {
	forensic(t, Default(), "vibe:reviewer2", "CLAIM-LEDGER.md", Deny, "reviewer2.deny.ledger")
	forensic(t, teamPolicy(t), "reviewer2", "RQ-001/../CLAIM-LEDGER.md", Deny, "reviewer2.deny.ledger")
}

// F2: the judge is blocked from modifying Reviewer 2 reports.
func TestForensicF2(t *testing.T) {
	forensic(t, Default(), "vibe:judge", "RQ-001/05-reviewer2/R2-001.yaml", Deny, "judge.deny.r2-reports")
}

// F3: serendipity is blocked from writing the claim ledger.
func TestForensicF3(t *testing.T) {
	forensic(t, Default(), "vibe:serendipity", "CLAIM-LEDGER.md", Deny, "serendipity.deny.ledger")
}

// F4: the researcher may write everywhere in the project except the R2
// reports (and the read-only data and schemas).
func TestForensicF4(t *testing.T) {
	for _, path := range []string{"CLAIM-LEDGER.md", "FINDINGS.md", "SERENDIPITY.md", "src/model.py", "RQ-001/04-results/metrics.json", "RQ-001/03-analysis/new.py"} {
		forensic(t, Default(), "", path, Allow, "researcher.allow")
	}
	for _, path := range []string{"RQ-001/05-reviewer2/R2-001.yaml", "RQ-001/05-reviewer2/judge-reports/J-001.yaml", "RQ-001/05-reviewer2/new.yaml"} {
		forensic(t, Default(), "", path, Deny, "researcher.deny.r2-reports")
	}
}

// F5: in SOLO mode the main thread is the researcher and is not held to the
// TEAM roles (it is neither the lead nor a restricted subagent), while the
// R2 reports stay protected.
func TestForensicF5(t *testing.T) {
	p := Default()
	if p.TeamMode() {
		t.Fatal("the default policy must be SOLO")
	}
	if got := p.RoleFor("", false); got != "researcher" {
		t.Fatalf("main thread in SOLO: got %s, want researcher", got)
	}
	if got := p.RoleFor("", true); got != "lead" {
		t.Fatalf("main thread in TEAM: got %s, want lead", got)
	}
	prj := newProject(t)
	for _, tc := range []struct {
		tool  string
		input map[string]any
		want  Action
		rule  string
	}{
		{"Write", write("$ROOT/CLAIM-LEDGER.md"), Allow, "researcher.allow"},
		{"Bash", bash("echo '| C-003 | PROVISIONAL |' >> CLAIM-LEDGER.md && git add -A"), Allow, "researcher.allow"},
		{"Write", write("$ROOT/RQ-001/02-data/processed/clean.csv"), Allow, "researcher.allow"},
		{"mcp__notes__write_note", map[string]any{"path": "$ROOT/notes/today.md"}, Allow, "researcher.allow"},
		{"Write", write("$ROOT/RQ-001/05-reviewer2/R2-001.yaml"), Deny, "researcher.deny.r2-reports"},
		{"Bash", bash("rm RQ-001/05-reviewer2/R2-001.yaml"), Deny, "researcher.deny.r2-reports"},
	} {
		d := p.Check(prj.request("", tc.tool, tc.input, ""))
		if d.Action != tc.want || d.Rule != tc.rule || d.Role != "researcher" {
			t.Errorf("%s %v: got %s by %s as %s, want %s by %s as researcher", tc.tool, tc.input, d.Action, d.Rule, d.Role, tc.want, tc.rule)
		}
	}
}
