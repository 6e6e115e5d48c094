package hookrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// TestEveryDecisionIsRecorded: whatever a handler returns, each verdict
// and each ask is recorded once, with the session, time, hook, tool, file,
// check, message and what the reply did with it; and the reply says the
// same (a deny is a permissionDecision deny, an ask an ask, a block a
// decision block, a warn context).
func TestEveryDecisionIsRecorded(t *testing.T) {
	v := func(check string, r verdict.Result, paths ...string) verdict.Verdict {
		x := verdict.New(check, r, verdict.High, check+" says "+string(r), nil)
		x.Recommendation = "fix " + check
		x.Evidence.Paths = paths
		return x
	}
	type row struct{ event, tool, file, check, result, kind, reason string }
	cases := []struct {
		name  string
		event string
		tool  string
		out   hookrun.Outcome
		reply string // the reply's decisive part
		want  []row
	}{
		{"a block on PreToolUse is a deny; a warn beside it is context", hook.PreToolUse, "Write",
			hookrun.Outcome{Verdicts: []verdict.Verdict{v("DQ4", verdict.Warn, "$PROJECT/a/FINDINGS.md"), v("claim-promotion", verdict.Block)}},
			`"permissionDecision":"deny","permissionDecisionReason":"claim-promotion says BLOCK Fix: fix claim-promotion"`,
			[]row{{"PreToolUse", "Write", "notes/x.md", "claim-promotion", "BLOCK", "deny", "claim-promotion says BLOCK"},
				{"PreToolUse", "Write", "a/FINDINGS.md", "DQ4", "WARN", "warn", "DQ4 says WARN"}}},
		{"an ask is an ask, naming the call's file", hook.PreToolUse, "Write",
			hookrun.Outcome{Ask: []verdict.Verdict{v("permission", verdict.Warn)}},
			`"permissionDecision":"ask","permissionDecisionReason":"permission says WARN"`,
			[]row{{"PreToolUse", "Write", "notes/x.md", "permission", "WARN", "ask", "permission says WARN"}}},
		{"an ask a deny overrides is recorded only", hook.PreToolUse, "Bash",
			hookrun.Outcome{Verdicts: []verdict.Verdict{v("permission", verdict.HardBlock, "data/raw/x.csv")},
				Ask: []verdict.Verdict{v("brief-constraint", verdict.Warn, "data/raw/x.csv")}},
			`"permissionDecision":"deny"`,
			[]row{{"PreToolUse", "Bash", "data/raw/x.csv", "permission", "HARD_BLOCK", "deny", "permission says HARD_BLOCK"},
				{"PreToolUse", "Bash", "data/raw/x.csv", "brief-constraint", "WARN", "recorded", "brief-constraint says WARN"}}},
		{"a block on PostToolUse blocks the turn", hook.PostToolUse, "Bash",
			hookrun.Outcome{Verdicts: []verdict.Verdict{v("tamper", verdict.Block, "$PROJECT/.vibe-science/CLAIM-LEDGER.md"), v("DC0", verdict.Warn, "results/sample.csv")}},
			`"decision":"block","reason":"tamper says BLOCK Fix: fix tamper"`,
			[]row{{"PostToolUse", "Bash", ".vibe-science/CLAIM-LEDGER.md", "tamper", "BLOCK", "block", "tamper says BLOCK"},
				{"PostToolUse", "Bash", "results/sample.csv", "DC0", "WARN", "warn", "DC0 says WARN"}}},
		{"a block on Stop blocks the turn", hook.Stop, "",
			hookrun.Outcome{Verdicts: []verdict.Verdict{v("review", verdict.Block)}},
			`"decision":"block","reason":"review says BLOCK Fix: fix review"`,
			[]row{{"Stop", "", "", "review", "BLOCK", "block", "review says BLOCK"}}},
		{"SessionStart cannot block: its block is told", hook.SessionStart, "",
			hookrun.Outcome{Verdicts: []verdict.Verdict{v("tamper", verdict.Block)}},
			`"additionalContext":"tamper says BLOCK Fix: fix tamper"`,
			[]row{{"SessionStart", "", "", "tamper", "BLOCK", "warn", "tamper says BLOCK"}}},
		{"a pass is recorded only", hook.PostToolUse, "Write",
			hookrun.Outcome{Verdicts: []verdict.Verdict{v("DQ1", verdict.Pass, "data/f.csv")}},
			``,
			[]row{{"PostToolUse", "Write", "data/f.csv", "DQ1", "PASS", "recorded", "DQ1 says PASS"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home, proj := t.TempDir(), filepath.Join(t.TempDir(), "project")
			if err := os.MkdirAll(filepath.Join(proj, ".vibe-science"), 0o755); err != nil {
				t.Fatal(err)
			}
			if real, err := filepath.EvalSymlinks(proj); err == nil {
				proj = real
			}
			out := c.out
			for _, vs := range [][]verdict.Verdict{out.Verdicts, out.Ask} {
				for i := range vs {
					for j, p := range vs[i].Evidence.Paths {
						if rel, ok := strings.CutPrefix(p, "$PROJECT/"); ok {
							vs[i].Evidence.Paths[j] = filepath.Join(proj, rel) // absolute: recorded relative
						}
					}
				}
			}
			spec := hookrun.Spec{Name: "test", Events: []string{c.event}, Handle: func(context.Context, *hookrun.Env, *hook.Event) (hookrun.Outcome, error) {
				return out, nil
			}}
			ev := map[string]any{"session_id": "s-1", "cwd": proj, "hook_event_name": c.event, "transcript_path": "/tmp/t.jsonl"}
			if c.tool != "" {
				ev["tool_name"], ev["tool_use_id"] = c.tool, "toolu_1"
				ev["tool_input"] = map[string]any{"file_path": filepath.Join(proj, "notes", "x.md"), "content": "x"}
			}
			stdin, _ := json.Marshal(ev)
			at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
			env := map[string]string{"VIBE_HOME": home, "HOME": home, "VIBE_WORKER": "off"}
			var stdout, stderr bytes.Buffer
			e := &hookrun.Env{Stdin: bytes.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
				Now: func() time.Time { return at }, Getenv: func(k string) string { return env[k] }}
			if code := hookrun.Main(spec, e); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if c.reply == "" && stdout.Len() != 0 || !bytes.Contains(stdout.Bytes(), []byte(c.reply)) {
				t.Fatalf("reply %s, want it to contain %s", stdout.String(), c.reply)
			}
			st, err := store.Open(context.Background(), filepath.Join(home, "db", "vibe-science.db"), store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			got, err := st.Decisions(context.Background(), record.DecisionFilter{Project: proj, Kinds: record.DecisionKinds})
			if err != nil {
				t.Fatal(err)
			}
			var rows []row
			for i := len(got) - 1; i >= 0; i-- { // recorded in decide's order
				d := got[i]
				if d.SessionID != "s-1" || !d.At.Equal(at) {
					t.Errorf("decision %d: session %q at %v, want s-1 at %v", d.ID, d.SessionID, d.At, at)
				}
				rows = append(rows, row{d.Event, d.Tool, d.File, d.Check, d.Result, d.Kind, d.Reason})
			}
			if fmt.Sprint(rows) != fmt.Sprint(c.want) {
				t.Errorf("recorded\n%v\nwant\n%v", rows, c.want)
			}
		})
	}
}
