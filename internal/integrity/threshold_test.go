package integrity

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestBasisPoints(t *testing.T) {
	tests := []struct {
		name     string
		old, new float64
		want     int
	}{
		{"unchanged", 0.5, 0.5, 0},
		{"ten percent up is exactly 1000", 0.5, 0.55, 1000},
		{"relative to old", 0.55, 0.5, 909},
		{"half a bp rounds away from zero", 0.5, 0.500025, 1},
		{"just under half rounds down", 0.5, 0.5000249, 0},
		{"half a bp downwards also rounds up in size", 0.5, 0.499975, 1},
		{"negative old uses its magnitude", -0.5, -0.45, 1000},
		{"crossing zero", 0.5, -0.5, 20000},
		{"old zero is absolute", 0, 0.01, 100},
		{"old zero downwards", 0, -0.0003, 3},
		{"integers", 8, 8.4, 500},
		{"799", 0.5, 0.46005, 799},
		{"tiny old is capped", 1e-300, 1, MaxBps},
		{"infinite is capped", 1, math.Inf(1), MaxBps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := BasisPoints(ThresholdChange{Old: tt.old, New: tt.new}); got != tt.want {
				t.Fatalf("BasisPoints(%v -> %v) = %d, want %d", tt.old, tt.new, got, tt.want)
			}
		})
	}
}

func TestDiffThresholds(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	old := []byte(`{"domain":"crispr","literature":{"primary":["pubmed"]},
		"dq1":{"mean_mismatch_range":[2,8],"cfd_nonzero_threshold":0.30,"leakage_corr_threshold":0.95,"sha256_check":true},
		"dq2":{"min_auc":0.55,"min_r2":0.05,"max_dominance":0.50,"custom_floor":3,"gone":1},
		"dq3":{"max_coverage_gap":0.10}}`)
	new := []byte(`{"domain":"crispr2","literature":{"primary":["pubmed","arxiv"]},
		"dq1":{"mean_mismatch_range":[2,9],"cfd_nonzero_threshold":0.3,"leakage_corr_threshold":0.90,"sha256_check":false},
		"dq2":{"min_auc":0.50,"min_r2":0.06,"max_dominance":0.50,"custom_floor":4,"added":2},
		"dq3":{"max_coverage_gap":0.12}}`)
	got, err := DiffThresholds("crispr", old, new, at, nil)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		key      string
		old, new float64
		dir      Direction
		loosens  bool
		bps      int
	}
	want := []row{
		{"dq1.leakage_corr_threshold", 0.95, 0.9, HigherLooser, false, 526},
		{"dq1.mean_mismatch_range[1]", 8, 9, HigherLooser, true, 1250},
		{"dq2.custom_floor", 3, 4, Unknown, false, 3333},
		{"dq2.min_auc", 0.55, 0.5, LowerLooser, true, 909},
		{"dq2.min_r2", 0.05, 0.06, LowerLooser, false, 2000},
		{"dq3.max_coverage_gap", 0.1, 0.12, HigherLooser, true, 2000},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d changes, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Key != w.key || g.Old != w.old || g.New != w.new || g.Direction != w.dir || g.Loosens != w.loosens || g.Bps != w.bps ||
			g.Domain != "crispr" || !g.At.Equal(at) || g.AfterFailure {
			t.Errorf("change %d = %+v, want %+v", i, g, w)
		}
	}
	if got[2].MayLoosen() != true || got[0].MayLoosen() != false {
		t.Errorf("MayLoosen: unknown direction must count as possible loosening, a tightening must not")
	}

	custom, err := DiffThresholds("crispr", old, new, at, map[string]Direction{"dq2.custom_floor": LowerLooser})
	if err != nil {
		t.Fatal(err)
	}
	if custom[2].Direction != LowerLooser || custom[2].Loosens {
		t.Errorf("a passed table must decide: %+v", custom[2])
	}
	if custom[3].Direction != LowerLooser {
		t.Errorf("the min_ convention must still apply with a custom table: %+v", custom[3])
	}
}

