package integrity

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestNewCmdIntegrityCheckFlags(t *testing.T) {
	cases := []struct {
		argv []string
		want IntegrityCheckOptions
		err  string
	}{
		{[]string{}, IntegrityCheckOptions{Format: "text"}, ""},
		{[]string{"--json", "--project", "/p"}, IntegrityCheckOptions{Format: "json", JSON: true, Project: "/p"}, ""},
		{[]string{"--format", "json"}, IntegrityCheckOptions{Format: "json"}, ""},
		{[]string{"--format", "yaml"}, IntegrityCheckOptions{}, `--format "yaml": use text or json`},
		{[]string{"extra"}, IntegrityCheckOptions{}, `unknown command "extra"`},
	}
	for _, c := range cases {
		f, _, _ := integTestFactory(t, "")
		var got *IntegrityCheckOptions
		cmd := NewCmdIntegrityCheck(f, func(o *IntegrityCheckOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.argv, err, c.err)
			}
			if err != nil && strings.HasPrefix(c.err, "--format") && cli.ExitCode(err) != 2 {
				t.Errorf("%q: exit %d, want 2", c.argv, cli.ExitCode(err))
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot, got.Now = cli.IO{}, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%q: got %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

const cycleLedger = "## C-001: a\n- status: PROVISIONAL\n- depends-on: C-002\n\n## C-002: b\n- status: PROVISIONAL\n- depends-on: C-001\n"

func TestRunIntegrityCheck(t *testing.T) {
	ctx := context.Background()
	passLine := "PASS       D1-circular-logic: the evidence graph: no cycle among the claims, evidence and reviews it rests on (D1 circular logic).\n"
	cycleText := "WARN       D1-circular-logic: The evidence graph holds circular support (D1 circular logic): a cycle C-001 → C-002 → C-001.\n" +
		"             C-001 → C-002 → C-001\n" +
		"             fix: Break each cycle by removing one of its links (for example C-001 → C-002) or by resting one claim on independent evidence, then check again.\n"
	blockText := "BLOCK      D3-threshold-drift: Thresholds of domain generic drifted 1167 bps over 180 days, at or above the 1000 bps cap of D3-threshold-drift; further loosening will be denied until older changes leave the window.\n" +
		"             history: dq2.max_fold_cv 0.5 -> 0.55 at 2026-02-20T12:00:00Z: 1000 bps, loosens\n" +
		"             history: dq2.min_auc 0.6 -> 0.61 at 2026-02-28T12:00:00Z: 167 bps, tightens\n" +
		"             fix: Keep the current thresholds and justify the recent changes in the decision log.\n"
	cases := []struct {
		name    string
		files   map[string]string
		history bool
		badDB   bool
		format  string
		out     string
		errOut  string
		err     string
	}{
		{name: "empty project", format: "text", out: passLine},
		{name: "a cycle warns", files: map[string]string{".vibe-science/CLAIM-LEDGER.md": cycleLedger}, format: "text", out: cycleText},
		{name: "spent drift budget blocks", files: map[string]string{".vibe-science/CLAIM-LEDGER.md": cycleLedger}, history: true,
			format: "text", out: cycleText + blockText, err: "integrity check: 1 blocking verdict(s)"},
		{name: "without a database only the graph", badDB: true, format: "text", out: passLine,
			errOut: "vibe: threshold drift not checked: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := integProject(t, c.files)
			db := ""
			if c.badDB {
				db = root // a folder is no database
			}
			f, out, errOut := integTestFactory(t, db)
			if c.history {
				st, err := f.Store(ctx)
				if err != nil {
					t.Fatal(err)
				}
				rows := []record.ThresholdChange{
					{ProjectPath: root, Domain: "generic", Key: "dq2.max_fold_cv", Old: 0.5, New: 0.55, Bps: 1000, Loosens: true, Direction: "higher_looser", At: integT0.Add(-9 * 24 * time.Hour)},
					{ProjectPath: root, Domain: "generic", Key: "dq2.min_auc", Old: 0.6, New: 0.61, Bps: 167, Direction: "lower_looser", At: integT0.Add(-24 * time.Hour)},
				}
				if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.AddThresholdChanges(ctx, rows) }); err != nil {
					t.Fatal(err)
				}
			}
			err := runIntegrityCheck(ctx, &IntegrityCheckOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, Format: c.format})
			if (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
				t.Fatalf("err %v, want %q", err, c.err)
			}
			if err != nil && cli.ExitCode(err) != 1 {
				t.Errorf("exit %d, want 1", cli.ExitCode(err))
			}
			if out.String() != c.out {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, c.out)
			}
			if !strings.HasPrefix(errOut.String(), c.errOut) || (c.errOut == "") != (errOut.Len() == 0) {
				t.Errorf("stderr %q, want prefix %q", errOut, c.errOut)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		root := integProject(t, map[string]string{".vibe-science/CLAIM-LEDGER.md": cycleLedger})
		f, out, _ := integTestFactory(t, "")
		if err := runIntegrityCheck(ctx, &IntegrityCheckOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Project: root, Format: "json"}); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Project  string `json:"project"`
			Result   string `json:"result"`
			Verdicts []struct {
				Check  string `json:"check"`
				Result string `json:"result"`
				Hash   string `json:"decision_hash"`
			} `json:"verdicts"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if got.Project != root || got.Result != "WARN" || len(got.Verdicts) != 1 ||
			got.Verdicts[0].Check != "D1-circular-logic" || len(got.Verdicts[0].Hash) != 64 {
			t.Errorf("json %+v", got)
		}
	})
}

var integT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// integTestFactory shows tables as a 200-column terminal does; db is
// VIBE_DB.
func integTestFactory(t *testing.T, db string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: integT0, Env: map[string]string{"VIBE_DB": db}, TTY: true, Width: 200})
}

func integProject(t *testing.T, files map[string]string) string {
	return clitest.ProjectFiles(t, files)
}
