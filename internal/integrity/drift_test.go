package integrity

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// driftFixture is one <name>.in.json of testdata/drift: config versions over
// time, gate failures, and optionally the write being judged.
type driftFixture struct {
	Domain     string         `json:"domain"`
	Now        time.Time      `json:"now"`
	WindowDays int            `json:"window_days"`
	History    []configChange `json:"history"`
	Failures   []Failure      `json:"failures"`
	Proposed   *configChange  `json:"proposed"`
}

type configChange struct {
	Domain string          `json:"domain"`
	At     time.Time       `json:"at"`
	Old    json.RawMessage `json:"old"`
	New    json.RawMessage `json:"new"`
}

type driftGolden struct {
	Report   DriftReport       `json:"report"`
	Proposed []ThresholdChange `json:"proposed"`
	Verdict  verdict.Verdict   `json:"verdict"`
}

// runDriftFixture takes a fixture through the whole path: diff each config
// version, mark changes made after a failure, build the report, judge.
func runDriftFixture(t *testing.T, raw []byte) []byte {
	t.Helper()
	var fx driftFixture
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fx); err != nil {
		t.Fatalf("decode fixture: %v", err)
	}
	diff := func(c configChange) []ThresholdChange {
		domain := c.Domain
		if domain == "" {
			domain = fx.Domain
		}
		cs, err := DiffThresholds(domain, c.Old, c.New, c.At, nil)
		if err != nil {
			t.Fatalf("DiffThresholds: %v", err)
		}
		return cs
	}
	var history []ThresholdChange
	for _, c := range fx.History {
		history = append(history, diff(c)...)
	}
	history = MarkAfterFailure(history, fx.Failures, 0)
	r := Drift(fx.Domain, history, fx.Now, time.Duration(fx.WindowDays)*24*time.Hour)
	g := driftGolden{Report: r, Proposed: []ThresholdChange{}}
	if fx.Proposed != nil {
		g.Proposed = MarkAfterFailure(diff(*fx.Proposed), fx.Failures, 0)
		g.Verdict = DriftVerdictFor(r, g.Proposed)
	} else {
		g.Verdict = DriftVerdictFor(r, nil)
	}
	out, err := verdict.Canonical(g)
	if err != nil {
		t.Fatalf("canonical: %v", err)
	}
	return append(out, '\n')
}

// driftWant pins the numbers of each fixture independently of its golden
// file, so rewriting the goldens with -update cannot hide a wrong total.
var driftWant = map[string]struct {
	historyBps, totalBps int
	result               verdict.Result
	afterFailure         int
}{
	"empty":                    {0, 0, verdict.Pass, 0},
	"total_500":                {400, 500, verdict.Pass, 0},
	"total_799":                {400, 799, verdict.Pass, 0},
	"total_800":                {400, 800, verdict.Warn, 0},
	"total_999":                {400, 999, verdict.Warn, 0},
	"total_1000":               {400, 1000, verdict.Block, 0},
	"total_1500":               {900, 1500, verdict.Block, 0},
	"out_of_window":            {400, 700, verdict.Pass, 0},
	"window_edge":              {400, 800, verdict.Warn, 0},
	"future_change":            {400, 700, verdict.Pass, 0},
	"cross_domain":             {400, 700, verdict.Pass, 0},
	"cross_domain_proposal":    {400, 400, verdict.Pass, 0},
	"tightening_only":          {1200, 2311, verdict.Pass, 0},
	"loosened_after_failure":   {400, 500, verdict.Warn, 1},
	"failure_outside_lookback": {0, 100, verdict.Pass, 0},
	"unknown_key":              {900, 1000, verdict.Block, 0},
	"state_block":              {1000, 1000, verdict.Block, 0},
	"state_warn":               {800, 800, verdict.Warn, 0},
	"state_after_failure":      {400, 400, verdict.Warn, 1},
	"multi_key_write":          {200, 1000, verdict.Block, 0},
	"range_key":                {0, 1500, verdict.Block, 0},
	"old_zero":                 {100, 100, verdict.Pass, 0},
	"window_30_days":           {400, 700, verdict.Pass, 0},
}

func TestDriftGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "drift", "*.in.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ins)
	if len(ins) < 12 {
		t.Fatalf("drift corpus has %d fixtures, want at least 12", len(ins))
	}
	seen := map[string]bool{}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.json")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := runDriftFixture(t, raw)
			if again := runDriftFixture(t, raw); !bytes.Equal(got, again) {
				t.Fatalf("second run differs:\n%s\n%s", got, again)
			}
			golden := strings.TrimSuffix(in, ".in.json") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create it): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from golden:\ngot  %s\nwant %s", name, got, want)
			}

			var g driftGolden
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			w, ok := driftWant[name]
			if !ok {
				t.Fatalf("fixture %s has no entry in driftWant", name)
			}
			if g.Report.TotalBps != w.historyBps {
				t.Errorf("history total = %d bps, want %d", g.Report.TotalBps, w.historyBps)
			}
			total := "total_bps=" + itoa(w.totalBps)
			if len(g.Verdict.Evidence.Numbers) == 0 || g.Verdict.Evidence.Numbers[0] != total {
				t.Errorf("verdict numbers = %v, want first %q", g.Verdict.Evidence.Numbers, total)
			}
			if g.Verdict.Result != w.result {
				t.Errorf("result = %s, want %s (reason %q)", g.Verdict.Result, w.result, g.Verdict.Reason)
			}
			if len(g.Report.LoosenedAfterFailure) != w.afterFailure {
				t.Errorf("loosened after failure = %d, want %d", len(g.Report.LoosenedAfterFailure), w.afterFailure)
			}
			if g.Verdict.Check != CheckDrift {
				t.Errorf("check = %q", g.Verdict.Check)
			}
			if g.Verdict.DecisionHash != verdict.Hash(g.Verdict.Check, g.Verdict.Input, g.Verdict.Result) {
				t.Errorf("decision hash does not match check, input and result")
			}
		})
	}
	for name := range driftWant {
		if !seen[name] {
			t.Errorf("driftWant names %s but testdata/drift has no such fixture", name)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestDriftReasons(t *testing.T) {
	at := time.Date(2026, 5, 31, 0, 0, 0, 0, time.UTC)
	now := at.Add(24 * time.Hour)
	loosen := ThresholdChange{Domain: "crispr", Key: "dq2.min_auc", Old: 0.5, New: 0.45, At: at, Direction: LowerLooser, Loosens: true}
	tighten := ThresholdChange{Domain: "crispr", Key: "dq2.min_auc", Old: 0.45, New: 0.5, At: at, Direction: LowerLooser}
	after := loosen
	after.AfterFailure = true
	small := ThresholdChange{Domain: "crispr", Key: "dq2.min_auc", Old: 0.5, New: 0.49, At: at, Direction: LowerLooser, Loosens: true, AfterFailure: true}
	unknown := ThresholdChange{Domain: "crispr", Key: "dq1.cfd_nonzero_threshold", Old: 0.3, New: 0.33, At: at}
	empty := Drift("crispr", nil, now, 0)

	tests := []struct {
		name     string
		proposed *ThresholdChange
		result   verdict.Result
		severity verdict.Severity
		contains []string
	}{
		{"nil judges the state", nil, verdict.Pass, verdict.Low, []string{"drifted 0 bps over 180 days, under the 800 bps warning of D3-threshold-drift"}},
		{"loosening at the cap", &loosen, verdict.Block, verdict.High, []string{"Loosening dq2.min_auc (0.5 -> 0.45)", "to 1000 bps over 180 days", "1000 bps cap"}},
		{"tightening is never blocked", &tighten, verdict.Pass, verdict.Low, []string{"only tightens (dq2.min_auc (0.45 -> 0.5))", "1111 bps"}},
		{"after failure at the cap is named", &after, verdict.Block, verdict.High, []string{"It loosens dq2.min_auc right after a gate failed on it."}},
		{"after failure under the warning is a WARN", &small, verdict.Warn, verdict.High, []string{"right after a gate failed on it moves the goalposts", "drift 200 bps"}},
		{"unknown direction is judged as loosening", &unknown, verdict.Block, verdict.High, []string{"The direction of dq1.cfd_nonzero_threshold is unknown", "declare it in the direction table"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := DriftVerdictFor(empty, proposal(tt.proposed))
			if v.Result != tt.result || v.Severity != tt.severity {
				t.Fatalf("got %s/%s, want %s/%s: %s", v.Result, v.Severity, tt.result, tt.severity, v.Reason)
			}
			for _, s := range tt.contains {
				if !strings.Contains(v.Reason, s) {
					t.Errorf("reason %q lacks %q", v.Reason, s)
				}
			}
			if v.Result != verdict.Pass && v.Recommendation == "" {
				t.Errorf("non-passing verdict without a recommendation")
			}
		})
	}
}

// proposal is one proposed change as DriftVerdictFor takes it; nil none.
func proposal(c *ThresholdChange) []ThresholdChange {
	if c == nil {
		return nil
	}
	return []ThresholdChange{*c}
}

func TestDriftVerdictDoesNotCountAProposalTwice(t *testing.T) {
	at := time.Date(2026, 5, 31, 0, 0, 0, 0, time.UTC)
	c := ThresholdChange{Domain: "crispr", Key: "dq2.max_fold_cv", Old: 0.5, New: 0.53, At: at, Direction: HigherLooser, Loosens: true}
	r := Drift("crispr", []ThresholdChange{c}, at, 0)
	if r.TotalBps != 600 {
		t.Fatalf("total = %d, want 600", r.TotalBps)
	}
	v := DriftVerdictFor(r, []ThresholdChange{c})
	if v.Evidence.Numbers[0] != "total_bps=600" || v.Result != verdict.Pass {
		t.Fatalf("got %v %s, want total 600 PASS", v.Evidence.Numbers, v.Result)
	}
	if !strings.HasPrefix(v.Reason, "Loosening dq2.max_fold_cv") {
		t.Fatalf("the duplicate was not judged as the proposal: %q", v.Reason)
	}
}

func TestDriftWindow(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	mk := func(domain string, at time.Time) ThresholdChange {
		return ThresholdChange{Domain: domain, Key: "dq2.min_auc", Old: 0.5, New: 0.49, At: at, Direction: LowerLooser, Loosens: true, Bps: 99999}
	}
	history := []ThresholdChange{
		mk("crispr", now.Add(-DefaultDriftWindow)),                 // on the edge: out
		mk("crispr", now.Add(-DefaultDriftWindow+time.Nanosecond)), // just inside
		mk("crispr", now),                                       // now: inside
		mk("crispr", now.Add(time.Nanosecond)),                  // future: out
		mk("photonics", now.Add(-time.Hour)),                    // other domain: out
		mk("crispr", now.Add(-DefaultDriftWindow-24*time.Hour)), // old: out
	}
	r := Drift("crispr", history, now, 0)
	if r.WindowDays != 180 || len(r.Changes) != 2 || r.TotalBps != 400 {
		t.Fatalf("got window %d, %d changes, %d bps; want 180, 2, 400 (stale Bps must be recomputed)", r.WindowDays, len(r.Changes), r.TotalBps)
	}
	if !r.Changes[0].At.Before(r.Changes[1].At) {
		t.Fatalf("changes not oldest first: %v", r.Changes)
	}
	if r.Changes[0].Bps != 200 {
		t.Fatalf("Bps = %d, want 200", r.Changes[0].Bps)
	}
}
