package recall

import (
	"math"
	"time"

	"github.com/vibe-science/vibe/internal/record"
)

// RRFK is the reciprocal-rank-fusion constant (see the package doc).
const RRFK = 60

// FreshnessWeight is the largest share of a memory's relevance (BM25 or
// cosine) age can take away.
const FreshnessWeight = 0.3

// VectorSignificance is how unlikely by chance the agreement between the
// vector and lexical lists must be before vector ranks count: random
// vectors then take part in about one query in a thousand, and a working
// model, whose first ten neighbours share five or more with BM25's
// candidates, nearly always.
const VectorSignificance = 1e-5

// HalfLife is how long a memory of a kind takes to lose half of its
// freshness. Actions go stale fastest (what was run last week rarely
// matters), narratives and open threads next (the latest session
// supersedes them; a thread is picked up or dropped within weeks),
// decisions, seeds and hypotheses last a season, claim outcomes, notes a
// person wrote, patterns and insights last longest.
func HalfLife(kind string) time.Duration {
	const day = 24 * time.Hour
	switch kind {
	case record.KindAction:
		return 14 * day
	case record.KindNarrative, record.KindOpenThread:
		return 30 * day
	case record.KindGateFailure, record.KindFailure:
		return 60 * day
	case record.KindDecision, record.KindSeed, record.KindHypothesis:
		return 90 * day
	case record.KindClaimEvent:
		return 120 * day
	case record.KindNote, record.KindPattern, record.KindInsight:
		return 180 * day
	}
	return 90 * day
}

// Freshness is 0.5^(age/HalfLife(kind)): 1 for a memory made now, 0.5 one
// half-life later. A memory dated in the future counts as new.
func Freshness(kind string, created, now time.Time) float64 {
	age := now.Sub(created)
	if age <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(HalfLife(kind)))
}

// weight is the multiplier freshness and trust put on a fused score.
func weight(kind string, trust float64, created, now time.Time) float64 {
	trust = math.Max(0, math.Min(1, trust))
	return (1 - FreshnessWeight*(1-Freshness(kind, created, now))) * (0.5 + 0.5*trust)
}

// rrf is one list's contribution for a 1-based rank.
func rrf(rank int) float64 { return 1 / float64(RRFK+rank) }

// vectorWeight is the confidence in this query's vector ranks (package
// doc): chance-corrected agreement of the first ten vector hits with the
// lexical candidates, in a pool of n memories, or 0 unless that agreement
// is significant at VectorSignificance.
func vectorWeight(vec []int64, lexical map[int64]bool, n int) float64 {
	if len(vec) == 0 {
		return 0
	}
	if len(lexical) == 0 {
		return 1
	}
	m := min(10, len(vec))
	overlap := 0
	for _, id := range vec[:m] {
		if lexical[id] {
			overlap++
		}
	}
	if n < len(lexical) {
		n = len(lexical)
	}
	p := float64(len(lexical)) / float64(n)
	if p >= 1 || binomialTail(m, overlap, p) > VectorSignificance {
		// When every memory is a lexical candidate, agreement says
		// nothing, and vectors could only reorder what BM25 found.
		return 0
	}
	chance := float64(m) * p
	return math.Max(0, math.Min(1, (float64(overlap)-chance)/(float64(m)-chance)))
}

// binomialTail is P(X ≥ k) for X ~ Binomial(n, p): the chance that n random
// hits share k or more of the lexical candidates (the binomial stands in for
// the hypergeometric, which it bounds from above for draws without
// replacement, so the test errs toward ignoring vectors).
func binomialTail(n, k int, p float64) float64 {
	if k <= 0 {
		return 1
	}
	sum := 0.0
	for x := k; x <= n; x++ {
		sum += binom(n, x) * math.Pow(p, float64(x)) * math.Pow(1-p, float64(n-x))
	}
	return sum
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
