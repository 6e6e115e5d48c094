package recall

import (
	"context"
	"reflect"
	"testing"

	"github.com/vibe-science/vibe/internal/store/record"
)

// countingSearcher answers TermCounts from a table and records the query
// lexical ends up running.
type countingSearcher struct {
	counts map[string]int
	newest int64
	ran    record.TextQuery
}

func (c *countingSearcher) SearchMemories(_ context.Context, q record.TextQuery) ([]record.TextHit, error) {
	c.ran = q
	return nil, nil
}

func (c *countingSearcher) TermCounts(_ context.Context, exprs []string, limit int) ([]int, error) {
	out := make([]int, len(exprs))
	for i, e := range exprs {
		out[i] = min(c.counts[e], limit)
	}
	return out, nil
}

func (c *countingSearcher) MaxMemoryID(context.Context) (int64, error) { return c.newest, nil }

func TestLexicalKeepsRareWords(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		counts map[string]int
		match  string
		minID  int64
		note   string
	}{
		{"all rare: everything", "gate dq1 guide",
			map[string]int{`"gate"`: 900, `"dq1"`: 40, `"guide"`: 1500}, `"gate" OR "dq1" OR "guide"`, 0, ""},
		{"rarest first until the budget", "gate dq1 guide seq",
			map[string]int{`"gate"`: 9000, `"dq1"`: 40, `"guide"`: 1500, `"seq"`: 1700}, `"dq1" OR "guide"`, 0, ""},
		{"words matching nothing are left out", "import dq1 gate",
			map[string]int{`"import"`: 0, `"dq1"`: 1200, `"gate"`: 5000}, `"dq1"`, 0, ""},
		{"only common words: newest window", "calibration error distribution shift batch",
			map[string]int{`"calibration"`: 9000, `"error"`: 0, `"distribution"`: 7000, `"shift"`: 8000, `"batch"`: 9500},
			`"calibration" OR "distribution" OR "shift" OR "batch"`, 50000 - RecentWindow + 1,
			"every word of the query is common: only the newest 5000 memories were searched"},
		{"the first rare word is kept even above the budget", "gate dq1",
			map[string]int{`"gate"`: 9000, `"dq1"`: 1999}, `"dq1"`, 0, ""},
	}
	for _, tt := range tests {
		s := &countingSearcher{counts: tt.counts, newest: 50000}
		_, note, err := lexical(context.Background(), s, record.TextQuery{Project: "/p"}, tt.text, 50)
		if err != nil {
			t.Fatal(err)
		}
		want := record.TextQuery{Project: "/p", Match: tt.match, Limit: 50, MinID: tt.minID}
		if !reflect.DeepEqual(s.ran, want) || note != tt.note {
			t.Errorf("%s: ran %+v note %q, want %+v %q", tt.name, s.ran, note, want, tt.note)
		}
	}
}
