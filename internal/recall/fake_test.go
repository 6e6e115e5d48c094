package recall

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// fakeMemories is an in-memory memory table with a word matcher in place
// of FTS5: a term matches a memory whose text holds it as a word, and a
// hit's BM25 is how many of the query's terms it holds. It is its own
// transaction. counts, when set, overrides TermCounts (to play a store in
// which every word is common); queries records what was asked.
type fakeMemories struct {
	mems    []record.MemoryRecord
	counts  func(term string) int
	queries []record.TextQuery
}

func (f *fakeMemories) Tx(ctx context.Context, fn func(*fakeMemories) error) error { return fn(f) }

func fakeTerm(t string) string { return strings.ToLower(strings.Trim(t, `"*`)) }

func fakeHolds(text, term string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	}) {
		if w == term {
			return true
		}
	}
	return false
}

func (f *fakeMemories) TermCounts(ctx context.Context, exprs []string, limit int) ([]int, error) {
	out := make([]int, len(exprs))
	for i, e := range exprs {
		if f.counts != nil {
			out[i] = f.counts(fakeTerm(e))
			continue
		}
		for _, m := range f.mems {
			if fakeHolds(m.Text, fakeTerm(e)) {
				out[i]++
			}
		}
		out[i] = min(out[i], limit)
	}
	return out, nil
}

