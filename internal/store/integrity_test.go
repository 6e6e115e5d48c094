package store

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/verdict"
)

func addThresholdChanges(t *testing.T, s *Store, cs ...record.ThresholdChange) {
	t.Helper()
	if err := s.Tx(context.Background(), func(tx *Tx) error { return tx.AddThresholdChanges(context.Background(), cs) }); err != nil {
		t.Fatal(err)
	}
}

func TestThresholdChangesRoundTripAndWindow(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := record.ThresholdChange{ProjectPath: "/p", Domain: "generic", Key: "dq2.min_auc", Old: 0.55, New: 0.5, Bps: 909,
		Loosens: true, AfterFailure: true, Direction: "lower_looser", At: t0, SourceRef: "domain-config.json toolu_1"}
	b := record.ThresholdChange{ProjectPath: "/p", Domain: "generic", Key: "dq1.mean_mismatch_range[1]", Old: 8, New: 7.5,
		Bps: 625, Direction: "higher_looser", At: t0.Add(time.Hour)}
	other := record.ThresholdChange{ProjectPath: "/p", Domain: "crispr-off-target", Key: "dq2.max_fold_cv", Old: 0.5, New: 0.6,
		Bps: 2000, Loosens: true, Direction: "higher_looser", At: t0.Add(2 * time.Hour)}
	elsewhere := record.ThresholdChange{ProjectPath: "/q", Domain: "generic", Key: "dq2.min_auc", Old: 0.55, New: 0.6,
		Bps: 909, Direction: "lower_looser", At: t0}
	// Inserted out of time order: the listing sorts by time.
	addThresholdChanges(t, s, b, a, other, elsewhere)

	cases := []struct {
		name         string
		domain       string
		since, until time.Time
		want         []record.ThresholdChange
	}{
		{"one domain, all time", "generic", time.Time{}, time.Time{}, []record.ThresholdChange{a, b}},
		{"every domain", "", time.Time{}, time.Time{}, []record.ThresholdChange{a, b, other}},
		{"since is inclusive", "generic", t0.Add(time.Hour), time.Time{}, []record.ThresholdChange{b}},
		{"until is inclusive", "", time.Time{}, t0.Add(time.Hour), []record.ThresholdChange{a, b}},
		{"empty window", "generic", t0.Add(3 * time.Hour), t0.Add(4 * time.Hour), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.ThresholdChanges(ctx, "/p", c.domain, c.since, c.until)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i].ID == 0 {
					t.Errorf("change %d has no id", i)
				}
				got[i].ID = 0
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}

	domains, err := s.ThresholdDomains(ctx, "/p", time.Time{})
	if err != nil || !reflect.DeepEqual(domains, []string{"crispr-off-target", "generic"}) {
		t.Errorf("domains %v, %v", domains, err)
	}
	domains, _ = s.ThresholdDomains(ctx, "/p", t0.Add(90*time.Minute))
	if !reflect.DeepEqual(domains, []string{"crispr-off-target"}) {
		t.Errorf("domains since 90m: %v", domains)
	}
}

func TestThresholdChangesAreAppendOnly(t *testing.T) {
	s := openTest(t)
	addThresholdChanges(t, s, record.ThresholdChange{ProjectPath: "/p", Domain: "generic", Key: "dq2.min_auc", Old: 0.55, New: 0.5,
		Bps: 909, Direction: "lower_looser", At: t0})
	for _, q := range []string{"UPDATE threshold_changes SET bps = 0", "DELETE FROM threshold_changes"} {
		_, err := s.DB().Exec(q)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: err %v, want the append-only refusal", q, err)
		}
	}
}

func TestConfigSnapshot(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	read := func() ([]byte, bool) {
		var got []byte
		var ok bool
		if err := s.Tx(ctx, func(tx *Tx) error {
			var err error
			got, ok, err = tx.ConfigSnapshot(ctx, "/p", ".vibe-science/domain-config.json")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return got, ok
	}
	if got, ok := read(); ok || got != nil {
		t.Fatalf("empty store: %q %v", got, ok)
	}
	for _, content := range []string{`{"domain":"generic"}`, `{"domain":"generic","dq2":{"min_auc":0.6}}`} {
		if err := s.Tx(ctx, func(tx *Tx) error {
			return tx.SaveConfigSnapshot(ctx, "/p", ".vibe-science/domain-config.json", []byte(content), t0)
		}); err != nil {
			t.Fatal(err)
		}
		if got, ok := read(); !ok || string(got) != content {
			t.Errorf("after saving %s: %q %v", content, got, ok)
		}
	}
}

func TestGateFailures(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, r := range []struct {
		project, gate, status string
		at                    time.Time
	}{
		{"/p", "DQ2", "FAIL", t0},
		{"/p", "dq1", "FAIL", t0.Add(time.Minute)},
		{"/p", "DQ2", "PASS", t0.Add(2 * time.Minute)},
		{"/p", "DQ4", "FAIL", t0.Add(3 * time.Minute)},
		{"/q", "DQ2", "FAIL", t0},
		{"/p", "DQ3", "FAIL", t0.Add(-time.Hour)},
	} {
		if _, err := s.DB().Exec(`INSERT INTO gate_checks (project_path, gate_id, claim_id, status, ts) VALUES (?, ?, 'C-001', ?, ?)`,
			r.project, r.gate, r.status, r.at.UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.GateFailures(ctx, "/p", []string{"dq1", "DQ2", "Dq3"}, t0.Add(-time.Minute), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []record.GateFailure{{GateID: "DQ2", ClaimID: "C-001", At: t0}, {GateID: "dq1", ClaimID: "C-001", At: t0.Add(time.Minute)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	all, _ := s.GateFailures(ctx, "/p", nil, t0.Add(-2*time.Hour), t0.Add(time.Hour))
	if len(all) != 4 || all[0].GateID != "DQ3" || all[3].GateID != "DQ4" {
		t.Errorf("every gate: %+v", all)
	}
}

func TestSeenDecisionHashes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	shown := verdict.New("brief-anchors", verdict.Warn, verdict.Med, "drifted", map[string]string{"a": "1"})
	other := verdict.New("brief-anchors", verdict.Warn, verdict.Med, "drifted", map[string]string{"a": "2"})
	if err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.AppendAdvisories(ctx, record.AdvisoryContext{ProjectPath: "/p", Event: "PostToolUse", At: t0}, []verdict.Verdict{shown}); err != nil {
			return err
		}
		return tx.AppendAdvisories(ctx, record.AdvisoryContext{ProjectPath: "/q", Event: "PostToolUse", At: t0}, []verdict.Verdict{other})
	}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		project string
		hashes  []string
		want    map[string]bool
	}{
		{"/p", nil, map[string]bool{}},
		{"/p", []string{shown.DecisionHash, other.DecisionHash}, map[string]bool{shown.DecisionHash: true}},
		{"/q", []string{shown.DecisionHash, other.DecisionHash}, map[string]bool{other.DecisionHash: true}},
		{"/r", []string{shown.DecisionHash}, map[string]bool{}},
	}
	for _, c := range cases {
		got, err := s.SeenDecisionHashes(ctx, c.project, c.hashes)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %d hashes: %v %v, want %v", c.project, len(c.hashes), got, err, c.want)
		}
	}
}
