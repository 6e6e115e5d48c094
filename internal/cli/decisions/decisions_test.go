package decisions

import (
	"context"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

func TestNewCmdDecisionsFlags(t *testing.T) {
	f, _, _ := clitest.New(t, clitest.Options{})
	clitest.Flags(t, func(runF func(*DecisionsOptions) error) *cobra.Command { return NewCmdDecisions(f, runF) },
		func(o *DecisionsOptions) { o.IO, o.Store, o.ProjectRoot, o.Now = cli.IO{}, nil, nil, nil },
		[]clitest.FlagCase[DecisionsOptions]{
			{Argv: nil, Want: DecisionsOptions{Limit: 50}},
			{Argv: []string{"--kind", "deny,Block", "--kind", "ask", "--check", "DQ4", "--session", "5c1e", "--since", "7d",
				"--limit", "5", "--json", "--project", "/p"},
				Want: DecisionsOptions{Kinds: []string{"deny", "block", "ask"}, Checks: []string{"DQ4"}, Session: "5c1e",
					Since: 7 * 24 * time.Hour, Limit: 5, JSON: true, Project: "/p"}},
			{Argv: []string{"--kind", "all", "--all"}, Want: DecisionsOptions{Kinds: record.DecisionKinds, All: true, Limit: 50}},
			{Argv: []string{"--kind", "denied"}, Err: `--kind must be one of deny, block, ask, warn, recorded or all, not "denied"`},
			{Argv: []string{"--limit", "0"}, Err: "--limit must be at least 1, not 0"},
			{Argv: []string{"extra"}, Err: `unknown command "extra"`},
		})
}

// seed records what a session of hooks decided in project root (and one
// decision of another project).
func seed(t *testing.T, f *cli.Factory, root string) {
	t.Helper()
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type dec struct {
		session, project, event, tool, check string
		result                               verdict.Result
		kind, file, reason                   string
		at                                   time.Duration
	}
	decs := []dec{
		{"5c1e7a00-0000-4000-8000-00000000beef", root, "PreToolUse", "Write", "DQ4", verdict.Block, "deny",
			".vibe-science/RQ-001/04-results/FINDINGS.md", "DQ4 FAIL: 0.83 in FINDINGS.md is not in FINDINGS.json.", 0},
		{"5c1e7a00-0000-4000-8000-00000000beef", root, "PreToolUse", "Bash", "permission", verdict.Warn, "ask",
			"", `researcher wants to run "pip install numpy", which needs the user's approval.`, time.Minute},
		{"5c1e7a00-0000-4000-8000-00000000beef", root, "PostToolUse", "Bash", "DC0", verdict.Warn, "warn",
			"results/sample.csv", "results/sample.csv is no input or output of a planned step.", 2 * time.Minute},
		{"9a9a0000-0000-4000-8000-000000000001", root, "Stop", "", "review", verdict.Block, "block",
			"", "C-001 was promoted without a review.", 3 * time.Minute},
		{"9a9a0000-0000-4000-8000-000000000001", root, "PostToolUse", "Write", "DQ1", verdict.Pass, "recorded",
			"data/f.csv", "DQ1 PASS", 4 * time.Minute},
		{"7e7e0000-0000-4000-8000-000000000002", "/elsewhere", "PreToolUse", "Write", "L-1", verdict.Block, "deny",
			"DIRECTION.md", "No literature search yet.", 5 * time.Minute},
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error {
		for _, d := range decs {
			if err := tx.UpsertSession(ctx, record.SessionSeen{ID: d.session, ProjectPath: d.project, At: t0}); err != nil {
				return err
			}
			v := verdict.New(d.check, d.result, verdict.High, d.reason, nil)
			v.Recommendation = "fix it"
			c := record.AdvisoryContext{SessionID: d.session, ProjectPath: d.project, Event: d.event, Tool: d.tool, At: t0.Add(d.at)}
			if err := tx.AppendAdvisories(ctx, c, []verdict.Verdict{v}, record.Decided{Kind: d.kind, File: d.file}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestRunDecisions(t *testing.T) {
	root := clitest.Project(t)
	cases := []struct {
		name       string
		argv       []string
		tty        bool
		out, err   string
		exitNonOK  bool
		otherStore bool
	}{
		{name: "a pipe gets every column whole, tab-separated", argv: []string{"--project", root},
			out: "TIME\tSESSION\tHOOK\tDECISION\tCHECK\tTOOL\tFILE\tMESSAGE\n" +
				"2026-11-20 09:03\t9a9a0000\tStop\tblock\treview\t-\t-\tC-001 was promoted without a review.\n" +
				"2026-11-20 09:02\t5c1e7a00\tPostToolUse\twarn\tDC0\tBash\tresults/sample.csv\tresults/sample.csv is no input or output of a planned step.\n" +
				"2026-11-20 09:01\t5c1e7a00\tPreToolUse\task\tpermission\tBash\t-\tresearcher wants to run \"pip install numpy\", which needs the user's approval.\n" +
				"2026-11-20 09:00\t5c1e7a00\tPreToolUse\tdeny\tDQ4\tWrite\t.vibe-science/RQ-001/04-results/FINDINGS.md\tDQ4 FAIL: 0.83 in FINDINGS.md is not in FINDINGS.json.\n"},
		{name: "a terminal gets aligned columns cut to its width", argv: []string{"--project", root, "--kind", "deny,block"}, tty: true,
			out: "TIME              SESSION   HOOK        DECISION  CHECK   TOOL   FILE                        MESSAGE\n" +
				"2026-11-20 09:03  9a9a0000  Stop        block     review  -      -                           C-001 was promoted without…\n" +
				"2026-11-20 09:00  5c1e7a00  PreToolUse  deny      DQ4     Write  .vibe-science/RQ-001/04-r…  DQ4 FAIL: 0.83 in FINDINGS…\n"},
		{name: "recorded only on request", argv: []string{"--project", root, "--kind", "recorded"},
			out: "TIME\tSESSION\tHOOK\tDECISION\tCHECK\tTOOL\tFILE\tMESSAGE\n" +
				"2026-11-20 09:04\t9a9a0000\tPostToolUse\trecorded\tDQ1\tWrite\tdata/f.csv\tDQ1 PASS\n"},
		{name: "one session by its prefix, since a time", argv: []string{"--session", "5c1e", "--since", "90s"},
			out: "TIME\tSESSION\tHOOK\tDECISION\tCHECK\tTOOL\tFILE\tMESSAGE\n" +
				"2026-11-20 09:02\t5c1e7a00\tPostToolUse\twarn\tDC0\tBash\tresults/sample.csv\tresults/sample.csv is no input or output of a planned step.\n"},
		{name: "every project", argv: []string{"--all", "--check", "L-1,review"},
			out: "TIME\tSESSION\tHOOK\tDECISION\tCHECK\tTOOL\tFILE\tMESSAGE\n" +
				"2026-11-20 09:05\t7e7e0000\tPreToolUse\tdeny\tL-1\tWrite\tDIRECTION.md\tNo literature search yet.\n" +
				"2026-11-20 09:03\t9a9a0000\tStop\tblock\treview\t-\t-\tC-001 was promoted without a review.\n"},
		{name: "JSON carries the fix and the hash", argv: []string{"--project", root, "--check", "DQ4", "--json"},
			out: `[
  {
    "id": 1,
    "decided_at": "2026-11-20T09:00:00Z",
    "session": "5c1e7a00-0000-4000-8000-00000000beef",
    "project": "` + root + `",
    "hook": "PreToolUse",
    "tool": "Write",
    "file": ".vibe-science/RQ-001/04-results/FINDINGS.md",
    "check": "DQ4",
    "result": "BLOCK",
    "severity": "HIGH",
    "decision": "deny",
    "reason": "DQ4 FAIL: 0.83 in FINDINGS.md is not in FINDINGS.json.",
    "recommendation": "fix it",
    "decision_hash": "` + verdict.Hash("DQ4", nil, verdict.Block) + `"
  }
]
`},
		{name: "nothing matches", argv: []string{"--project", root, "--check", "DQ2"},
			err: "no decision of " + root + " matches these filters\n"},
		{name: "JSON of nothing is an empty list", argv: []string{"--project", root, "--check", "DQ2", "--json"}, out: "[]\n"},
		{name: "nothing yet", argv: []string{"--project", root}, otherStore: true,
			err: "vibe has denied, blocked, asked and warned nothing in " + root + " yet\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, out, errOut := clitest.New(t, clitest.Options{Now: t0.Add(3 * time.Minute), TTY: c.tty, Width: 120})
			if !c.otherStore {
				seed(t, f, root)
			}
			code := clitest.Main(f, append([]string{"decisions"}, c.argv...), NewCmdDecisions(f, nil))
			if code != 0 {
				t.Fatalf("exit %d; stderr %q", code, errOut)
			}
			if out.String() != c.out || errOut.String() != c.err {
				t.Fatalf("stdout\n%s\nwant\n%s\nstderr %q, want %q", out, c.out, errOut, c.err)
			}
		})
	}
}

func TestDecisionJSONTimes(t *testing.T) {
	clitest.JSONTimeFields(t, DecisionJSON{})
}
