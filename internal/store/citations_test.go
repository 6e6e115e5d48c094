package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/store/record"
)

func TestPaperSources(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	reviewSession(t, s, "s2", "/q", t0)
	var ids []int64
	for _, l := range []record.LiteratureSearch{
		{SessionID: "s1", ProjectPath: "/p", Query: "GUIDE-seq", Layer: "WEBSEARCH", ToolUseID: "t1", At: t0,
			KeyPapers: []string{"10.1038/nbt.3117"}, Retrieved: []string{"10.1038/nbt.3117", "PMID:25513782"}},
		{SessionID: "s1", ProjectPath: "/p", Query: "https://doi.org/10.1038/nbt.3117", Layer: "WEBFETCH", ToolUseID: "t2",
			At: t0.Add(time.Second), Retrieved: []string{"10.1038/nbt.3117"}},
		// key papers alone (a command's own text) are not retrieved
		{SessionID: "s1", ProjectPath: "/p", Query: "echo", Layer: "MANUAL", ToolUseID: "t3", At: t0.Add(2 * time.Second),
			KeyPapers: []string{"10.9999/fabricated.2021.001"}},
		// another project's retrieval does not count here
		{SessionID: "s2", ProjectPath: "/q", Query: "attention", Layer: "WEBSEARCH", ToolUseID: "t4", At: t0,
			Retrieved: []string{"arXiv:1706.03762"}},
	} {
		if err := s.Tx(ctx, func(tx *Tx) error {
			id, _, err := tx.AddLiteratureSearch(ctx, l)
			ids = append(ids, id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	var added []bool
	for _, title := range []string{"Old title", "GUIDE-seq enables genome-wide profiling"} {
		if err := s.Tx(ctx, func(tx *Tx) error {
			a, err := tx.AddPaper(ctx, record.AddedPaper{ProjectPath: "/p", PaperID: "PMID:25513782", Title: title, Note: "the PDF", At: t0.Add(time.Hour)})
			added = append(added, a)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(added, []bool{true, false}) {
		t.Errorf("AddPaper new: %v", added)
	}
	got, err := s.PaperSources(ctx, "/p", []string{"10.1038/nbt.3117", "PMID:25513782", "10.9999/fabricated.2021.001", "arXiv:1706.03762"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]record.PaperSource{
		"10.1038/nbt.3117": {
			{PaperID: "10.1038/nbt.3117", SearchID: ids[0], SessionID: "s1", Layer: "WEBSEARCH", Query: "GUIDE-seq", At: t0},
			{PaperID: "10.1038/nbt.3117", SearchID: ids[1], SessionID: "s1", Layer: "WEBFETCH", Query: "https://doi.org/10.1038/nbt.3117", At: t0.Add(time.Second)},
		},
		"PMID:25513782": {
			{PaperID: "PMID:25513782", SearchID: ids[0], SessionID: "s1", Layer: "WEBSEARCH", Query: "GUIDE-seq", At: t0},
			{PaperID: "PMID:25513782", Layer: record.PaperAdded, Title: "GUIDE-seq enables genome-wide profiling", Note: "the PDF", At: t0.Add(time.Hour)},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PaperSources:\n got %+v\nwant %+v", got, want)
	}
	r, err := s.Retrieved(ctx, "/p", []string{"10.1038/nbt.3117", "10.9999/fabricated.2021.001", "arXiv:1706.03762"})
	if err != nil || !reflect.DeepEqual(r, map[string]bool{"10.1038/nbt.3117": true}) {
		t.Errorf("Retrieved = %v, %v", r, err)
	}
	if r, err := s.Retrieved(ctx, "/p", nil); err != nil || len(r) != 0 {
		t.Errorf("Retrieved(nil) = %v, %v", r, err)
	}
}

func TestPaperSourcesManyIDs(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	reviewSession(t, s, "s1", "/p", t0)
	var many []string
	for i := 0; i < 1200; i++ {
		many = append(many, "PMID:"+string(rune('1'+i%9))+time.Duration(i).String())
	}
	if err := s.Tx(ctx, func(tx *Tx) error {
		_, _, err := tx.AddLiteratureSearch(ctx, record.LiteratureSearch{SessionID: "s1", ProjectPath: "/p", Query: "q",
			Layer: "MCP", At: t0, Retrieved: many[1100:]})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Retrieved(ctx, "/p", many)
	if err != nil || len(r) != 100 || !r[many[1199]] || r[many[0]] {
		t.Errorf("Retrieved over chunks: %d ids, %v", len(r), err)
	}
}

func TestCitationCheckCache(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, ok, err := s.CitationCheck(ctx, "10.1038/nbt.3117"); ok || err != nil {
		t.Fatalf("empty cache: %v %v", ok, err)
	}
	for _, c := range []record.CitationCheck{
		{PaperID: "10.1038/nbt.3117", Found: false, Source: "crossref", At: t0},
		{PaperID: "10.1038/nbt.3117", Found: true, Title: "GUIDE-seq", Source: "crossref", At: t0.Add(time.Hour)},
	} {
		if err := s.Tx(ctx, func(tx *Tx) error { return tx.PutCitationCheck(ctx, c) }); err != nil {
			t.Fatal(err)
		}
	}
	c, ok, err := s.CitationCheck(ctx, "10.1038/nbt.3117")
	want := record.CitationCheck{PaperID: "10.1038/nbt.3117", Found: true, Title: "GUIDE-seq", Source: "crossref", At: t0.Add(time.Hour)}
	if !ok || err != nil || c != want {
		t.Errorf("CitationCheck = %+v %v %v", c, ok, err)
	}
}

// TestLiteraturePapersBackfill: the searches recorded before the citation
// audit give their key papers as retrieved, but a MANUAL search's (ids a
// command may itself have written) do not.
func TestLiteraturePapersBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	reviewSession(t, s, "s1", "/p", t0)
	for _, l := range []record.LiteratureSearch{
		{SessionID: "s1", ProjectPath: "/p", Query: "a", Layer: "WEBSEARCH", At: t0, KeyPapers: []string{"10.1038/nbt.3117", "PMID:25513782"}},
		{SessionID: "s1", ProjectPath: "/p", Query: "b", Layer: "MCP", At: t0, KeyPapers: []string{"arXiv:1706.03762"}},
		{SessionID: "s1", ProjectPath: "/p", Query: "c", Layer: "MANUAL", At: t0, KeyPapers: []string{"10.9999/fabricated.2021.001"}},
		{SessionID: "s1", ProjectPath: "/p", Query: "d", Layer: "WEBFETCH", At: t0},
	} {
		if err := s.Tx(ctx, func(tx *Tx) error { _, _, err := tx.AddLiteratureSearch(ctx, l); return err }); err != nil {
			t.Fatal(err)
		}
	}
	version := 0
	ms, _ := db.Migrations()
	for _, m := range ms {
		if m.Name == "citations" {
			version = m.Version
		}
	}
	for _, q := range []string{"DROP TABLE literature_papers", fmt.Sprintf("PRAGMA user_version = %d", version-1)} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()
	if s, err = Open(ctx, path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Retrieved(ctx, "/p", []string{"10.1038/nbt.3117", "PMID:25513782", "arXiv:1706.03762", "10.9999/fabricated.2021.001"})
	want := map[string]bool{"10.1038/nbt.3117": true, "PMID:25513782": true, "arXiv:1706.03762": true}
	if err != nil || !reflect.DeepEqual(r, want) {
		t.Errorf("backfilled %v (%v), want %v", r, err, want)
	}
}
