package recall

import (
	"math"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/record"
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

func TestVectorWeight(t *testing.T) {
	lex := func(ids ...int64) map[int64]bool {
		m := map[int64]bool{}
		for _, id := range ids {
			m[id] = true
		}
		return m
	}
	seq := func(from, n int64) []int64 {
		var out []int64
		for i := from; i < from+n; i++ {
			out = append(out, i)
		}
		return out
	}
	lex50 := lex(seq(1, 50)...)
	tests := []struct {
		name    string
		vec     []int64
		lexical map[int64]bool
		pool    int
		want    float64
	}{
		{"no vector hits", nil, lex50, 1000, 0},
		{"no lexical hits: vectors are all there is", seq(1, 5), lex(), 1000, 1},
		{"full agreement in a big pool", seq(1, 10), lex50, 50000, 1},
		{"chance-level agreement", append(seq(1, 1), seq(100, 9)...), lex50, 300, 0},
		// 6 of 10 in a pool of 1000 with 50 candidates: p = 0.05,
		// P(X ≥ 6) ≈ 2.8e-6 < 1e-5, weight (6 − 0.5) / (10 − 0.5).
		{"significant partial agreement", append(seq(1, 6), seq(100, 4)...), lex50, 1000, 5.5 / 9.5},
		// 5 of 10, p = 0.05: P(X ≥ 5) ≈ 6e-5 > 1e-5 (the agreement a
		// random-weight model reaches through shared tokens).
		{"not significant", append(seq(1, 5), seq(100, 5)...), lex50, 1000, 0},
		{"every memory a candidate", seq(1, 10), lex50, 50, 0},
		{"pool smaller than candidates is the candidates", seq(1, 10), lex50, 10, 0},
	}
	for _, tt := range tests {
		if got := vectorWeight(tt.vec, tt.lexical, tt.pool); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: vectorWeight = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBinomialTail(t *testing.T) {
	tests := []struct {
		n, k int
		p    float64
		want float64
	}{
		{10, 0, 0.3, 1},
		{10, 10, 0.5, 1.0 / 1024},
		{2, 1, 0.5, 0.75},
		{10, 11, 0.5, 0},
	}
	for _, tt := range tests {
		if got := binomialTail(tt.n, tt.k, tt.p); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("binomialTail(%d, %d, %v) = %v, want %v", tt.n, tt.k, tt.p, got, tt.want)
		}
	}
}
