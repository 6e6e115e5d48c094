package gate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

// TestRerun: the command a message names carries the files the gate read,
// never a FILE placeholder.
func TestRerun(t *testing.T) {
	for _, c := range []struct {
		r    Result
		want string
	}{
		{Result{Gate: "DQ4", Inputs: []string{"RQ-001/04-results/FINDINGS.md", "RQ-001/04-results/FINDINGS.json"}}, "vibe gate run DQ4 --findings RQ-001/04-results/FINDINGS.md"},
		{Result{Gate: "DD0", Inputs: []string{"02-data/DATA-DICTIONARY.md", "02-data/my table.csv"}}, "vibe gate run DD0 --dictionary 02-data/DATA-DICTIONARY.md --features '02-data/my table.csv'"},
		{Result{Gate: "DC0", Inputs: []string{"RQ-001/DESIGN.md"}}, "vibe gate run DC0 --design RQ-001/DESIGN.md"},
		{Result{Gate: "B0", Inputs: []string{"B0.json"}}, "vibe gate run B0 --artifact B0.json"},
		{Result{Gate: "DQ1"}, ""},
		{Result{Gate: "B0"}, ""},
		{Result{Gate: "XX"}, ""},
	} {
		if got := c.r.Rerun(); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.r.Gate, c.r.Inputs, got, c.want)
		}
	}
}

func TestVerdict(t *testing.T) {
	fail := Result{Gate: "DQ1", Status: StatusFail, Inputs: []string{"f.csv"}, Checks: []Check{
		{Name: "rows", Status: StatusPass, Detail: "20 data rows, 3 columns"},
		{Name: "zero_variance", Status: StatusFail, Detail: "column `gc_content` has zero variance (all 0.41)", Fix: "drop it or explain it in the data dictionary"},
	}}
	two := fail
	two.Checks = append(append([]Check{}, fail.Checks...), Check{Name: "missing", Status: StatusFail, Detail: "column `x` is 60% missing (6 of 10 rows; allowed 50%)", Fix: "drop the column"})
	warn := Result{Gate: "DQ2", Status: StatusWarn, Checks: []Check{
		{Name: "baseline", Status: StatusPass, Detail: "AUC = 0.7, at least 0.55"},
		{Name: "fold_cv", Status: StatusWarn, Detail: "no fold scores", Fix: "write the per-fold scores"},
	}}
	pass := Result{Gate: "DQ3", Status: StatusPass, Checks: []Check{{Name: "sample_size", Status: StatusPass, Detail: "n = 40, at least 30"}}}
	tests := []struct {
		name   string
		r      Result
		result verdict.Result
		sev    verdict.Severity
		reason string
		rec    string
	}{
		{"fail", fail, verdict.Block, verdict.High,
			"DQ1 FAIL: column `gc_content` has zero variance (all 0.41) — drop it or explain it in the data dictionary.",
			"Make that change, then re-run `vibe gate run DQ1 --features f.csv`."},
		{"two failures", two, verdict.Block, verdict.High,
			"DQ1 FAIL: column `gc_content` has zero variance (all 0.41) — drop it or explain it in the data dictionary; column `x` is 60% missing (6 of 10 rows; allowed 50%) — drop the column.",
			"Fix the 2 issues listed, then re-run `vibe gate run DQ1 --features f.csv`."},
		{"warn", warn, verdict.Warn, verdict.Med, "DQ2 WARN: no fold scores — write the per-fold scores.",
			"Make that change, then re-run the gate."}, // its files unknown: no placeholder
		{"pass", pass, verdict.Pass, verdict.Low, "DQ3 PASS: n = 40, at least 30.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.r.Verdict()
			if v.Check != tt.r.Gate || v.Result != tt.result || v.Severity != tt.sev || v.Reason != tt.reason || v.Recommendation != tt.rec {
				t.Errorf("verdict %s %s %s\n reason %q\n rec %q", v.Check, v.Result, v.Severity, v.Reason, v.Recommendation)
			}
			if !reflect.DeepEqual(v.Evidence.Paths, tt.r.Inputs) && !(len(v.Evidence.Paths) == 0 && len(tt.r.Inputs) == 0) {
				t.Errorf("evidence paths %q", v.Evidence.Paths)
			}
			if v.DecisionHash != tt.r.Verdict().DecisionHash || len(v.DecisionHash) != 64 {
				t.Errorf("decision hash not stable: %s", v.DecisionHash)
			}
		})
	}
	// The message Claude reads (reason, then "Fix:" and the recommendation)
	// says each fix once: DQ4's repeated its fix sentence (issue 16).
	for _, r := range []Result{fail, two, warn} {
		v := r.Verdict()
		msg := strings.ToLower(v.Reason + " Fix: " + v.Recommendation)
		for _, c := range r.Checks {
			if c.Fix != "" && strings.Count(msg, strings.ToLower(c.Fix)) != 1 {
				t.Errorf("%q says %q %d times", msg, c.Fix, strings.Count(msg, strings.ToLower(c.Fix)))
			}
		}
	}
	if fail.Verdict().DecisionHash == two.Verdict().DecisionHash {
		t.Errorf("different results share a decision hash")
	}
}

func TestReasonCap(t *testing.T) {
	r := newResult("DQ4")
	for i := 0; i < maxReasonItems+3; i++ {
		r.fail("number", fmt.Sprintf("n%d", i), "")
	}
	want := "DQ4 FAIL: n0; n1; n2; n3; n4; n5; n6; n7; n8; n9; n10; n11; and 3 more (run `vibe gate run DQ4` to see all)."
	if got := r.Reason(); got != want {
		t.Errorf("reason %q\nwant %q", got, want)
	}
}

func TestStatusFromChecks(t *testing.T) {
	// A hand-built result with a stale status still reports its worst check.
	r := Result{Gate: "DC0", Status: StatusPass, Checks: []Check{{Name: "design", Status: StatusFail, Detail: "x", Fix: "y"}}}
	if v := r.Verdict(); v.Result != verdict.Block || v.Reason != "DC0 FAIL: x — y." {
		t.Errorf("got %s %q", v.Result, v.Reason)
	}
}

// TestRecord: the recorded result keeps the gate, status, checks and
// numbers field for field, and leaves out the paths the gate was handed (so
// the decision hash does not depend on where the project is checked out).
func TestRecord(t *testing.T) {
	r := Result{Gate: "DQ4", Status: StatusFail, Inputs: []string{"/p/F.md"}, Numbers: []string{"0.93"}, Checks: []Check{
		{Name: "source", Status: StatusPass, Detail: "4 numbers"},
		{Name: "number", Status: StatusFail, Detail: "0.93 matches nothing", Fix: "correct it"},
	}}
	want := record.GateResult{Gate: "DQ4", Status: record.GateFail, Numbers: []string{"0.93"}, Checks: []record.GateItem{
		{Name: "source", Status: record.GatePass, Detail: "4 numbers"},
		{Name: "number", Status: record.GateFail, Detail: "0.93 matches nothing", Fix: "correct it"},
	}}
	if got := r.Record(); !reflect.DeepEqual(got, want) {
		t.Errorf("Record() = %+v, want %+v", got, want)
	}
	if got := (Result{Gate: "DQ1", Status: StatusPass}).Record(); got.Checks != nil || got.Status != record.GatePass {
		t.Errorf("a result without checks recorded as %+v", got)
	}
}
