package recall

import (
	"math"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

var day = 24 * time.Hour

func TestFreshness(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		kind string
		age  time.Duration
		want float64
	}{
		{record.KindAction, 14 * day, 0.5},
		{record.KindNarrative, 30 * day, 0.5},
		{record.KindNarrative, 60 * day, 0.25},
		{record.KindGateFailure, 60 * day, 0.5},
		{record.KindDecision, 90 * day, 0.5},
		{record.KindSeed, 90 * day, 0.5},
		{record.KindClaimEvent, 120 * day, 0.5},
		{record.KindNote, 180 * day, 0.5},
		{"other", 90 * day, 0.5},
		{record.KindNote, 0, 1},
		{record.KindNote, -5 * day, 1}, // dated in the future
	}
	for _, tt := range tests {
		if got := Freshness(tt.kind, now.Add(-tt.age), now); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Freshness(%s, age %v) = %v, want %v", tt.kind, tt.age, got, tt.want)
		}
	}
}

func TestWeight(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		kind  string
		trust float64
		age   time.Duration
		want  float64
	}{
		{"new and trusted", record.KindNote, 1, 0, 1},
		{"one half-life", record.KindDecision, 1, 90 * day, 1 - FreshnessWeight*0.5},
		{"ancient loses at most FreshnessWeight", record.KindAction, 1, 3650 * day, 1 - FreshnessWeight},
		{"untrusted halves", record.KindNote, 0, 0, 0.5},
		{"trust above 1 is 1", record.KindNote, 7, 0, 1},
		{"negative trust is 0", record.KindNote, -1, 0, 0.5},
		{"both", record.KindNarrative, 0.5, 30 * day, (1 - FreshnessWeight*0.5) * 0.75},
	}
	for _, tt := range tests {
		got := weight(tt.kind, tt.trust, now.Add(-tt.age), now)
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: weight = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestStandouts(t *testing.T) {
	// sims builds a nearest-first list: head, then a smooth tail of n
	// cosines falling by step.
	sims := func(head []float64, top float64, n int, step float64) []float64 {
		out := append([]float64(nil), head...)
		for i := 0; i < n; i++ {
			out = append(out, top-float64(i)*step)
		}
		return out
	}
	tests := []struct {
		name  string
		sims  []float64
		slots int
		want  int
	}{
		{"too short to have a gap below", []float64{0.9, 0.1}, 5, 0},
		{"empty", nil, 5, 0},
		{"one far ahead of a smooth tail", sims([]float64{0.95}, 0.30, 49, 0.002), 5, 1},
		{"two far ahead", sims([]float64{0.95, 0.94}, 0.30, 48, 0.002), 5, 2},
		// Compressed cosines (a random-weight transformer): the scale is
		// the list's own, so the same shape 100 times smaller stands out
		// alike.
		{"the same, compressed", sims([]float64{0.9995, 0.9994}, 0.9930, 48, 0.00002), 5, 2},
		{"a group larger than the slots asked for", sims([]float64{0.95, 0.94, 0.93}, 0.30, 47, 0.002), 2, 0},
		{"a smooth list", sims(nil, 0.50, 50, 0.004), 5, 0},
		{"all equal", sims(nil, 0.50, 50, 0), 5, 0},
		// Among 9 hits, a first gap of 0.6 is 12 times the mean
		// normalised gap below it (0.05), over n = 7: the chance
		// (1+12/7)^-7 times 5 slots is 0.005.
		{"short list, wide gap", sims([]float64{0.9}, 0.3, 8, 0.01), 5, 1},
		// Half that gap is 6 times the mean: 0.065, within chance.
		{"short list, narrower gap", sims([]float64{0.9}, 0.6, 8, 0.01), 5, 0},
		// A gap 12 times the mean among 4 hits (n = 2): (1+6)^-2·5 = 0.1.
		{"very short list", []float64{0.9, 0.6, 0.59, 0.58}, 5, 0},
	}
	for _, tt := range tests {
		if got := standouts(tt.sims, tt.slots); got != tt.want {
			t.Errorf("%s: standouts = %d, want %d", tt.name, got, tt.want)
		}
	}
}
