package integritycheck

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/verdict"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "vibe.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newProject(t *testing.T) project.Project {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, project.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	return project.Project{Root: root}
}

func writeFile(t *testing.T, proj project.Project, rel, content string) {
	t.Helper()
	p := filepath.Join(proj.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, proj project.Project, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(proj.Root, filepath.FromSlash(rel)))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}

func addGateCheck(t *testing.T, st *store.Store, proj project.Project, gateID, status string, at time.Time) {
	t.Helper()
	if _, err := st.DB().Exec(`INSERT INTO gate_checks (project_path, gate_id, status, ts) VALUES (?, ?, ?, ?)`,
		proj.Root, gateID, status, at.UnixMilli()); err != nil {
		t.Fatal(err)
	}
}

// number returns the value of "name=" in a verdict's evidence numbers.
func number(v verdict.Verdict, name string) string {
	for _, n := range v.Evidence.Numbers {
		if strings.HasPrefix(n, name+"=") {
			return strings.TrimPrefix(n, name+"=")
		}
	}
	return ""
}

// golden compares got, as canonical JSON, with testdata/name.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	raw, err := verdict.Canonical(got)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	wantCanon, err := verdict.Canonical(json.RawMessage(want))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, wantCanon) {
		t.Errorf("%s differs from the golden file:\n got %s\nwant %s", name, raw, wantCanon)
	}
}

func TestIsDomainConfig(t *testing.T) {
	cases := map[string]bool{
		".vibe-science/domain-config.json":        true,
		"./.vibe-science/domain-config.json":      true,
		`.vibe-science\domain-config.json`:        true,
		"blueprints/domains/generic.json":         true,
		"blueprints/domains/sub/x.json":           false,
		"blueprints/domains/notes.md":             false,
		"blueprints/permissions.json":             false,
		"domain-config.json":                      false,
		"RQ-001/.vibe-science/domain-config.json": false,
	}
	for rel, want := range cases {
		if got := IsDomainConfig(rel); got != want {
			t.Errorf("IsDomainConfig(%q) = %v, want %v", rel, got, want)
		}
	}
}

// fold is a generic-domain config with dq2.max_fold_cv set (shipped: 0.5).
func fold(v string) string {
	return `{"domain": "generic", "dq2": {"max_fold_cv": ` + v + `}}`
}