func (f *fakeMemories) SearchMemories(ctx context.Context, q record.TextQuery) ([]record.TextHit, error) {
	f.queries = append(f.queries, q)
	var hits []record.TextHit
	for _, m := range f.mems {
		if m.ProjectPath != q.Project || m.Forgotten || m.ID < q.MinID || (len(q.Kinds) > 0 && !contains(q.Kinds, m.Kind)) {
			continue
		}
		n := 0
		for _, t := range strings.Split(q.Match, " OR ") {
			if fakeHolds(m.Text, fakeTerm(t)) {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, record.TextHit{MemoryRecord: m, BM25: float64(n)})
		}
	}
	return hits, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (f *fakeMemories) MaxMemoryID(ctx context.Context) (int64, error) {
	return int64(len(f.mems)), nil
}

func (f *fakeMemories) MemoriesByID(ctx context.Context, project string, ids []int64) ([]record.MemoryRecord, error) {
	var out []record.MemoryRecord
	for _, id := range ids {
		out = append(out, f.mems[id-1])
	}
	return out, nil
}

func (f *fakeMemories) ExportMemories(ctx context.Context, project string, fn func(record.MemoryRecord) error) error {
	for _, m := range f.mems {
		if err := fn(m); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeMemories) AddMemory(ctx context.Context, m record.NewMemory) (int64, bool, error) {
	for _, old := range f.mems {
		if old.ProjectPath == m.ProjectPath && record.ContentHash(old.Kind, old.Text) == record.ContentHash(m.Kind, m.Text) {
			return old.ID, false, nil
		}
	}
	id := int64(len(f.mems) + 1)
	f.mems = append(f.mems, record.MemoryRecord{ID: id, ProjectPath: m.ProjectPath, Kind: m.Kind, Text: m.Text,
		Source: m.Source, Trust: record.TrustOf(m), CreatedAt: m.At})
	return id, true, nil
}

func (f *fakeMemories) Memory(ctx context.Context, id int64) (record.MemoryRecord, error) {
	return f.mems[id-1], nil
}

func (f *fakeMemories) LinkConflict(ctx context.Context, id, other int64, at time.Time) (bool, error) {
	a, b := &f.mems[id-1], &f.mems[other-1]
	if slices.Contains(a.Conflicts, other) {
		return false, nil
	}
	a.Conflicts, b.Conflicts = append(a.Conflicts, other), append(b.Conflicts, id)
	older, newer := a, b
	if b.CreatedAt.Before(a.CreatedAt) || (b.CreatedAt.Equal(a.CreatedAt) && b.ID < a.ID) {
		older, newer = b, a
	}
	if record.Outranks(newer.Trust, newer.CreatedAt, newer.ID, older.Trust, older.CreatedAt, older.ID) {
		older.SupersededBy = &newer.ID
	} else {
		newer.Disputes = &older.ID
		older.DisputedBy = append(older.DisputedBy, newer.ID)
	}
	return true, nil
}

func (f *fakeMemories) RaiseTrust(ctx context.Context, id int64, trust float64) error {
	f.mems[id-1].Trust = trust
	return nil
}

func (f *fakeMemories) MarkChecked(ctx context.Context, id int64) error { return nil }

// NewestMatches keeps the memories of the project holding any of match's
// terms (an FTS5 OR of quoted words), newest first.
func (f *fakeMemories) NewestMatches(ctx context.Context, project, match string, limit int) ([]record.MemoryRecord, error) {
	var out []record.MemoryRecord
	for i := len(f.mems) - 1; i >= 0 && len(out) < limit; i-- {
		m := f.mems[i]
		if m.ProjectPath != project || m.Forgotten {
			continue
		}
		for _, term := range strings.Fields(match) {
			if term != "OR" && fakeHolds(m.Text, fakeTerm(term)) {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}

// UncheckedMemories is empty: AddMemory checks what it adds.
func (f *fakeMemories) UncheckedMemories(ctx context.Context, limit int) ([]record.MemoryRecord, error) {
	return nil, nil
}

func (f *fakeMemories) RememberMemory(ctx context.Context, id int64, now time.Time) error {
	f.mems[id-1].Forgotten = false
	return nil
}

// TestSearchAndConflictsOnAFake runs recall against the in-memory fake:
// freshness and trust reorder the lexical list, the kinds and the query
// reach the store as asked, a query of only common words searches the
// newest memories and says so, and AddMemory links an opposite statement.
func TestSearchAndConflictsOnAFake(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f := &fakeMemories{}
	add := func(kind, text, source string, at time.Time) (int64, []int64) {
		t.Helper()
		a, err := AddMemory(ctx, f, nil, record.NewMemory{ProjectPath: "/p", Kind: kind, Text: text, Source: source, At: at})
		if err != nil {
			t.Fatal(err)
		}
		return a.ID, a.Conflicts
	}
	// Both hold the query's two words (BM25 2) and are fully trusted; the
	// action is a year old, and actions go stale fastest.
	old, _ := add(record.KindAction, "batch effects dominated the PCA axis", "hook", now.AddDate(-1, 0, 0))
	fresh, _ := add(record.KindNote, "batch effects were removed by Harmony", "cli", now)
	add(record.KindNote, "harmony integration converged", "cli", now)

	res, err := Search(ctx, f, nil, Query{Project: "/p", Text: "batch effects", Limit: 5, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].ID != fresh || res.Hits[1].ID != old {
		t.Fatalf("hits %+v, want M-%d (fresh note) before M-%d (year-old action)", res.Hits, fresh, old)
	}
	if res.Mode != ModeLexical || !strings.Contains(res.Note, "lexical only") {
		t.Errorf("mode %q note %q, want lexical with a note", res.Mode, res.Note)
	}
	// Without a date freshness is off: a tie, broken by id.
	if res, _ := Search(ctx, f, nil, Query{Project: "/p", Text: "batch effects", Limit: 5}); len(res.Hits) != 2 || res.Hits[0].ID != old {
		t.Errorf("undated hits %+v, want M-%d first", res.Hits, old)
	}
	f.queries = nil
	res, _ = Search(ctx, f, nil, Query{Project: "/p", Text: "batch effects", Kinds: []string{record.KindAction}, Limit: 5, Now: now})
	if len(f.queries) != 1 || !contains(f.queries[0].Kinds, record.KindAction) || len(res.Hits) != 1 || res.Hits[0].ID != old {
		t.Errorf("kinds filter: asked %+v, got %+v", f.queries, res.Hits)
	}

	// Every word common: only the newest RecentWindow memories are searched.
	f.counts = func(string) int { return TermProbe }
	f.queries = nil
	res, err = Search(ctx, f, nil, Query{Project: "/p", Text: "batch effects", Limit: 5, Now: now})
	if err != nil || len(f.queries) != 1 || f.queries[0].MinID != max(1, int64(len(f.mems))-RecentWindow+1) ||
		!strings.Contains(res.Note, "only the newest") {
		t.Errorf("common words: asked %+v, note %q, err %v", f.queries, res.Note, err)
	}
	f.counts = nil

	passed, c := add(record.KindGateFailure, "Gate DQ2 passed for claim C-12 on the CHANGE-seq table", "hook", now)
	if len(c) != 0 {
		t.Fatalf("first gate memory conflicts with %v", c)
	}
	failed, c := add(record.KindGateFailure, "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", "hook", now.Add(time.Hour))
	if len(c) != 1 || c[0] != passed {
		t.Fatalf("conflicts %v, want M-%d", c, passed)
	}
	if m := f.mems[passed-1]; !slices.Equal(m.Conflicts, []int64{failed}) || m.SupersededBy == nil || *m.SupersededBy != failed {
		t.Errorf("M-%d conflicts %v superseded by %v, want M-%d both", passed, m.Conflicts, m.SupersededBy, failed)
	}
	if again, c := add(record.KindGateFailure, "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", "hook", now); again != failed || !slices.Equal(c, []int64{passed}) {
		t.Errorf("re-add: M-%d conflicts %v, want M-%d conflicts M-%d", again, c, failed, passed)
	}
}