func TestDiffThresholdsErrors(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"old not JSON", `{`, `{}`, "diff thresholds: old config of crispr: decode:"},
		{"new an array", `{}`, `[1]`, "diff thresholds: new config of crispr: decode: want a JSON object, got an array"},
		{"number out of range", `{"a":1}`, `{"a":1e999}`, "threshold a: 1e999 is not a finite number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DiffThresholds("crispr", []byte(tt.old), []byte(tt.new), time.Time{}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestMarkAfterFailure(t *testing.T) {
	at := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	c := func(domain, key string) ThresholdChange {
		return ThresholdChange{Domain: domain, Key: key, Old: 1, New: 0.9, At: at}
	}
	changes := []ThresholdChange{
		c("crispr", "dq2.min_auc"),          // failure on dq2 a day before
		c("crispr", "dq20.min_auc"),         // "dq2" must not cover "dq20"
		c("crispr", "dq1.range[0]"),         // failure on dq1.range covers its elements
		c("crispr", "dq3.max_coverage"),     // failure after the change
		c("photonics", "dq2.min_auc"),       // other domain
		c("crispr", "dq3.max_coverage_gap"), // failure exactly lookback before
	}
	failures := []Failure{
		{Domain: "crispr", Key: "dq2", At: at.Add(-24 * time.Hour)},
		{Domain: "crispr", Key: "dq1.range", At: at},
		{Domain: "crispr", Key: "dq3.max_coverage", At: at.Add(time.Second)},
		{Domain: "crispr", Key: "dq3.max_coverage_gap", At: at.Add(-DefaultFailureLookback)},
	}
	got := MarkAfterFailure(changes, failures, 0)
	want := []bool{true, false, true, false, false, true}
	for i := range want {
		if got[i].AfterFailure != want[i] {
			t.Errorf("%s/%s AfterFailure = %v, want %v", got[i].Domain, got[i].Key, got[i].AfterFailure, want[i])
		}
		if changes[i].AfterFailure {
			t.Fatalf("input was modified")
		}
	}
	short := MarkAfterFailure(changes, failures, time.Hour)
	if short[0].AfterFailure || !short[2].AfterFailure {
		t.Errorf("a one-hour lookback: got %v %v, want false true", short[0].AfterFailure, short[2].AfterFailure)
	}
}

func TestDefaultDirectionsIsACopy(t *testing.T) {
	a := DefaultDirections()
	a["dq2.min_auc"] = HigherLooser
	if DefaultDirections()["dq2.min_auc"] != LowerLooser {
		t.Fatal("DefaultDirections shares its map")
	}
	if !reflect.DeepEqual(directionOf("x.y.min_thing", nil), LowerLooser) || directionOf("max_x", nil) != HigherLooser || directionOf("dq1.cfd_nonzero_threshold", DefaultDirections()) != Unknown {
		t.Fatal("naming convention or unknown default broken")
	}
}

// TestInferredChecksLoosenUpwards: the inferred checks' min_ thresholds
// flag less as they rise, against the min_ naming convention.
func TestInferredChecksLoosenUpwards(t *testing.T) {
	old := []byte(`{"dq1":{"pairs":{"min_agreement":0.9,"min_kappa":0.8},"point_mass":{"min_share":0.02}}}`)
	new := []byte(`{"dq1":{"pairs":{"min_agreement":0.99,"min_kappa":0.95},"point_mass":{"min_share":0.1}}}`)
	got, err := DiffThresholds("generic", old, new, time.Time{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("changes %+v", got)
	}
	for _, c := range got {
		if c.Direction != HigherLooser || !c.Loosens {
			t.Errorf("%s: direction %v, loosens %v; raising it flags less", c.Key, c.Direction, c.Loosens)
		}
	}
}
