package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/cli/domain"
	"github.com/vibe-science/vibe/internal/gate"
	"github.com/vibe-science/vibe/internal/gatecheck"
	"github.com/vibe-science/vibe/internal/lineage"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

const gateRQ = ".vibe-science/RQ-001-offtarget"

func TestNewCmdGateRunFlags(t *testing.T) {
	tests := []struct {
		argv []string
		want GateRunOptions
		err  string
	}{
		{[]string{"dq4", "--findings", "F.md"}, GateRunOptions{Gate: "DQ4", Findings: "F.md"}, ""},
		{[]string{"l-1+"}, GateRunOptions{Gate: "L-1"}, ""},
		{[]string{"DQ1", "--claim", "c001", "--features", "f.csv", "--domain", "generic", "--json", "--project", "/p"},
			GateRunOptions{Gate: "DQ1", Claim: "C-001", Features: "f.csv", Domain: "generic", JSON: true, Project: "/p"}, ""},
		{[]string{"DC0", "--design", "DESIGN.md", "--deviations", "dev.md", "--executed", "a.csv", "--executed", "b,c.csv"},
			GateRunOptions{Gate: "DC0", Design: "DESIGN.md", Deviations: "dev.md", Executed: []string{"a.csv", "b,c.csv"}}, ""},
		{[]string{"DQ4", "--findings", "F.md", "--source", "S.json"}, GateRunOptions{Gate: "DQ4", Findings: "F.md", Source: "S.json"}, ""},
		{[]string{"DQ2", "--metrics", "m.json", "--calibration", "c.json", "--dictionary", "d.md", "--artifact", "a.json"},
			GateRunOptions{Gate: "DQ2", Metrics: "m.json", Calibration: "c.json", Dictionary: "d.md", Artifact: "a.json"}, ""},
		{[]string{}, GateRunOptions{}, "give one gate id, e.g. `vibe gate run DQ4 --findings FINDINGS.md` (`vibe gate list` shows them)"},
		{[]string{"DQ4", "DQ1"}, GateRunOptions{}, "give one gate id, e.g. `vibe gate run DQ4 --findings FINDINGS.md` (`vibe gate list` shows them)"},
		{[]string{"DQ9"}, GateRunOptions{}, `"DQ9" is not a gate id; ` + "`vibe gate list` shows the 32 gates"},
		{[]string{"DQ4", "--claim", "claim-1"}, GateRunOptions{}, `--claim "claim-1" is not a claim id; write it as C-001`},
	}
	for _, tt := range tests {
		f, _, _ := gateTestFactory(t, nil)
		var got *GateRunOptions
		cmd := NewCmdGateRun(f, func(o *GateRunOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || cli.ExitCode(err) != 2 {
				t.Errorf("%q: err %v (exit %d), want %q with exit 2", tt.argv, err, cli.ExitCode(err), tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot, got.Now, got.Getenv = cli.IO{}, nil, nil, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.argv, *got, tt.want)
		}
	}
}

func TestNewCmdGateCheckFlags(t *testing.T) {
	tests := []struct {
		argv []string
		want GateCheckOptions
		err  string
	}{
		{[]string{}, GateCheckOptions{Format: "text"}, ""},
		{[]string{"--format", "sarif", "--root", "/r", "--domain", "generic"}, GateCheckOptions{Format: "sarif", Root: "/r", Domain: "generic"}, ""},
		{[]string{"--format", "github"}, GateCheckOptions{Format: "github"}, ""},
		{[]string{"--format", "json"}, GateCheckOptions{Format: "json"}, ""},
		{[]string{"--format", "xml"}, GateCheckOptions{}, `--format "xml": use one of text, json, github, sarif`},
		{[]string{"extra"}, GateCheckOptions{}, ""},
	}
	for i, tt := range tests {
		f, _, _ := gateTestFactory(t, nil)
		var got *GateCheckOptions
		cmd := NewCmdGateCheck(f, func(o *GateCheckOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if i == len(tests)-1 {
			if err == nil {
				t.Errorf("%q: accepted an argument", tt.argv)
			}
			continue
		}
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || cli.ExitCode(err) != 2 {
				t.Errorf("%q: err %v (exit %d), want %q", tt.argv, err, cli.ExitCode(err), tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		got.IO, got.FindProject, got.Now = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
}

func TestNewCmdGateListAndHistoryFlags(t *testing.T) {
	f, _, _ := gateTestFactory(t, nil)
	var list *GateListOptions
	cmd := NewCmdGateList(f, func(o *GateListOptions) error { list = o; return nil })
	cmd.SetArgs([]string{"--json", "--domain", "particle-physics", "--project", "/p"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !list.JSON || list.Domain != "particle-physics" || list.Project != "/p" {
		t.Errorf("list options %+v", list)
	}

	tests := []struct {
		argv []string
		want GateHistoryOptions
		err  string
	}{
		{[]string{}, GateHistoryOptions{Limit: 20}, ""},
		{[]string{"--gate", "dq4", "--claim", "c-007", "--limit", "5", "--json", "--project", "/p"},
			GateHistoryOptions{Gate: "DQ4", Claim: "C-007", Limit: 5, JSON: true, Project: "/p"}, ""},
		{[]string{"--gate", "Q9"}, GateHistoryOptions{}, `--gate "Q9" is not a gate id; ` + "`vibe gate list` shows them"},
		{[]string{"--claim", "7"}, GateHistoryOptions{}, `--claim "7" is not a claim id; write it as C-001`},
		{[]string{"--limit", "0"}, GateHistoryOptions{}, "--limit must be at least 1, not 0"},
	}
	for _, tt := range tests {
		var got *GateHistoryOptions
		cmd := NewCmdGateHistory(f, func(o *GateHistoryOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || cli.ExitCode(err) != 2 {
				t.Errorf("%q: err %v (exit %d), want %q", tt.argv, err, cli.ExitCode(err), tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.argv, err)
		}
		got.IO, got.Store, got.ProjectRoot = cli.IO{}, nil, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
}

func TestRunGateRun(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		faults  []string
		env     map[string]string
		opts    func(root string) GateRunOptions
		exit    int
		out     string
		errOut  string // exact stderr; "{hash}" stands for the short decision hash
		errText string // the returned error
	}{
		{
			name: "DQ4 pass",
			opts: func(root string) GateRunOptions {
				return GateRunOptions{Gate: "DQ4", Findings: filepath.Join(root, gateRQ, "04-results", "FINDINGS.md")}
			},
			out: "DQ4 PASS  Findings match their data\n" +
				"  PASS  source   FINDINGS.json: 5 distinct numbers\n" +
				"  PASS  numbers  all 5 reported numbers match FINDINGS.json\n" +
				"inputs: .vibe-science/RQ-001-offtarget/04-results/FINDINGS.md, .vibe-science/RQ-001-offtarget/04-results/FINDINGS.json\n",
			errOut: "vibe: recorded DQ4 PASS (gate check 1, decision {hash})\n",
		},
		{
			name:   "DQ4 fail, inputs from the claim's evidence, in a session",
			faults: []string{"dq4-typo"},
			env:    map[string]string{"CLAUDE_CODE_SESSION_ID": "sess-1234567890"},
			opts:   func(root string) GateRunOptions { return GateRunOptions{Gate: "DQ4", Claim: "C-001"} },
			exit:   1,
			out: "DQ4 FAIL  Findings match their data\n" +
				"  PASS  source  FINDINGS.json: 5 distinct numbers\n" +
				"  FAIL  number  line 3: 0.83 in \"Held-out AUC is 0.83 on n = 240 sites. Conformal sets reach…\" matches no number in FINDINGS.json (nearest: 0.8123)\n" +
				"                fix: correct it from the JSON, have the script write the value to the JSON, or mark a computed value (derived)\n" +
				"inputs: .vibe-science/RQ-001-offtarget/04-results/FINDINGS.md, .vibe-science/RQ-001-offtarget/04-results/FINDINGS.json\n",
			errOut: "vibe: --findings from C-001's evidence: .vibe-science/RQ-001-offtarget/04-results/FINDINGS.md\n" +
				"vibe: recorded DQ4 FAIL for C-001 (gate check 1, decision {hash})\n",
			errText: "DQ4 FAIL: 1 of 2 checks failed; fix what they report and run the gate again",
		},
		{
			name: "DQ4 with --source",
			opts: func(root string) GateRunOptions {
				return GateRunOptions{Gate: "DQ4", Findings: filepath.Join(root, gateRQ, "04-results", "FINDINGS.md"),
					Source: filepath.Join(root, gateRQ, "04-results", "metrics.json")}
			},
			exit: 1,
			out: "DQ4 FAIL  Findings match their data\n" +
				"  PASS  source  the source JSON: 9 distinct numbers\n" +
				"  FAIL  number  line 3: 4 reported numbers match no number in the source JSON: 240 (line 3; nearest: 0.83), 88.3% (line 3; nearest: 0.83 = 83%), 90% (line 4; nearest: 0.83 = 83%), -0.41 (line 5; nearest: 0.25)\n" +
				"                fix: correct them from the JSON, have the script write the values to the JSON, or mark computed values (derived)\n" +
				"inputs: .vibe-science/RQ-001-offtarget/04-results/FINDINGS.md, .vibe-science/RQ-001-offtarget/04-results/metrics.json\n",
			errText: "DQ4 FAIL: 1 of 2 checks failed; fix what they report and run the gate again",
		},
		{
			name: "DD0 finds the dictionary",
			opts: func(root string) GateRunOptions {
				return GateRunOptions{Gate: "DD0", Features: filepath.Join(root, gateRQ, "02-data", "processed", "features.csv")}
			},
			out: "DD0 PASS  Data dictionary\n" +
				"  PASS  columns  all 5 columns of processed/features.csv are documented in DATA-DICTIONARY.md\n" +
				"inputs: .vibe-science/RQ-001-offtarget/02-data/DATA-DICTIONARY.md, .vibe-science/RQ-001-offtarget/02-data/processed/features.csv\n",
			errOut: "vibe: recorded DD0 PASS (gate check 1, decision {hash})\n",
		},
		{
			name:   "DC0 checks the research question's data files",
			faults: []string{"dc0-unplanned-file"},
			opts: func(root string) GateRunOptions {
				return GateRunOptions{Gate: "DC0", Design: filepath.Join(root, gateRQ, "DESIGN.md")}
			},
			exit: 1,
			out: "DC0 FAIL  Design compliance\n" +
				"  PASS  design    DESIGN.md parses: 3 planned steps, 0 deviations, each dated with what and why\n" +
				"  FAIL  executed  02-data/processed/sites_filtered.csv was written but is no input or output of a planned step, and no deviation names it\n" +
				"                  fix: log a deviation (### DEV-NNN: YYYY-MM-DD with what, why and files) in DESIGN.md, or remove the file\n" +
				"inputs: .vibe-science/RQ-001-offtarget/DESIGN.md\n",
			errText: "DC0 FAIL: 1 of 2 checks failed; fix what they report and run the gate again",
		},
		{
			name: "schema gate on its artifact",
			opts: func(root string) GateRunOptions {
				return GateRunOptions{Gate: "B0", Artifact: filepath.Join(root, gateRQ, "00-brainstorm", "B0.json"), JSON: true}
			},
			errOut: "vibe: recorded B0 PASS (gate check 1, decision {hash})\n",
		},
		{
			name:    "missing input",
			opts:    func(root string) GateRunOptions { return GateRunOptions{Gate: "DQ2"} },
			exit:    2,
			errText: "DQ2 needs an input: run gate DQ2: pass --metrics FILE: missing gate input",
		},
		{
			name:    "prompt-level gate",
			opts:    func(root string) GateRunOptions { return GateRunOptions{Gate: "G3"} },
			exit:    2,
			errText: "G3 (Training integrity) is a prompt-level gate and cannot be computed: perform it as skill/vibe/protocols/auto-experiment.md and skill/vibe/gates.md describe, then record `Gate G3: PASS|FAIL — what you checked` in PROGRESS.md (Reviewer 2 audits it)",
		},
		{
			name:    "L-1",
			opts:    func(root string) GateRunOptions { return GateRunOptions{Gate: "L-1"} },
			exit:    2,
			errText: "L-1 cannot be computed from files: it is judged from the literature searches recorded in the session (before a direction is written, by the PreToolUse hook) and by `vibe gate check` from the repository's query logs; the protocol is skill/vibe/protocols/literature-precheck.md",
		},
		{
			name:    "unknown shipped domain",
			opts:    func(root string) GateRunOptions { return GateRunOptions{Gate: "DQ1", Domain: "astrology"} },
			exit:    2,
			errText: "--domain: unknown domain \"astrology\": shipped domains are crispr-off-target, generic, particle-physics, photonics-integrated; to define your own, set \"extends\" to one of them",
		},
		{
			name:    "invalid project domain config",
			faults:  []string{"domain-config-unknown-key"},
			opts:    func(root string) GateRunOptions { return GateRunOptions{Gate: "DQ1"} },
			exit:    1,
			errText: "load domain config",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := clitest.GateProject(t, tc.faults...)
			f, out, errOut := gateTestFactory(t, tc.env)
			o := tc.opts(root)
			o.IO, o.Store, o.ProjectRoot, o.Now, o.Getenv, o.Project = f.IO, f.Store, f.ProjectRoot, f.Now, f.Getenv, root
			err := runGateRun(ctx, &o)
			if cli.ExitCode(err) != tc.exit {
				t.Fatalf("exit %d (%v), want %d", cli.ExitCode(err), err, tc.exit)
			}
			if tc.errText != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.errText)) {
				t.Errorf("error %v, want it to start with %q", err, tc.errText)
			}
			if tc.exit == 2 || tc.errText == "load domain config" {
				if out.Len() != 0 {
					t.Errorf("stdout %q, want nothing", out.String())
				}
				return
			}
			st, err := f.Store(ctx)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := st.GateHistory(ctx, root, "", "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 {
				t.Fatalf("%d gate checks recorded, want 1", len(recs))
			}
			rec := recs[0]
			if rec.GateID != o.Gate || rec.ClaimID != o.Claim || rec.Session != tc.env["CLAUDE_CODE_SESSION_ID"] || !rec.At.Equal(gateT0) {
				t.Errorf("recorded %+v", rec)
			}
			for _, in := range rec.Inputs {
				if strings.HasPrefix(in.Path, "/") || len(in.SHA256) != 64 {
					t.Errorf("input recorded as %+v, want a project path with its hash", in)
				}
			}
			if o.JSON {
				var got gateRunJSON
				if err := json.Unmarshal(out.Bytes(), &got); err != nil {
					t.Fatal(err)
				}
				if got.Gate != o.Gate || string(got.Status) != string(rec.Status) || got.RecordID != rec.ID || got.DecisionHash != rec.DecisionHash ||
					!reflect.DeepEqual(got.Inputs, rec.Inputs) || !reflect.DeepEqual(gate.Result{Checks: got.Checks}.Record().Checks, rec.Checks) {
					t.Errorf("JSON %+v does not match the record %+v", got, rec)
				}
			} else if out.String() != tc.out {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), tc.out)
			}
			if tc.errOut != "" {
				want := strings.ReplaceAll(tc.errOut, "{hash}", cli.ShortID(rec.DecisionHash))
				if errOut.String() != want {
					t.Errorf("stderr:\n%s\nwant:\n%s", errOut.String(), want)
				}
			}
		})
	}
}

func TestRunGateRunUnknownClaimIsRecorded(t *testing.T) {
	ctx := context.Background()
	root := clitest.GateProject(t)
	f, _, errOut := gateTestFactory(t, nil)
	o := GateRunOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Now: f.Now, Getenv: f.Getenv, Project: root, Gate: "DQ3", Claim: "C-042",
		Calibration: filepath.Join(root, gateRQ, "04-results", "calibration.json")}
	if err := runGateRun(ctx, &o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(errOut.String(), "vibe: C-042 is not in the claim ledger yet; the result is recorded for it all the same\n") {
		t.Errorf("stderr %q", errOut.String())
	}
	st, _ := f.Store(ctx)
	passed, err := st.PassedGates(ctx, root, "C-042")
	if err != nil || !passed["DQ3"] {
		t.Errorf("PassedGates = %v, %v; the PASS must count for promotion", passed, err)
	}
}

func TestRunGateCheck(t *testing.T) {
	tests := []struct {
		name   string
		faults []string
		opts   GateCheckOptions
		exit   int
		golden string // gatecheck golden file the text must equal
		out    string
	}{
		{name: "clean, text", opts: GateCheckOptions{Format: "text"}, golden: "clean.txt"},
		{name: "typo, text", faults: []string{"dq4-typo"}, opts: GateCheckOptions{Format: "text"}, exit: 1, golden: "dq4-typo.txt"},
		{name: "typo, json", faults: []string{"dq4-typo"}, opts: GateCheckOptions{Format: "json"}, exit: 1, golden: "dq4-typo.json"},
		{name: "warning only, github", faults: []string{"evidence-missing"}, opts: GateCheckOptions{Format: "github"},
			out: "::warning file=.vibe-science/CLAIM-LEDGER.md,line=9,title=claim-ledger::C-002 cites evidence RQ-001-offtarget/04-results/gc_model.json, which is not in the repository — fix: commit the file, or correct the path (relative to .vibe-science/)\n"},
		{name: "domain override", faults: []string{"domain-config-unknown-key"}, opts: GateCheckOptions{Format: "json", Domain: "generic"}, out: "[]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := clitest.GateProject(t, tc.faults...)
			f, out, _ := gateTestFactory(t, nil)
			o := tc.opts
			o.IO, o.FindProject, o.Root, o.Now = f.IO, f.FindProject, root, f.Now
			err := runGateCheck(&o)
			if cli.ExitCode(err) != tc.exit {
				t.Fatalf("exit %d (%v), want %d", cli.ExitCode(err), err, tc.exit)
			}
			want := tc.out
			if tc.golden != "" {
				raw, err := os.ReadFile(filepath.Join("..", "..", "gatecheck", "testdata", "golden", tc.golden))
				if err != nil {
					t.Fatal(err)
				}
				want = string(raw)
				if strings.HasSuffix(tc.golden, ".json") {
					var a, b any
					if json.Unmarshal(out.Bytes(), &a) != nil || json.Unmarshal(raw, &b) != nil || !reflect.DeepEqual(a, b) {
						t.Errorf("json:\n%s\nwant:\n%s", out.String(), raw)
					}
					return
				}
			}
			if out.String() != want {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
			}
		})
	}
	f, out, _ := gateTestFactory(t, nil)
	err := runGateCheck(&GateCheckOptions{IO: f.IO, FindProject: f.FindProject, Root: filepath.Join(t.TempDir(), "nope"), Format: "text"})
	if cli.ExitCode(err) != 2 || out.Len() != 0 {
		t.Errorf("missing root: exit %d (%v), stdout %q", cli.ExitCode(err), err, out.String())
	}
	err = runGateCheck(&GateCheckOptions{IO: f.IO, FindProject: f.FindProject, Root: t.TempDir(), Format: "text", Domain: "nope"})
	if cli.ExitCode(err) != 2 {
		t.Errorf("unknown domain: exit %d (%v)", cli.ExitCode(err), err)
	}
}

func TestRunGateList(t *testing.T) {
	root := clitest.GateProject(t)
	if err := os.WriteFile(filepath.Join(root, ".vibe-science", "domain-config.json"),
		[]byte(`{"domain": "generic", "dq2": {"min_auc": 0.7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := gateTestFactory(t, nil)
	if err := runGateList(&GateListOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, Project: root}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	wantHead := "32 gates (7 code, 9 schema, 16 prompt); thresholds of the generic domain\n\nG0  Input sanity\n" +
		"  kind: prompt; enforced: prompt\n  trigger: after every data load\n  thresholds: max_inf=0, max_nan=0\n"
	if !strings.HasPrefix(text, wantHead) {
		t.Errorf("head:\n%s\nwant:\n%s", text[:min(len(text), 400)], wantHead)
	}
	wantDQ2 := "\nDQ2  Model after training\n  kind: code; enforced: PostToolUse, CI\n" +
		"  trigger: PostToolUse when a metrics JSON matching the domain's metrics patterns changed, whatever tool changed it\n" +
		"  thresholds: max_dominance=0.5, max_fold_cv=0.5, min_auc=0.7, min_group_share_kept=0.8, min_groups_per_fold=3, min_r2=0.05\n" +
		"  command: vibe gate run DQ2 --metrics FILE\n"
	if !strings.Contains(text, wantDQ2) {
		t.Errorf("the DQ2 block with the project's min_auc is missing:\n%s", text)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr %q", errOut.String())
	}

	out.Reset()
	if err := runGateList(&GateListOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, Project: root, Domain: "generic", JSON: true}); err != nil {
		t.Fatal(err)
	}
	var gates []gate.Gate
	if err := json.Unmarshal(out.Bytes(), &gates); err != nil {
		t.Fatal(err)
	}
	if len(gates) != 32 || gates[0].ID != "G0" || gates[len(gates)-1].ID != "J0" {
		t.Fatalf("%d gates", len(gates))
	}
	for _, g := range gates {
		if g.ID == "DQ2" && g.Thresholds["min_auc"] != 0.55 {
			t.Errorf("--domain generic shows min_auc %v, want the shipped 0.55", g.Thresholds["min_auc"])
		}
		if g.ID == "DQ4" && (g.Trigger == "" || g.Command != "vibe gate run DQ4 --findings FILE" || g.Enforced != "PreToolUse, PostToolUse, CI") {
			t.Errorf("DQ4 = %+v", g)
		}
	}

	// A broken project config falls back to the generic thresholds, and says so.
	broken := clitest.GateProject(t, "domain-config-unknown-key")
	out.Reset()
	if err := runGateList(&GateListOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, Project: broken}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "domain config is invalid") || !strings.HasPrefix(out.String(), "32 gates") {
		t.Errorf("broken config: stderr %q", errOut.String())
	}
}

func TestRunGateHistory(t *testing.T) {
	ctx := context.Background()
	root := clitest.GateProject(t)
	f, out, errOut := gateTestFactory(t, map[string]string{"CLAUDE_SESSION_ID": "abcdef1234567890"})

	if err := runGateHistory(ctx, &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 20}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errOut.String() != "no gate results recorded for "+root+" yet; `vibe gate run ID` computes and records one\n" {
		t.Errorf("empty: out %q err %q", out.String(), errOut.String())
	}

	runs := []GateRunOptions{
		{Gate: "DQ4", Claim: "C-001"},
		{Gate: "DQ1", Features: filepath.Join(root, gateRQ, "02-data", "processed", "features.csv")},
	}
	for i := range runs {
		o := runs[i]
		o.IO, o.Store, o.ProjectRoot, o.Now, o.Getenv, o.Project = f.IO, f.Store, f.ProjectRoot, f.Now, f.Getenv, root
		if err := runGateRun(ctx, &o); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if err := runGateHistory(ctx, &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 20}); err != nil {
		t.Fatal(err)
	}
	want := "ID  TIME              GATE  CLAIM  STATUS  DECISION  CHECKS ok/warn/fail  SESSION\n" +
		"2   2026-03-02 10:30  DQ1   -      PASS    -         7/0/0                abcdef12\n" +
		"1   2026-03-02 10:30  DQ4   C-001  PASS    -         2/0/0                abcdef12\n"
	if out.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", out.String(), want)
	}

	// The hooks' decisions by gates join the runs: a findings write DQ4
	// denied before it happened (it has no run), a promotion refused for
	// its gates (D1's), a block after a call; a permission denial is no
	// gate's and stays out.
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 2, 10, 31, 0, 0, time.UTC)
	decide := func(event, check string, r verdict.Result, kind string, claims ...string) {
		t.Helper()
		v := verdict.New(check, r, verdict.High, check+" reason", nil)
		v.Evidence.Claims = claims
		at = at.Add(time.Minute)
		if err := st.Tx(ctx, func(tx *store.Tx) error {
			return tx.AppendAdvisories(ctx, record.AdvisoryContext{SessionID: "s-77777777", ProjectPath: root, Event: event, Tool: "Write", At: at},
				[]verdict.Verdict{v}, record.Decided{Kind: kind})
		}); err != nil {
			t.Fatal(err)
		}
	}
	decide("PreToolUse", "DQ4", verdict.Block, "deny", "C-001")
	decide("PreToolUse", "permission", verdict.HardBlock, "deny")
	decide("PreToolUse", "claim-promotion", verdict.Block, "deny", "C-002")
	decide("PostToolUse", "DQ1", verdict.Block, "block")
	out.Reset()
	if err := runGateHistory(ctx, &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 20}); err != nil {
		t.Fatal(err)
	}
	want = "ID  TIME              GATE  CLAIM  STATUS  DECISION  CHECKS ok/warn/fail  SESSION\n" +
		"-   2026-03-02 10:35  DQ1   -      BLOCK   block     -                    s-777777\n" +
		"-   2026-03-02 10:34  D1    C-002  BLOCK   deny      -                    s-777777\n" +
		"-   2026-03-02 10:32  DQ4   C-001  BLOCK   deny      -                    s-777777\n" +
		"2   2026-03-02 10:30  DQ1   -      PASS    -         7/0/0                abcdef12\n" +
		"1   2026-03-02 10:30  DQ4   C-001  PASS    -         2/0/0                abcdef12\n"
	if out.String() != want {
		t.Errorf("with decisions:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := runGateHistory(ctx, &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Gate: "D1", Limit: 20}); err != nil {
		t.Fatal(err)
	}
	if want := "ID  TIME              GATE  CLAIM  STATUS  DECISION  CHECKS ok/warn/fail  SESSION\n" +
		"-   2026-03-02 10:34  D1    C-002  BLOCK   deny      -                    s-777777\n"; out.String() != want {
		t.Errorf("--gate D1:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	if err := runGateHistory(ctx, &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("--limit 2: %d lines\n%s", n, out.String())
	}

	out.Reset()
	if err := runGateHistory(ctx, &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: root, Claim: "C-001", Limit: 20, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got []gateHistoryJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Kind != "run" || got[1].Gate != "DQ4" || got[1].Claim != "C-001" || got[1].CheckedAt != "2026-03-02T10:30:00Z" ||
		got[1].Session != "abcdef1234567890" || got[1].Passed != 2 || len(got[1].Checks) != 2 || len(got[1].Inputs) != 2 ||
		len(got[1].DecisionHash) != 64 {
		t.Errorf("json %+v", got)
	}
	var dec []map[string]any
	if err := json.Unmarshal(out.Bytes(), &dec); err != nil {
		t.Fatal(err)
	}
	if d := dec[0]; d["kind"] != "decision" || d["gate"] != "DQ4" || d["decision"] != "deny" || d["hook"] != "PreToolUse" ||
		d["decided_at"] != "2026-03-02T10:32:00Z" || d["reason"] != "DQ4 reason" {
		t.Errorf("json decision %+v", d)
	}
	// Only this project's results are listed.
	other := clitest.GateProject(t)
	out.Reset()
	errOut.Reset()
	if err := runGateHistory(ctx, &GateHistoryOptions{IO: f.IO, Store: f.Store, ProjectRoot: f.ProjectRoot, Project: other, Limit: 20, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "[]\n" {
		t.Errorf("other project: %q", out.String())
	}
}

func TestGatePromptProtocolsExist(t *testing.T) {
	for _, g := range gate.Registry() {
		if g.Kind != gate.KindPrompt {
			continue
		}
		p, ok := gatePromptProtocols[g.ID]
		if !ok {
			t.Errorf("prompt gate %s names no protocol", g.ID)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "..", "..", "skill", "vibe", "protocols", p)); err != nil {
			t.Errorf("%s: protocol %s: %v", g.ID, p, err)
		}
	}
}

func TestGateCheckFormatsAreTheCommandFormats(t *testing.T) {
	if !reflect.DeepEqual(gatecheck.Formats, []string{"text", "json", "github", "sarif"}) {
		t.Errorf("formats %q", gatecheck.Formats)
	}
}

// TestNewCmdGateAndDomainThroughCobra runs the parent commands as the root
// command will, so the subcommands, flags and exit codes are wired.
func TestNewCmdGateAndDomainThroughCobra(t *testing.T) {
	clean := clitest.GateProject(t)
	faulty := clitest.GateProject(t, "unreviewed-claim")
	tests := []struct {
		domain bool
		argv   []string
		exit   int
		out    string // a line stdout must hold
	}{
		{false, []string{"check", "--root", clean, "--format", "github"}, 0, ""},
		{false, []string{"check", "--root", faulty, "--format", "github"}, 1,
			"::error file=.vibe-science/CLAIM-LEDGER.md,line=22,title=LAW4-review::C-005 is PROVISIONAL and no review under 05-reviewer2/ cites it (LAW 4)"},
		{false, []string{"check", "--root", clean, "--format", "yaml"}, 2, ""},
		{false, []string{"run", "DQ3", "--project", clean, "--calibration", filepath.Join(clean, gateRQ, "04-results", "calibration.json")}, 0,
			"DQ3 PASS  Calibration"},
		{false, []string{"run", "S2", "--project", clean}, 2, ""},
		{false, []string{"list"}, 0, "DQ4  Findings match their data"},
		{false, []string{"history", "--project", clean, "--gate", "dq3"}, 0, "DQ3   -      PASS"},
		{true, []string{"show", "generic"}, 0, "domain: generic (Generic (any field))"},
		{true, []string{"validate", "--project", clean}, 0, ".vibe-science/domain-config.json: valid (domain generic)"},
	}
	f, out, _ := gateTestFactory(t, nil)
	for _, tc := range tests {
		out.Reset()
		cmd := NewCmdGate(f)
		if tc.domain {
			cmd = domain.NewCmdDomain(f)
		}
		cmd.SetArgs(tc.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if cli.ExitCode(err) != tc.exit {
			t.Errorf("%q: exit %d (%v), want %d", tc.argv, cli.ExitCode(err), err, tc.exit)
		}
		if tc.out != "" && !strings.Contains(out.String(), tc.out) {
			t.Errorf("%q: stdout lacks %q:\n%s", tc.argv, tc.out, out.String())
		}
	}
}

var gateT0 = time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)

// gateTestFactory shows tables as a 200-column terminal does (root's
// output_test.go checks the pipe form).
func gateTestFactory(t *testing.T, env map[string]string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: gateT0, Env: env, TTY: true, Width: 200})
}

// TestGateJSONTimeFields: every time in --json output is an RFC 3339
// string in a field named <something>_at.
func TestGateJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, gateHistoryJSON{})
}

// TestGateRunDQ4SourceWrittenByHand: `vibe gate run DQ4` decides a
// source's origin as the hooks do: the database's lineage records, else
// the project's mirror; a source written by hand backs no number.
func TestGateRunDQ4SourceWrittenByHand(t *testing.T) {
	ctx := context.Background()
	root := clitest.GateProject(t)
	src := filepath.Join(root, gateRQ, "04-results", "FINDINGS.json")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 24, 10, 14, 0, 0, time.UTC)
	if err := lineage.AppendMirror(root, lineage.Record{Path: gateRQ + "/04-results/FINDINGS.json", SHA256: lineage.Sum(raw),
		Writer: lineage.Hand, By: "Write", At: at}, nil); err != nil {
		t.Fatal(err)
	}
	f, out, _ := gateTestFactory(t, nil)
	o := GateRunOptions{Gate: "DQ4", Findings: filepath.Join(root, gateRQ, "04-results", "FINDINGS.md")}
	o.IO, o.Store, o.ProjectRoot, o.Now, o.Getenv, o.Project = f.IO, f.Store, f.ProjectRoot, f.Now, f.Getenv, root
	if err := runGateRun(ctx, &o); cli.ExitCode(err) != 1 {
		t.Fatalf("exit %d (%v), want 1", cli.ExitCode(err), err)
	}
	if want := "FINDINGS.json was written by hand (Write) at 2026-11-24 10:14 UTC, and no computation produced it, so it backs no finding"; !strings.Contains(out.String(), want) ||
		!strings.Contains(out.String(), "FAIL  source_lineage") {
		t.Errorf("stdout:\n%s\nwant a source_lineage failure saying %q", out, want)
	}
}
