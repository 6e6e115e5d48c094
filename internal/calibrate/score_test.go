package calibrate

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// handPoints are ten predictions whose scores were computed by hand:
//
//	Brier = (0.01+0.04+0.64+0.09+0.36+0.09+0.04+0.64+0.01+0.0025)/10 = 0.19225
//	ECE, 10 bins: (1×0.1 + 2×0.3 + 1×0.3 + 1×0.6 + 1×0.3 + 2×0.3 + 2×0.075)/10 = 0.265
//	ECE, 5 bins:  (1×0.1 + 3×0.1 + 2×0.15 + 4×0.1125)/10 = 0.115
var handPoints = []Point{
	{"C-001", 0.9, true}, {"C-002", 0.8, true}, {"C-003", 0.8, false}, {"C-004", 0.7, true}, {"C-005", 0.6, false},
	{"C-006", 0.3, false}, {"C-007", 0.2, false}, {"C-008", 0.2, true}, {"C-009", 0.1, false}, {"C-010", 0.95, true},
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestScoreHandComputed(t *testing.T) {
	c := Score(handPoints, 10)
	if c.N != 10 || !near(c.Brier, 0.19225) || !near(c.ECE, 0.265) {
		t.Errorf("10 bins: n %d brier %.17g ece %.17g, want 10 0.19225 0.265", c.N, c.Brier, c.ECE)
	}
	type binWant struct {
		n          int
		conf, held float64
		gap        float64
	}
	want := map[int]binWant{1: {1, 0.1, 0, 0.1}, 2: {2, 0.2, 0.5, 0.3}, 3: {1, 0.3, 0, 0.3}, 6: {1, 0.6, 0, 0.6},
		7: {1, 0.7, 1, 0.3}, 8: {2, 0.8, 0.5, 0.3}, 9: {2, 0.925, 1, 0.075}}
	for i, b := range c.Bins {
		w := want[i]
		if b.N != w.n || !near(b.MeanConfidence, w.conf) || !near(b.HeldRate, w.held) || !near(b.Gap, w.gap) ||
			!near(b.Lo, float64(i)/10) || !near(b.Hi, float64(i+1)/10) {
			t.Errorf("bin %d: %+v, want %+v", i, b, w)
		}
	}
	c5 := Score(handPoints, 5)
	if !near(c5.Brier, 0.19225) || !near(c5.ECE, 0.115) || len(c5.Bins) != 5 {
		t.Errorf("5 bins: brier %.17g ece %.17g bins %d", c5.Brier, c5.ECE, len(c5.Bins))
	}
}

func TestScoreEdges(t *testing.T) {
	perfect := Score([]Point{{"a", 1, true}, {"b", 0, false}}, 10)
	if perfect.Brier != 0 || perfect.ECE != 0 || perfect.Bins[9].N != 1 || perfect.Bins[0].N != 1 {
		t.Errorf("perfect: %+v", perfect)
	}
	half := Score([]Point{{"a", 0.5, true}, {"b", 0.5, false}}, 0)
	if !near(half.Brier, 0.25) || half.ECE != 0 || len(half.Bins) != DefaultBins || half.Bins[5].N != 2 {
		t.Errorf("always 0.5: %+v", half)
	}
	empty := Score(nil, 4)
	if empty.N != 0 || empty.Brier != 0 || len(empty.Bins) != 4 {
		t.Errorf("empty: %+v", empty)
	}
	for _, tt := range []struct {
		p    float64
		want int
	}{{0, 0}, {0.0999, 0}, {0.1, 1}, {0.3, 3}, {0.7, 7}, {0.9999, 9}, {1, 9}, {-0.2, 0}, {1.5, 9}} {
		if got := binOf(tt.p, 10); got != tt.want {
			t.Errorf("binOf(%v) = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestPointsKeepTheLatestOutcomePerClaim(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	es := []record.CalibrationEntry{
		{ClaimID: "C-001", Predicted: 0.8, Outcome: OutcomeVerified, At: at},
		{ClaimID: "C-002", Predicted: 0.4, Outcome: OutcomeConfounded, At: at},
		{ClaimID: "C-001", Predicted: 0.7, Outcome: OutcomeRejected, At: at},
		{ClaimID: "C-003", Predicted: 0.6, Outcome: OutcomeRobust, At: at},
		{ClaimID: "C-004", Predicted: 0.3, Outcome: OutcomeArtifact, At: at},
	}
	want := []Point{{"C-001", 0.7, false}, {"C-002", 0.4, false}, {"C-003", 0.6, true}, {"C-004", 0.3, false}}
	if got := Points(es); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
