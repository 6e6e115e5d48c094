package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// oldSearchMemories is searchMemories before it filtered in SQL when the
// global best matches did not answer: it ranked every match (all
// projects and kinds) and read them all in full. It is the oracle of the
// rewrite.
func oldSearchMemories(ctx context.Context, db queryer, q record.TextQuery) ([]record.TextHit, error) {
	if q.Match == "" || q.Limit <= 0 {
		return nil, nil
	}
	ranked, err := rankText(ctx, db, q, -1)
	if err != nil {
		return nil, err
	}
	out, err := hydrate(ctx, db, q, ranked)
	if err != nil {
		return nil, err
	}
	return out[:min(len(out), q.Limit)], nil
}

// TestSearchMemoriesMatchesOracle compares SearchMemories with ranking
// every match, on memories made to tie (the same text in several projects
// and kinds, so BM25 ties and the id decides), forgotten ones, several
// kinds, sessions and dates, for queries on every filter: with kinds
// (filtered first), and without, both where the global best answer (fast
// path) and where they do not.
func TestSearchMemoriesMatchesOracle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	r := rand.New(rand.NewPCG(15, 12))
	words := []string{"gate", "claim", "drift", "guide", "batch", "seq", "harmony", "aligner"}
	kinds := []string{record.KindNarrative, record.KindNarrative, record.KindDecision, record.KindNote, record.KindGateFailure}
	projects := []string{"/a", "/a", "/a", "/b", "/c"}
	var added []int64
	err := s.Tx(ctx, func(tx *Tx) error {
		for i := 0; i < 600; i++ {
			var text strings.Builder
			for j := 0; j < 1+r.IntN(4); j++ {
				text.WriteString(words[r.IntN(len(words))] + " ")
			}
			if i%3 != 0 {
				fmt.Fprintf(&text, "n%d", i) // else the same text may recur, in another project or kind
			}
			id, isNew, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: projects[r.IntN(len(projects))],
				SessionID: fmt.Sprintf("s%d", r.IntN(3)), Kind: kinds[r.IntN(len(kinds))], Text: text.String(),
				Source: "hook", At: t0.Add(time.Duration(r.IntN(10)) * time.Hour), Checked: true})
			if err != nil {
				return err
			}
			if isNew {
				added = append(added, id)
			}
		}
		for i := 0; i < 40; i++ {
			if err := tx.ForgetMemory(ctx, added[r.IntN(len(added))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	queries := []record.TextQuery{}
	for _, match := range []string{`"gate"`, `"gate" OR "drift"`, `"aligner" OR "harmony" OR "seq"`, `"nothing"`, `"n17"`} {
		for _, project := range []string{"/a", "/b", "/c", ""} {
			for _, limit := range []int{1, 3, 20, 50} {
				queries = append(queries,
					record.TextQuery{Project: project, Match: match, Limit: limit},
					record.TextQuery{Project: project, Match: match, Limit: limit, Kinds: []string{record.KindDecision, record.KindGateFailure}},
					record.TextQuery{Project: project, Match: match, Limit: limit, Kinds: []string{record.KindNote}, Session: "s1"},
					record.TextQuery{Project: project, Match: match, Limit: limit, Since: t0.Add(6 * time.Hour), MinID: added[len(added)/2]})
			}
		}
	}
	fast, slow, filtered := 0, 0, 0
	for _, q := range queries {
		want, err := oldSearchMemories(ctx, s.db, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.SearchMemories(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v:\n got %v\nwant %v", q, ids(got), ids(want))
		}
		// Which path answered: a kinds filter filters first; otherwise the
		// fast one when the global best fetch held Limit kept hits or were
		// all the matches.
		if len(q.Kinds) > 0 {
			filtered++
			continue
		}
		fetch := max(4*q.Limit, 40)
		ranked, _ := rankText(ctx, s.db, q, fetch)
		if h, _ := hydrate(ctx, s.db, q, ranked); len(h) >= q.Limit || len(ranked) < fetch {
			fast++
		} else {
			slow++
		}
	}
	t.Logf("fast path %d queries, its fallback %d, kinds %d", fast, slow, filtered)
	if fast == 0 || slow == 0 || filtered == 0 {
		t.Errorf("fast path %d queries, its fallback %d, kinds %d: the data no longer reaches every path", fast, slow, filtered)
	}
}
