package recall

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/vibe-science/vibe/internal/store/record"
)

// The cost bounds of one FTS5 search. BM25 costs about a microsecond per
// matching memory, and an OR of everyday research words ("gate", "claim",
// "failed") matches a fifth of a large store: 50,000 memories took 30 to
// 90 ms. So each word's matches are counted first, capped at TermProbe
// (a capped count reads at most that many postings), and the query keeps
// the rarest words whose matches add up to at most MatchBudget. Dropped
// words are the ones BM25 weighs least (low IDF), so the order of the top
// hits barely moves; below MatchBudget total matches nothing is dropped.
// When every word is common, the newest RecentWindow memories are searched.
const (
	TermProbe    = 2000
	MatchBudget  = 3000
	RecentWindow = 5000
)

// maxCommonTerms is how many common words a common-words-only query keeps.
const maxCommonTerms = 4

// searcher is the FTS5 side of the store, inside a transaction or not.
type searcher interface {
	SearchMemories(ctx context.Context, q record.TextQuery) ([]record.TextHit, error)
	TermCounts(ctx context.Context, exprs []string, limit int) ([]int, error)
	MaxMemoryID(ctx context.Context) (int64, error)
}

// lexical runs the bounded FTS5 search for free text (see TermProbe)
// among the memories filter keeps (its project, kinds, since, session);
// note says when only the newest memories were searched.
func lexical(ctx context.Context, s searcher, filter record.TextQuery, text string, limit int) (hits []record.TextHit, note string, err error) {
	terms := Terms(text)
	if len(terms) == 0 {
		return nil, "", nil
	}
	counts, err := s.TermCounts(ctx, terms, TermProbe)
	if err != nil {
		return nil, "", err
	}
	q := filter
	q.Limit = limit
	total := 0
	for _, c := range counts {
		total += c
	}
	if total <= MatchBudget {
		q.Match = strings.Join(terms, " OR ")
		hits, err = s.SearchMemories(ctx, q)
		return hits, "", err
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] < counts[order[b]] })
	keep := make([]bool, len(terms))
	sum, kept := 0, 0
	first := 0 // words that match nothing anywhere can be left out
	for first < len(order) && counts[order[first]] == 0 {
		first++
	}
	for _, i := range order[first:] {
		if counts[i] >= TermProbe || (kept > 0 && sum+counts[i] > MatchBudget) {
			break
		}
		keep[i] = true
		sum += counts[i]
		kept++
	}
	if kept == 0 {
		for _, i := range order[first:min(first+maxCommonTerms, len(order))] {
			keep[i] = true
		}
		newest, err := s.MaxMemoryID(ctx)
		if err != nil {
			return nil, "", err
		}
		q.MinID = max(1, newest-RecentWindow+1)
		note = fmt.Sprintf("every word of the query is common: only the newest %d memories were searched", RecentWindow)
	}
	var b strings.Builder
	for i, t := range terms {
		if !keep[i] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(t)
	}
	q.Match = b.String()
	hits, err = s.SearchMemories(ctx, q)
	return hits, note, err
}
