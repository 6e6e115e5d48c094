package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

func TestLiteratureSearchesCountForL1(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	reviewSession(t, s, "s2", "/p", t0)
	spine := func(i int) {
		if _, err := s.DB().Exec(`INSERT INTO spine_entries (session_id, project_path, ts, action_type, tool_name)
VALUES ('s1', '/p', ?, 'OTHER', 'Bash')`, t0.Add(time.Duration(i)*time.Second).UnixMilli()); err != nil {
			t.Fatal(err)
		}
	}
	add := func(l record.LiteratureSearch) (int64, bool) {
		var id int64
		var added bool
		if err := s.Tx(ctx, func(tx *Tx) error {
			var err error
			id, added, err = tx.AddLiteratureSearch(ctx, l)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return id, added
	}
	check := func(label string, wantHas bool, wantSince int) {
		t.Helper()
		has, err := s.HasLiteratureSearch(ctx, "s1")
		if err != nil || has != wantHas {
			t.Errorf("%s: has %v (%v), want %v", label, has, err, wantHas)
		}
		n, err := s.ActionsSinceLiterature(ctx, "s1")
		if err != nil || n != wantSince {
			t.Errorf("%s: since %d (%v), want %d", label, n, err, wantSince)
		}
		s.Tx(ctx, func(tx *Tx) error {
			h2, _ := tx.HasLiteratureSearch(ctx, "s1")
			n2, _ := tx.ActionsSinceLiterature(ctx, "s1")
			if h2 != wantHas || n2 != wantSince {
				t.Errorf("%s: in tx has %v since %d", label, h2, n2)
			}
			return nil
		})
	}
	for i := 0; i < 4; i++ {
		spine(i)
	}
	check("no search", false, 4)

	// A search in another session does not count for s1.
	add(record.LiteratureSearch{SessionID: "s2", ProjectPath: "/p", Query: "x", Layer: "WEBSEARCH", At: t0.Add(10 * time.Second)})
	// An uncounted web search neither satisfies L-1 nor resets the drought.
	add(record.LiteratureSearch{SessionID: "s1", ProjectPath: "/p", Query: "pandas dtype error", Layer: "WEBSEARCH",
		GateContext: record.LiteratureUncounted, ToolUseID: "t0", At: t0.Add(2 * time.Second)})
	check("uncounted", false, 4)

	five := 5
	l := record.LiteratureSearch{SessionID: "s1", ProjectPath: "/p", Query: "conformal prediction off-target", Layer: "WEBSEARCH",
		Sources: []string{"pubmed", "nature.com"}, KeyPapers: []string{"10.1038/nbt.3117"}, ResultsCount: &five,
		ToolUseID: "t1", At: t0.Add(2500 * time.Millisecond)}
	id, added := add(l)
	if !added {
		t.Fatal("first add not added")
	}
	if id2, again := add(l); again || id2 != id {
		t.Errorf("re-run added %v id %d, want existing %d", again, id2, id)
	}
	check("after search", true, 1)
	spine(5)
	check("one more action", true, 2)

	got, err := s.LiteratureSearches(ctx, "/p", "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("listed %d", len(got))
	}
	want := record.LiteratureSearch{ID: id, SessionID: "s1", ProjectPath: "/p", Query: "conformal prediction off-target",
		Sources: []string{"pubmed", "nature.com"}, KeyPapers: []string{"10.1038/nbt.3117"}, ResultsCount: &five,
		Layer: "WEBSEARCH", ToolUseID: "t1", At: t0.Add(2500 * time.Millisecond)}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("newest:\n got %+v\nwant %+v", got[0], want)
	}
	if got[1].GateContext != record.LiteratureUncounted || len(got[1].Sources) != 0 || len(got[1].KeyPapers) != 0 || got[1].ResultsCount != nil {
		t.Errorf("uncounted row %+v", got[1])
	}
	all, _ := s.LiteratureSearches(ctx, "", "", 0)
	if len(all) != 3 {
		t.Errorf("all projects: %d rows", len(all))
	}
}