// TestConfigWriteDriftSequence loosens one threshold step by step, recording
// each allowed change, until the drift budget is spent; tightening is never
// blocked, and the budget frees as old changes leave the 180-day window.
func TestConfigWriteDriftSequence(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	proj := newProject(t)
	const rel = ".vibe-science/domain-config.json"
	steps := []struct {
		name     string
		at       time.Time
		proposed string
		record   bool
		result   verdict.Result
		total    string
	}{
		{"create: 0.5 -> 0.525 is 500 bps", t0, fold("0.525"), true, verdict.Pass, "500"},
		{"0.525 -> 0.54 adds 286 bps", t0.Add(day), fold("0.54"), true, verdict.Pass, "786"},
		{"0.54 -> 0.55 adds 185 bps: past 800", t0.Add(2 * day), fold("0.55"), true, verdict.Warn, "971"},
		{"0.55 -> 0.56 adds 182 bps: past 1000", t0.Add(3 * day), fold("0.56"), false, verdict.Block, "1153"},
		{"tightening 0.55 -> 0.45 is never blocked", t0.Add(3 * day), fold("0.45"), false, verdict.Pass, "2789"},
		{"181 days on, the first two changes left the window", t0.Add(181 * day), fold("0.56"), false, verdict.Pass, "367"},
	}
	var all []any
	for _, s := range steps {
		old := readFile(t, proj, rel)
		vs, err := ConfigWrite(ctx, st, proj, rel, old, []byte(s.proposed), s.at)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if len(vs) != 1 {
			t.Fatalf("%s: %d verdicts, want 1", s.name, len(vs))
		}
		v := vs[0]
		if v.Check != integrity.CheckDrift || v.Result != s.result || number(v, "total_bps") != s.total {
			t.Errorf("%s: %s %s total %s, want %s total %s\n%s", s.name, v.Check, v.Result, number(v, "total_bps"), s.result, s.total, v.Reason)
		}
		if !reflect.DeepEqual(v.Evidence.Paths, []string{rel}) {
			t.Errorf("%s: paths %v", s.name, v.Evidence.Paths)
		}
		all = append(all, map[string]any{"step": s.name, "verdict": v})
		if s.record {
			writeFile(t, proj, rel, s.proposed)
			if _, err := RecordConfigChange(ctx, st, proj, rel, []byte(s.proposed), s.at, "toolu_"+s.at.Format("0102")); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden(t, "drift-sequence.golden.json", all)

	hist, err := st.ThresholdChanges(ctx, proj.Root, "generic", time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range hist {
		got = append(got, c.Key+" "+formatFloat(c.Old)+"->"+formatFloat(c.New)+" "+itoa(c.Bps)+" "+c.Direction+" "+c.SourceRef)
	}
	want := []string{
		"dq2.max_fold_cv 0.5->0.525 500 higher_looser toolu_0301",
		"dq2.max_fold_cv 0.525->0.54 286 higher_looser toolu_0302",
		"dq2.max_fold_cv 0.54->0.55 185 higher_looser toolu_0303",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded history\n got %q\nwant %q", got, want)
	}
}

func formatFloat(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestConfigWriteCases(t *testing.T) {
	ctx := context.Background()
	const rel = ".vibe-science/domain-config.json"
	cases := []struct {
		name      string
		old       string
		proposed  string
		failures  []time.Duration // DQ2 failures this long before the write
		result    verdict.Result
		severity  verdict.Severity
		total     string
		inReason  []string
		notReason []string
	}{
		{
			name: "loosening right after a DQ2 failure is named", old: `{"domain":"generic"}`,
			proposed: `{"domain":"generic","dq2":{"min_auc":0.54}}`, failures: []time.Duration{2 * time.Hour},
			result: verdict.Warn, severity: verdict.High, total: "182",
			inReason: []string{"dq2.min_auc (0.55 -> 0.54) right after a gate failed on it"},
		},
		{
			name: "a failure older than the lookback does not count", old: `{"domain":"generic"}`,
			proposed: `{"domain":"generic","dq2":{"min_auc":0.54}}`, failures: []time.Duration{8 * day},
			result: verdict.Pass, severity: verdict.Low, total: "182",
			notReason: []string{"gate failed"},
		},
		{
			name: "tightening after a failure is not moving the goalposts", old: `{"domain":"generic"}`,
			proposed: `{"domain":"generic","dq2":{"min_auc":0.6}}`, failures: []time.Duration{time.Hour},
			result: verdict.Pass, severity: verdict.Low, total: "909",
			inReason: []string{"only tightens"},
		},
		{
			name: "a check's bound has the direction of its kind", old: `{"domain":"crispr-off-target"}`,
			proposed: `{"domain":"crispr-off-target","dq1":{"cfd_nonzero_threshold":0.25}}`,
			result:   verdict.Block, severity: verdict.High, total: "1667",
			inReason:  []string{"dq1.cfd_nonzero_threshold (0.3 -> 0.25)", "1000 bps cap"},
			notReason: []string{"unknown"},
		},
		{
			name: "a range check widens at both ends", old: `{"domain":"crispr-off-target"}`,
			proposed: `{"domain":"crispr-off-target","dq1":{"mean_mismatch_range":[1.9,8.3]}}`,
			result:   verdict.Warn, severity: verdict.Med, total: "875",
			inReason: []string{"dq1.mean_mismatch_range[0] (2 -> 1.9), dq1.mean_mismatch_range[1] (8 -> 8.3)"},
		},
		{
			name: "switching domain compares with the new domain's shipped thresholds",
			old:  `{"domain":"crispr-off-target","dq2":{"min_auc":0.6}}`, proposed: `{"domain":"generic","dq2":{"min_auc":0.6}}`,
			result: verdict.Pass, severity: verdict.Low, total: "909",
			inReason: []string{"domain generic", "only tightens"},
		},
		{
			name: "a new config is compared with its shipped domain", old: "",
			proposed: `{"domain":"generic","dq1":{"allowed_missing_fraction":0.52}}`,
			result:   verdict.Pass, severity: verdict.Low, total: "400",
			inReason: []string{"Loosening dq1.allowed_missing_fraction (0.5 -> 0.52)"},
		},
		{
			name: "an unreadable proposal is reported, not judged", old: `{"domain":"generic"}`,
			proposed: `{"domain":"generic","dq2":{"min_auc":"low"}}`,
			result:   verdict.Warn, severity: verdict.Med, total: "",
			inReason: []string{"was not judged", "cannot unmarshal string"},
		},
		{
			name: "a config naming no domain is reported", old: `{"domain":"generic"}`, proposed: `{"dq2":{"min_auc":0.5}}`,
			result: verdict.Warn, severity: verdict.Med, total: "",
			inReason: []string{`no "domain" key`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := openStore(t)
			proj := newProject(t)
			now := t0.Add(30 * day)
			for _, ago := range c.failures {
				addGateCheck(t, st, proj, "DQ2", "FAIL", now.Add(-ago))
			}
			vs, err := ConfigWrite(ctx, st, proj, rel, []byte(c.old), []byte(c.proposed), now)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 1 {
				t.Fatalf("%d verdicts: %+v", len(vs), vs)
			}
			v := vs[0]
			if v.Result != c.result || v.Severity != c.severity || number(v, "total_bps") != c.total {
				t.Errorf("got %s %s total %q, want %s %s total %q\n%s", v.Result, v.Severity, number(v, "total_bps"),
					c.result, c.severity, c.total, v.Reason)
			}
			for _, s := range c.inReason {
				if !strings.Contains(v.Reason, s) {
					t.Errorf("reason lacks %q:\n%s", s, v.Reason)
				}
			}
			for _, s := range c.notReason {
				if strings.Contains(v.Reason, s) {
					t.Errorf("reason has %q:\n%s", s, v.Reason)
				}
			}
		})
	}
}

func TestConfigWriteWithoutChangeOrStore(t *testing.T) {
	ctx := context.Background()
	proj := newProject(t)
	const rel = ".vibe-science/domain-config.json"
	// Reformatting and renaming nothing changes no threshold.
	vs, err := ConfigWrite[*store.Tx](ctx, nil, proj, rel, []byte(`{"domain":"generic"}`),
		[]byte(`{"domain": "generic", "notes": "x", "dq2": {"min_auc": 0.55}}`), t0)
	if err != nil || vs != nil {
		t.Errorf("no change: %v %v", vs, err)
	}
	// Without a store there is no history: 600 bps alone passes.
	vs, err = ConfigWrite[*store.Tx](ctx, nil, proj, rel, nil, []byte(`{"domain":"generic","dq2":{"max_fold_cv":0.53}}`), t0)
	if err != nil || len(vs) != 1 || vs[0].Result != verdict.Pass || number(vs[0], "total_bps") != "600" {
		t.Errorf("no store: %+v %v", vs, err)
	}
}

func TestRecordConfigChange(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	proj := newProject(t)
	const rel = ".vibe-science/domain-config.json"
	// A config that predates vibe: its overrides are the starting point.
	writeFile(t, proj, rel, `{"domain":"generic","dq2":{"min_auc":0.6}}`)
	if err := BaselineConfigs(ctx, st, proj, t0); err != nil {
		t.Fatal(err)
	}
	record := func(content string, at time.Time) []integrity.ThresholdChange {
		t.Helper()
		writeFile(t, proj, rel, content)
		cs, err := RecordConfigChange(ctx, st, proj, rel, []byte(content), at, "ref")
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	addGateCheck(t, st, proj, "DQ1", "FAIL", t0.Add(time.Hour))
	// An edit vibe did not see before the write (Bash) is still recorded,
	// against the snapshot; a DQ1 failure marks only dq1 keys.
	cs := record(`{"domain":"generic","dq1":{"min_samples":8},"dq2":{"min_auc":0.58}}`, t0.Add(2*time.Hour))
	var got []string
	for _, c := range cs {
		got = append(got, c.Key+" "+formatFloat(c.Old)+"->"+formatFloat(c.New)+" "+itoa(c.Bps)+" "+
			formatFloat(map[bool]float64{true: 1, false: 0}[c.Loosens])+" "+formatFloat(map[bool]float64{true: 1, false: 0}[c.AfterFailure]))
	}
	want := []string{"dq1.min_samples 10->8 2000 1 1", "dq2.min_auc 0.6->0.58 333 1 0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("recorded\n got %q\nwant %q", got, want)
	}
	// The same content again records nothing.
	if cs := record(`{"domain":"generic","dq1":{"min_samples":8},"dq2":{"min_auc":0.58}}`, t0.Add(3*time.Hour)); len(cs) != 0 {
		t.Errorf("repeat recorded %+v", cs)
	}
	// A broken config records nothing and keeps the snapshot.
	if cs := record(`{"domain":`, t0.Add(4*time.Hour)); len(cs) != 0 {
		t.Errorf("broken recorded %+v", cs)
	}
	cs = record(`{"domain":"generic","dq1":{"min_samples":8},"dq2":{"min_auc":0.57}}`, t0.Add(5*time.Hour))
	if len(cs) != 1 || cs[0].Key != "dq2.min_auc" || cs[0].Old != 0.58 {
		t.Errorf("after broken: %+v", cs)
	}
	hist, _ := st.ThresholdChanges(ctx, proj.Root, "", time.Time{}, time.Time{})
	if len(hist) != 3 || !hist[0].AfterFailure || hist[0].SourceRef != "ref" {
		t.Errorf("history %+v", hist)
	}

	// The drift check over the recorded history: 2000 + 333 + 172 bps.
	vs, err := Check(ctx, st, proj.Root, t0.Add(day))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[1].Check != integrity.CheckDrift || vs[1].Result != verdict.Block || number(vs[1], "total_bps") != "2505" {
		t.Fatalf("check: %+v", vs)
	}
	if !strings.Contains(vs[1].Reason, "dq1.min_samples was loosened right after a gate failed on it") {
		t.Errorf("check reason: %s", vs[1].Reason)
	}
}
