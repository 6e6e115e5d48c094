package domain

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/gate"
)

func TestNewCmdDomainFlags(t *testing.T) {
	f, _, _ := gateTestFactory(t, nil)
	showTests := []struct {
		argv []string
		want DomainShowOptions
		err  string
	}{
		{[]string{}, DomainShowOptions{}, ""},
		{[]string{"generic", "--json", "--project", "/p"}, DomainShowOptions{Name: "generic", JSON: true, Project: "/p"}, ""},
		{[]string{"a", "b"}, DomainShowOptions{}, "give at most one domain name; the shipped domains are " + strings.Join(gate.ShippedDomains(), ", ")},
	}
	for _, tt := range showTests {
		var got *DomainShowOptions
		cmd := NewCmdDomainShow(f, func(o *DomainShowOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || cli.ExitCode(err) != 2 {
				t.Errorf("show %q: err %v (exit %d), want %q", tt.argv, err, cli.ExitCode(err), tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got.IO, got.ProjectRoot = cli.IO{}, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("show %q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
	validateTests := []struct {
		argv []string
		want DomainValidateOptions
		err  string
	}{
		{[]string{}, DomainValidateOptions{}, ""},
		{[]string{"cfg.json", "--project", "/p"}, DomainValidateOptions{File: "cfg.json", Project: "/p"}, ""},
		{[]string{"a.json", "b.json"}, DomainValidateOptions{}, "give at most one file"},
	}
	for _, tt := range validateTests {
		var got *DomainValidateOptions
		cmd := NewCmdDomainValidate(f, func(o *DomainValidateOptions) error { got = o; return nil })
		cmd.SetArgs(tt.argv)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		if tt.err != "" {
			if err == nil || err.Error() != tt.err || cli.ExitCode(err) != 2 {
				t.Errorf("validate %q: err %v (exit %d), want %q", tt.argv, err, cli.ExitCode(err), tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got.IO, got.ProjectRoot = cli.IO{}, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("validate %q: got %+v, want %+v", tt.argv, *got, tt.want)
		}
	}
}

func TestDomainText(t *testing.T) {
	min := 0.3
	rag := "zotero"
	d := gate.Domain{Name: "lab", Extends: "generic", DisplayName: "Our lab", Notes: "Tighter missing values.",
		Literature: gate.Literature{Primary: []string{"pubmed"}, Preprints: []string{"biorxiv", "medrxiv"}, CuratedRAG: &rag},
		Files: gate.FilePatterns{Features: []string{"features*.csv"}, Metrics: []string{"metrics*.json"},
			Calibration: []string{"calibration*.json"}, Findings: []string{"*findings*.md"}, Dictionary: []string{"DATA-DICTIONARY.md"}},
		DQ1: gate.DQ1Config{LabelColumn: "cleaved", AllowedMissingFraction: 0.1, LeakageCorrThreshold: 0.9, MinSamples: 20,
			RequiredColumns: []string{"guide_id"}, Checks: []gate.ColumnCheck{
				{Name: "mm", Kind: gate.CheckMeanWithin, Columns: []string{"mismatch_count"}, Range: []float64{2, 8}, Required: true, Why: "sites average 2 to 8"},
				{Name: "cfd", Kind: gate.CheckFractionNonzero, Columns: []string{"cfd", "cfd_score"}, Min: &min}}},
		DQ2:       gate.DQ2Config{MinAUC: 0.6, MinR2: 0.1, MaxDominance: 0.4, MaxFoldCV: 0.3},
		DQ3:       gate.DQ3Config{MaxCoverageGap: 0.05, MaxCoverage: 0.99, MinN: 50},
		DQ4:       gate.DQ4Config{Rounding: gate.RoundingRoundOrTruncate},
		Promotion: map[int][]string{1: {"DQ4", "DQ1"}, 0: {"DQ4"}},
	}
	want := `domain: lab (Our lab)
extends: generic
source: here
notes: Tighter missing values.

literature sources
  primary: pubmed
  secondary: -
  datasets: -
  preprints: biorxiv, medrxiv
  grey: -
  curated RAG: zotero

files that fire the gates
  features (DQ1, DD0): features*.csv
  metrics (DQ2): metrics*.json
  calibration (DQ3): calibration*.json
  findings (DQ4): *findings*.md
  dictionary (DD0): DATA-DICTIONARY.md

DQ1 features
  label_column: cleaved
  allowed_missing_fraction: 0.1
  leakage_corr_threshold: 0.9
  min_samples: 20
  required_columns: guide_id
  check mm: mean within [2, 8] of mismatch_count (required)
    why: sites average 2 to 8
  check cfd: fraction of non-zero values at least 0.3 of cfd, cfd_score

DQ2 model
  min_auc: 0.6
  min_r2: 0.1
  max_dominance: 0.4
  max_fold_cv: 0.3

DQ3 calibration
  max_coverage_gap: 0.05
  max_coverage: 0.99
  min_n: 50

DQ4 findings
  rounding: round_or_truncate
  percent_of_fraction: false

promotion gates per claim tier (the domain's table; every promotion also needs D1 and a Reviewer 2 review)
  tier 0: DQ4
  tier 1: DQ4, DQ1
`
	if got := domainText(d, "here"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunDomainShow(t *testing.T) {
	tests := []struct {
		name    string
		config  string // project domain config; "" for none
		shipped string
		exit    int
		source  string
		want    func(t *testing.T) gate.Domain
	}{
		{name: "a shipped domain", shipped: "particle-physics", source: "source: shipped, blueprints/domains/particle-physics.json\n",
			want: func(t *testing.T) gate.Domain { return gateMustShipped(t, "particle-physics") }},
		{name: "no project config", source: "source: no .vibe-science/domain-config.json, so the shipped generic domain applies\n",
			want: func(t *testing.T) gate.Domain { return gateMustShipped(t, "generic") }},
		{name: "project override", config: `{"domain": "crispr-off-target", "dq2": {"min_auc": 0.7}}`,
			source: "source: .vibe-science/domain-config.json, over the shipped crispr-off-target domain\n",
			want: func(t *testing.T) gate.Domain {
				d := gateMustShipped(t, "crispr-off-target")
				d.DQ2.MinAUC = 0.7
				return d
			}},
		{name: "unknown shipped domain", shipped: "astrology", exit: 2},
		{name: "invalid project config", config: `{"domain": "generic", "dq3": {"min_n": 0}}`, exit: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := clitest.MkVibeDir(t, t.TempDir())
			if tc.config != "" {
				if err := os.MkdirAll(filepath.Join(root, ".vibe-science"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, ".vibe-science", "domain-config.json"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, asJSON := range []bool{false, true} {
				f, out, _ := gateTestFactory(t, nil)
				err := runDomainShow(&DomainShowOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, Name: tc.shipped, Project: root, JSON: asJSON})
				if cli.ExitCode(err) != tc.exit {
					t.Fatalf("exit %d (%v), want %d", cli.ExitCode(err), err, tc.exit)
				}
				if tc.exit != 0 {
					if out.Len() != 0 {
						t.Errorf("stdout %q", out.String())
					}
					continue
				}
				want := tc.want(t)
				if asJSON {
					var got gate.Domain
					if err := json.Unmarshal(out.Bytes(), &got); err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("JSON:\n got %+v\nwant %+v", got, want)
					}
					continue
				}
				lines := strings.SplitN(out.String(), "\n", 3)
				if lines[0] != "domain: "+want.Name+" ("+want.DisplayName+")" || lines[1]+"\n" != tc.source {
					t.Errorf("head %q, want domain %s and %q", lines[:2], want.Name, tc.source)
				}
				if !strings.Contains(out.String(), "\nDQ2 model\n  min_auc: "+domainNum(want.DQ2.MinAUC)+"\n") {
					t.Errorf("min_auc missing:\n%s", out.String())
				}
			}
		})
	}
}

func gateMustShipped(t *testing.T, name string) gate.Domain {
	t.Helper()
	d, err := gate.ShippedDomain(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRunDomainValidate(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	valid := write("valid.json", `{"domain": "my-lab", "extends": "generic", "dq1": {"min_samples": 40}}`)
	invalid := write("invalid.json", `{"domain": "generic", "dq1": {"leakage_corr_threshold": 1.5, "min_sample": 3}, "dq4": {"rounding": "floor"}}`)
	notJSON := write("broken.json", `{"domain": `)
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".vibe-science"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, ".vibe-science", "domain-config.json"), []byte(`{"domain": "photonics-integrated"}`), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name          string
		file, project string
		exit          int
		out, errOut   string
		err           string
	}{
		{name: "valid file", file: valid, out: valid + ": valid (domain my-lab, extending generic)\n"},
		{name: "the project's config", project: project, out: ".vibe-science/domain-config.json: valid (domain photonics-integrated)\n"},
		{name: "invalid, every problem with its field", file: invalid, exit: 1,
			out: invalid + ": dq1.min_sample: unknown key; known keys here are allowed_missing_fraction, checks, cross_checks, grouping, label_column, leakage_corr_threshold, leakage_exempt, max_share_change, min_samples, pairs, point_mass, required_columns\n" +
				invalid + ": dq1.leakage_corr_threshold: 1.5 must be within (0, 1]\n" +
				invalid + ": dq4.rounding: \"floor\" must be \"round\" or \"round_or_truncate\"\n",
			err: invalid + " is invalid: 3 problems; fix each field as its message says"},
		{name: "not JSON", file: notJSON, exit: 1, err: notJSON + " is invalid: 1 problem; fix each field as its message says"},
		{name: "missing file", file: filepath.Join(dir, "nope.json"), exit: 2, err: filepath.Join(dir, "nope.json") + " does not exist"},
		{name: "project without a config", project: clitest.MkVibeDir(t, t.TempDir()),
			errOut: "no .vibe-science/domain-config.json: the project uses the generic domain; `vibe domain show generic` prints it\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, out, errOut := gateTestFactory(t, nil)
			err := runDomainValidate(&DomainValidateOptions{IO: f.IO, ProjectRoot: f.ProjectRoot, File: tc.file, Project: tc.project})
			if cli.ExitCode(err) != tc.exit {
				t.Fatalf("exit %d (%v), want %d", cli.ExitCode(err), err, tc.exit)
			}
			if tc.err != "" && (err == nil || err.Error() != tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
			if tc.out != "" && out.String() != tc.out {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), tc.out)
			}
			if errOut.String() != tc.errOut {
				t.Errorf("stderr %q, want %q", errOut.String(), tc.errOut)
			}
		})
	}
}

var gateT0 = time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC)

// gateTestFactory shows tables as a 200-column terminal does (root's
// output_test.go checks the pipe form).
func gateTestFactory(t *testing.T, env map[string]string) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: gateT0, Env: env, TTY: true, Width: 200})
}
