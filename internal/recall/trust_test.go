package recall

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// The conflict of issue 34: a paper with a DOI says the guide length is
// 20 nt; model output, later, says 17 nt.
const (
	paperText = "SpCas9 guide length is 20 nt"
	modelText = "SpCas9 guide length is 17 nt"
	paperDOI  = "doi:10.1038/nbt.3437"
)

var modelAt = time.Date(2026, 11, 30, 15, 0, 0, 0, time.UTC)

func addSourced(t *testing.T, st *store.Store, text, sourceType, ref string, at time.Time) Added {
	t.Helper()
	a, err := AddMemory(context.Background(), st, nil, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: text,
		Ref: ref, Source: "cli", SourceType: sourceType, At: at})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestTrustSettlesConflict is the acceptance scenario: the paper's memory
// stays current and ranks first, with the dispute noted; the model's is
// recorded as disputing it, not superseding it, and ranks below it even
// for a query that quotes its own value.
func TestTrustSettlesConflict(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	paper := addSourced(t, st, paperText, record.SourcePaper, paperDOI, t0)
	model := addSourced(t, st, modelText, record.SourceModel, "", modelAt)
	want := Added{ID: model.ID, New: true, Conflicts: []int64{paper.ID}, Disputes: []int64{paper.ID}}
	if !reflect.DeepEqual(model, want) {
		t.Fatalf("adding the model output = %+v, want %+v", model, want)
	}
	for _, query := range []string{"guide length", "guide length 17 nt"} {
		res, err := Search(ctx, st, nil, Query{Project: "/p", Text: query, Limit: 5, Now: modelAt})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 2 {
			t.Fatalf("%q: %d hits, want 2", query, len(res.Hits))
		}
		p, m := res.Hits[0], res.Hits[1]
		wantDispute := &Dispute{ID: model.ID, Trust: 0.35, CreatedAt: modelAt, Text: modelText}
		if p.ID != paper.ID || p.SupersededBy != nil || p.Disputes != nil || !reflect.DeepEqual(p.DisputedBy, []int64{model.ID}) ||
			!reflect.DeepEqual(p.Dispute, wantDispute) {
			t.Errorf("%q: first hit %+v, want the paper's M-%d current, disputed by M-%d", query, p, paper.ID, model.ID)
		}
		if m.ID != model.ID || m.SupersededBy != nil || m.Disputes == nil || *m.Disputes != paper.ID || m.Dispute != nil {
			t.Errorf("%q: second hit %+v, want the model's M-%d disputing M-%d", query, m, model.ID, paper.ID)
		}
	}
	for id, state := range map[int64]string{paper.ID: record.MemoryDisputed, model.ID: record.MemoryDisputing} {
		if r, err := st.Memory(ctx, id); err != nil || r.State() != state {
			t.Errorf("M-%d state %q (%v), want %q", id, r.State(), err, state)
		}
	}
}

// TestTrustOrder: of two that contradict, equal trust lets the newer
// supersede (as before trust counted), a person's note supersedes a
// paper, and a paper without an identifier is below one with it.
func TestTrustOrder(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		older, newer         string // source types
		olderRef             string
		supersedes, disputes bool
	}{
		{"equal trust: the newer supersedes", record.SourceModel, record.SourceModel, "", true, false},
		{"a person's note supersedes a paper", record.SourcePaper, record.SourcePerson, paperDOI, true, false},
		{"a paper disputes an older person's note", record.SourcePerson, record.SourcePaper, "", false, true},
		{"model output disputes a paper", record.SourcePaper, record.SourceModel, paperDOI, false, true},
		{"a paper with a DOI supersedes one without", record.SourcePaper, record.SourcePaper, "", true, false},
		{"a blog disputes a paper without an id", record.SourcePaper, record.SourceBlog, "", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := openStore(t)
			old := addSourced(t, st, paperText, tt.older, tt.olderRef, t0)
			newRef := ""
			if tt.older == record.SourcePaper && tt.newer == record.SourcePaper {
				newRef = "PMID: 26780180"
			}
			a := addSourced(t, st, modelText, tt.newer, newRef, t0.Add(time.Hour))
			if len(a.Conflicts) != 1 || (len(a.Supersedes) == 1) != tt.supersedes || (len(a.Disputes) == 1) != tt.disputes {
				t.Errorf("added %+v: want supersedes %v, disputes %v", a, tt.supersedes, tt.disputes)
			}
			r, err := st.Memory(context.Background(), old.ID)
			if err != nil {
				t.Fatal(err)
			}
			if (r.SupersededBy != nil) != tt.supersedes || (len(r.DisputedBy) == 1) != tt.disputes {
				t.Errorf("older memory %+v: want superseded %v, disputed %v", r, tt.supersedes, tt.disputes)
			}
		})
	}
}

