package recall

import (
	"math"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// RRFK is the reciprocal-rank-fusion constant (see the package doc).
const RRFK = 60

// FreshnessWeight is the largest share of a memory's relevance (BM25 or
// cosine) age can take away.
const FreshnessWeight = 0.3

// StandoutSignificance is how unlikely by chance a gap in a query's vector
// similarities must be before the hits above it count (see standouts): a
// model whose similarities say nothing about this query then reorders
// about one query in a hundred at most.
const StandoutSignificance = 0.01

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

// rrf is a list's score for a 1-based rank: reciprocal rank, with RRFK
// flattening the head (see the package doc).
func rrf(rank int) float64 { return 1 / float64(RRFK+rank) }

// standouts is how many of a query's nearest vector hits stand out of the
// model's own similarities: the size of the largest group at the head of
// sims (cosines, nearest first) separated from the hits below it by a gap
// that chance explains with probability at most StandoutSignificance, for
// groups of at most slots hits (only those can all take a place).
//
// The test is the exponential-spacings one (Rényi 1953): below a high
// threshold the top order statistics of a light-tailed sample are spaced
// so that the normalised gaps D_i = i·(sims[i−1] − sims[i]) are
// independent and exponential with one scale. So the gap under a head of
// j hits, D_j, is compared with the mean of the gaps below it, over n of
// them: under the null D_j / mean ~ F(2, 2n), whose tail is
// P(T > t) = (1 + t/n)^−n exactly; the slots tests share the level
// (Bonferroni). The scale is the model's own, measured on this query, so
// the test needs no constant per model: compressed cosines (0.97 ± 0.01)
// and spread ones (0.3 ± 0.2) are judged alike. For the bounded, lighter
// than exponential tails of cosines the deeper gaps are the wider, which
// makes the test conservative.
func standouts(sims []float64, slots int) int {
	m := len(sims)
	if m < 3 {
		return 0 // no gap below a head to compare with
	}
	gap := func(i int) float64 { return float64(i) * (sims[i-1] - sims[i]) } // D_i, 1-based
	below := 0.0                                                             // sum of D_i for i > j
	for i := m - 1; i > min(slots, m-2); i-- {
		below += gap(i)
	}
	best := 0
	for j := min(slots, m-2); j >= 1; j-- {
		n := m - 1 - j
		if mean := below / float64(n); mean > 0 {
			t := gap(j) / mean
			if float64(slots)*math.Pow(1+t/float64(n), -float64(n)) <= StandoutSignificance {
				best = max(best, j)
			}
		}
		below += gap(j)
	}
	return best
}