// TestImportOfOlderBetterSourcedFact: an imported paper dated before a
// model memory already stored is not superseded by it: it stays current,
// and the stored model output now disputes it.
func TestImportOfOlderBetterSourcedFact(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	model := addSourced(t, st, modelText, record.SourceModel, "", modelAt)
	in := `{"text": "` + paperText + `", "source_type": "paper", "ref": "` + paperDOI + `", "created_at": "2026-10-01T09:00:00Z"}` + "\n"
	rep, err := Import(ctx, st, strings.NewReader(in), "/p", modelAt.Add(time.Hour), nil)
	if err != nil || rep.Added != 1 || rep.Conflicts != 1 {
		t.Fatalf("import %+v %v", rep, err)
	}
	m, err := st.Memory(ctx, model.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.State() != record.MemoryDisputing || m.Disputes == nil {
		t.Fatalf("model memory %+v: want it disputing the imported paper", m)
	}
	p, err := st.Memory(ctx, *m.Disputes)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != paperText || p.Trust != 0.85 || p.SupersededBy != nil || !reflect.DeepEqual(p.DisputedBy, []int64{model.ID}) {
		t.Errorf("imported paper %+v: want it current at trust 0.85, disputed by M-%d", p, model.ID)
	}
}

// TestPersonRestatesModelOutput: a person who adds the text model output
// recorded raises it to a person's trust, and it then supersedes the paper
// it disputed.
func TestPersonRestatesModelOutput(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	paper := addSourced(t, st, paperText, record.SourcePaper, paperDOI, t0)
	model := addSourced(t, st, modelText, record.SourceModel, "", modelAt)
	again := addSourced(t, st, modelText, record.SourcePerson, "", modelAt.Add(time.Hour))
	want := Added{ID: model.ID, Conflicts: []int64{paper.ID}, Raised: true}
	if !reflect.DeepEqual(again, want) {
		t.Fatalf("restated = %+v, want %+v", again, want)
	}
	p, err := st.Memory(ctx, paper.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.State() != record.MemorySuperseded || *p.SupersededBy != model.ID {
		t.Errorf("paper %+v: want it superseded by M-%d", p, model.ID)
	}
	// Restating with less trust changes nothing.
	if a := addSourced(t, st, modelText, record.SourceBlog, "", modelAt.Add(2*time.Hour)); a.Raised {
		t.Errorf("a blog's restatement raised trust: %+v", a)
	}
	if m, _ := st.Memory(ctx, model.ID); m.Trust != 1 {
		t.Errorf("trust %v, want 1", m.Trust)
	}
}

// TestSourced: a paper counts as one only with an id anyone can look it up
// by, in its text or its ref, as internal/citation reads ids; other source
// types, and a trust given, are left as they are.
func TestSourced(t *testing.T) {
	tests := []struct {
		name string
		m    record.NewMemory
		want float64
	}{
		{"a paper without an id", record.NewMemory{Source: "cli", SourceType: record.SourcePaper, Text: "Tsai et al. say 20 nt", Ref: "GUIDE-seq paper"}, record.TrustPaperNoID},
		{"a DOI in its ref", record.NewMemory{Source: "cli", SourceType: record.SourcePaper, Ref: "https://doi.org/10.1038/nbt.3117"}, 0.85},
		{"a PMID in its text", record.NewMemory{Source: "cli", SourceType: record.SourcePaper, Text: "20 nt guides (PMID: 25513782)"}, 0.85},
		{"an ISBN in its ref", record.NewMemory{Source: "cli", SourceType: record.SourcePaper, Ref: "ISBN 978-0-262-03384-8"}, 0.85},
		{"a trust given", record.NewMemory{Source: "cli", SourceType: record.SourcePaper, Trust: record.Trust(0.9)}, 0.9},
		{"a blog", record.NewMemory{Source: "cli", SourceType: record.SourceBlog}, 0.5},
	}
	for _, tt := range tests {
		if got := record.TrustOf(Sourced(tt.m)); got != tt.want {
			t.Errorf("%s: trust %v, want %v", tt.name, got, tt.want)
		}
	}
}
