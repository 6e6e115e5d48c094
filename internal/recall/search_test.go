package recall

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

type mem struct {
	project, kind, text string
	trust               float64
	at                  time.Time
}

// seed stores memories directly (no conflict detection) and returns ids.
func seed(t *testing.T, st *store.Store, ms ...mem) []int64 {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	err := st.Tx(ctx, func(tx *store.Tx) error {
		for _, m := range ms {
			if m.project == "" {
				m.project = "/p"
			}
			id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: m.project, Kind: m.kind, Text: m.text,
				Ref: fmt.Sprintf("ref-%d", len(ids)+1), Trust: trustOrDefault(m.trust), At: m.at})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func hitIDs(hs []Hit) []int64 {
	out := []int64{}
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

func TestSearchScopeKindsForgotten(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	ids := seed(t, st,
		mem{kind: record.KindDecision, text: "Use Harmony for batch integration", at: t0},
		mem{kind: record.KindNote, text: "Harmony theta 3 fixed the batch separation", at: t0},
		mem{project: "/other", kind: record.KindDecision, text: "Harmony batch integration in the other lab", at: t0},
		mem{kind: record.KindNote, text: "batch three is forgotten here", at: t0},
	)
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.ForgetMemory(ctx, ids[3]) }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		q     Query
		want  []int64
		notes string
	}{
		{"project only, forgotten left out", Query{Project: "/p", Text: "batch harmony"}, []int64{ids[0], ids[1]}, "no vector search configured: lexical only"},
		{"kinds filter", Query{Project: "/p", Text: "batch harmony", Kinds: []string{record.KindNote}}, []int64{ids[1]}, "no vector search configured: lexical only"},
		{"other project", Query{Project: "/other", Text: "harmony"}, []int64{ids[2]}, "no vector search configured: lexical only"},
		{"limit", Query{Project: "/p", Text: "batch harmony", Limit: 1}, []int64{ids[0]}, "no vector search configured: lexical only"},
		{"stop words only", Query{Project: "/p", Text: "what did we do?"}, []int64{}, "no vector search configured: lexical only"},
	}
	for _, tt := range tests {
		res, err := Search(ctx, st, nil, tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := hitIDs(res.Hits); !reflect.DeepEqual(got, tt.want) || res.Mode != ModeLexical || res.Note != tt.notes {
			t.Errorf("%s: hits %v mode %s note %q, want %v lexical %q", tt.name, got, res.Mode, res.Note, tt.want, tt.notes)
		}
	}
	if _, err := Search(ctx, st, nil, Query{Text: "x"}); fault.KindOf(err) != fault.Invalid {
		t.Errorf("no project: %v, want Invalid", err)
	}
}

func TestSearchNotesWhenVectorsFail(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	ids := seed(t, st, mem{kind: record.KindNote, text: "the doublet rate tracks loading", at: t0})
	tests := []struct {
		name string
		vec  Vectors
		text string
		mode string
		note string
	}{
		{"worker down", fixedVectors{err: fmt.Errorf("dial worker.sock: %w", ErrNoWorker)}, "doublet", ModeLexical, "worker not running: lexical only"},
		{"no model", fixedVectors{err: ErrNoModel}, "doublet", ModeLexical, "no embedding model (run `vibe model pull`): lexical only"},
		{"late", fixedVectors{err: fmt.Errorf("knn: %w", context.DeadlineExceeded)}, "doublet", ModeLexical, "worker did not answer in time: lexical only"},
		{"other failure", fixedVectors{err: errors.New("bad frame")}, "doublet", ModeLexical, "vector search failed (bad frame): lexical only"},
		{"empty query", fixedVectors{}, "   ", ModeLexical, "the query is empty: nothing to search"},
		{"vectors alone", fixedVectors{hits: []VectorHit{{ID: ids[0], Distance: 0.5}}}, "what about it?", ModeHybrid, "the query has no searchable words: vector ranks only"},
		// One vector hit has no gap below it to stand out of.
		{"one vector hit", fixedVectors{hits: []VectorHit{{ID: ids[0], Distance: 0.5}}}, "doublet", ModeHybrid,
			"no vector hit stands out of the model's own similarities: lexical order kept"},
	}
	for _, tt := range tests {
		res, err := Search(ctx, st, tt.vec, Query{Project: "/p", Text: tt.text})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if res.Mode != tt.mode || res.Note != tt.note {
			t.Errorf("%s: mode %s note %q, want %s %q", tt.name, res.Mode, res.Note, tt.mode, tt.note)
		}
	}
}

func TestSearchFusesVectorHits(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var ms []mem
	for i := 0; i < 2000; i++ {
		ms = append(ms, mem{kind: record.KindNote, text: fmt.Sprintf("filler note %d about pipettes and reagents", i), at: t0})
	}
	ms = append(ms,
		mem{kind: record.KindDecision, text: "cells below 500 genes are filtered out", at: t0},         // a: lexical and vector
		mem{kind: record.KindDecision, text: "low quality barcodes removed before clustering", at: t0}, // b: vector only (paraphrase)
		mem{kind: record.KindNote, text: "genes per cell floor discussed with the PI", at: t0},         // c: lexical and vector
	)
	ids := seed(t, st, ms...)
	a, b, c := ids[2000], ids[2001], ids[2002]
	// A model that puts a and the paraphrase b far ahead of 48 fillers
	// spaced evenly: the two stand out (standouts), go first in BM25's
	// order (a, which BM25 ranks second) and then the model's (b, which
	// BM25 did not match), ahead of c, BM25's first.
	tail := func(head ...VectorHit) fixedVectors {
		f := fixedVectors{hits: head}
		for i := 0; i < 48; i++ {
			f.hits = append(f.hits, VectorHit{ID: ids[i], Distance: 1 + 0.002*float64(i)})
		}
		return f
	}
	vec := tail(VectorHit{ID: a, Distance: 0.3}, VectorHit{ID: b, Distance: 0.35})
	lex, err := Search(ctx, st, nil, Query{Project: "/p", Text: "what is the genes per cell cutoff", Limit: Candidates})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Search(ctx, st, vec, Query{Project: "/p", Text: "what is the genes per cell cutoff", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ID      int64
		Sources []string
		Score   float64
	}
	var g []got
	for _, h := range res.Hits {
		g = append(g, got{h.ID, h.Sources, h.Score})
	}
	want := []got{
		{a, []string{SourceFTS, SourceVector}, 1 + rrf(2)},
		{b, []string{SourceVector}, 1 + rrf(len(lex.Hits)+1)}, // after BM25's candidates
		{c, []string{SourceFTS}, rrf(1)},
	}
	if !reflect.DeepEqual(g, want) || res.Mode != ModeHybrid || res.Standouts != 2 || res.Note != "" {
		t.Errorf("hits %+v mode %s standouts %d note %q, want %+v hybrid 2", g, res.Mode, res.Standouts, res.Note, want)
	}
	// Only the group's memories BM25 did not match are read: b, not the
	// 48 fillers; and one forgotten meanwhile (by another process, while
	// the worker's index held its vector) leaves the group.
	rec := &recordingReads{Reads: st}
	if _, err := Search(ctx, rec, vec, Query{Project: "/p", Text: "what is the genes per cell cutoff", Limit: 3}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rec.byID, []int64{b}) {
		t.Errorf("memories read by id: %v, want only %d", rec.byID, b)
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.ForgetMemory(ctx, b) }); err != nil {
		t.Fatal(err)
	}
	res, _ = Search(ctx, st, vec, Query{Project: "/p", Text: "what is the genes per cell cutoff", Limit: 3})
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, []int64{a, c}) || res.Standouts != 1 {
		t.Errorf("with b forgotten: %v standouts %d, want %v and 1", got, res.Standouts, []int64{a, c})
	}
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.RememberMemory(ctx, b, t0) }); err != nil {
		t.Fatal(err)
	}
	// The same neighbours at even spacing stand out of nothing: BM25's
	// order stands, and the vector-only b is not added.
	vec = fixedVectors{}
	for i, id := range []int64{a, b, c} {
		vec.hits = append(vec.hits, VectorHit{ID: id, Distance: 1 + 0.002*float64(i)})
	}
	vec.hits = append(vec.hits, tail().hits...)
	for i := range vec.hits[3:] {
		vec.hits[3+i].Distance += 0.006
	}
	res, _ = Search(ctx, st, vec, Query{Project: "/p", Text: "what is the genes per cell cutoff", Limit: 3})
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, []int64{c, a}) || res.Standouts != 0 ||
		res.Note != "no vector hit stands out of the model's own similarities: lexical order kept" {
		t.Errorf("smooth vectors: %v standouts %d note %q, want %v and the lexical order kept", got, res.Standouts, res.Note, []int64{c, a})
	}
	// Hits in vectors that are of another project or unknown are dropped.
	other := seed(t, st, mem{project: "/x", kind: record.KindNote, text: "genes per cell elsewhere", at: t0})
	vec = fixedVectors{hits: []VectorHit{{ID: other[0], Distance: 0.1}, {ID: 999999, Distance: 0.2}}}
	res, _ = Search(ctx, st, vec, Query{Project: "/p", Text: "genes per cell", Limit: 5})
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, []int64{c, a}) {
		t.Errorf("foreign vector hits: %v, want %v", got, []int64{c, a})
	}
}

// TestSearchFallbackWithoutWords: a query none of whose words a memory
// holds recalls nothing through the fallback embedder's evenly spaced
// neighbours (it hashes words, so they are collisions), where a model's
// nearest neighbours are still the order.
func TestSearchFallbackWithoutWords(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	ids := seed(t, st,
		mem{kind: record.KindNote, text: "GUIDE-seq off-target rates rise with mismatch count", at: t0},
		mem{kind: record.KindDecision, text: "Spearman rho, because mismatch counts are ordinal", at: t0},
		mem{kind: record.KindNote, text: "the cluster queue is slow on Fridays", at: t0})
	hits := func(model string) fixedVectors {
		var f fixedVectors
		for i, id := range ids {
			f.hits = append(f.hits, VectorHit{ID: id, Distance: 1.3 + 0.01*float64(i), Model: model})
		}
		return f
	}
	res, err := Search(ctx, st, hits(embed.FallbackModel), Query{Project: "/p", Text: "zzzqqq telescope", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || !res.Fallback || !strings.HasSuffix(res.Note, "no vector hit stands out of the model's own similarities: nothing recalled") {
		t.Errorf("fallback: hits %v fallback %v note %q, want none and the note", hitIDs(res.Hits), res.Fallback, res.Note)
	}
	res, err = Search(ctx, st, hits("a-model"), Query{Project: "/p", Text: "zzzqqq telescope", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, ids) {
		t.Errorf("a model: hits %v, want its neighbours %v", got, ids)
	}
}

func TestSearchFreshnessTrustTies(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	now := t0.Add(365 * 24 * time.Hour)
	ids := seed(t, st,
		mem{kind: record.KindDecision, text: "freeze the detector calibration alpha", at: t0},                              // old
		mem{kind: record.KindDecision, text: "freeze the detector calibration gamma", at: now.Add(-time.Hour)},             // new
		mem{kind: record.KindDecision, text: "freeze the detector calibration delta", trust: 0.2, at: now.Add(-time.Hour)}, // new, untrusted
	)
	res, _ := Search(ctx, st, nil, Query{Project: "/p", Text: "detector calibration", Now: now})
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, []int64{ids[1], ids[0], ids[2]}) {
		t.Errorf("with decay: %v, want new, old, untrusted %v", got, []int64{ids[1], ids[0], ids[2]})
	}
	// Without a clock the three are tied on relevance except trust; ties
	// go by id.
	res, _ = Search(ctx, st, nil, Query{Project: "/p", Text: "detector calibration"})
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, []int64{ids[0], ids[1], ids[2]}) {
		t.Errorf("no clock: %v, want %v", got, []int64{ids[0], ids[1], ids[2]})
	}
	// An old exact match still beats a new weak one.
	exact := seed(t, st,
		mem{kind: record.KindNote, text: "ring resonator quality factor thermal drift measured", at: t0},
		mem{kind: record.KindNote, text: "thermal paste ordered", at: now},
	)
	res, _ = Search(ctx, st, nil, Query{Project: "/p", Text: "ring resonator thermal drift quality", Now: now})
	if got := hitIDs(res.Hits); len(got) < 2 || got[0] != exact[0] {
		t.Errorf("old exact match: %v, want %d first", got, exact[0])
	}
}

func TestSearchCollapsesNearDuplicates(t *testing.T) {
	st := openStore(t)
	ids := seed(t, st,
		mem{kind: record.KindNarrative, text: "Session summary: loaded cohort 2, recounted with Cell Ranger 8.", at: t0},
		mem{kind: record.KindNote, text: "session summary - loaded cohort 2; recounted with cell ranger 8", at: t0},
		mem{kind: record.KindNote, text: "cohort 2 has 14 patients", at: t0},
	)
	res, _ := Search(context.Background(), st, nil, Query{Project: "/p", Text: "cohort 2 recounted cell ranger"})
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, []int64{ids[0], ids[2]}) {
		t.Errorf("hits %v, want %v", got, []int64{ids[0], ids[2]})
	}
}

func TestSearchIsDeterministic(t *testing.T) {
	st := openStore(t)
	var ms []mem
	for i := 0; i < 30; i++ {
		ms = append(ms, mem{kind: record.KindNote, text: fmt.Sprintf("gate DQ%d failed on batch %d", i%3, i), at: t0})
	}
	seed(t, st, ms...)
	first, _ := Search(context.Background(), st, nil, Query{Project: "/p", Text: "gate failed batch", Limit: 20})
	for i := 0; i < 5; i++ {
		again, _ := Search(context.Background(), st, nil, Query{Project: "/p", Text: "gate failed batch", Limit: 20})
		if !reflect.DeepEqual(hitIDs(first.Hits), hitIDs(again.Hits)) {
			t.Fatalf("run %d: %v, first %v", i, hitIDs(again.Hits), hitIDs(first.Hits))
		}
	}
	for i := 1; i < len(first.Hits); i++ {
		a, b := first.Hits[i-1], first.Hits[i]
		if a.Score < b.Score || (a.Score == b.Score && a.ID > b.ID) {
			t.Errorf("hits %d and %d out of order: %v/%d then %v/%d", i-1, i, a.Score, a.ID, b.Score, b.ID)
		}
	}
}

// trustOrDefault keeps these tests' convention: 0 means "the default".
func trustOrDefault(t float64) *float64 {
	if t == 0 {
		return nil
	}
	return record.Trust(t)
}

// TestSearchFilters covers the filters of `vibe recall`: kinds (several),
// since, session and all projects, each alone and with vectors, whose
// hits outside the filters are dropped.
func TestSearchFilters(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var ids []int64
	for _, m := range []record.NewMemory{
		{ProjectPath: "/p", SessionID: "s1", Kind: record.KindFailure, Text: "Harmony crashed on the tiny batch", At: t0},
		{ProjectPath: "/p", SessionID: "s1", Kind: record.KindPattern, Text: "Harmony batch keys drift every release", At: t0.Add(24 * time.Hour)},
		{ProjectPath: "/p", SessionID: "s2", Kind: record.KindInsight, Text: "Harmony batch correction hides the donor effect", At: t0.Add(10 * 24 * time.Hour)},
		{ProjectPath: "/q", SessionID: "s3", Kind: record.KindHypothesis, Text: "Harmony batch theta may explain the split", At: t0.Add(10 * 24 * time.Hour)},
	} {
		if err := st.Tx(ctx, func(tx *store.Tx) error {
			id, _, err := tx.AddMemory(ctx, m)
			ids = append(ids, id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	now := t0.Add(11 * 24 * time.Hour)
	tests := []struct {
		name string
		q    Query
		want []int64
	}{
		{"all of the project", Query{Project: "/p"}, []int64{ids[0], ids[1], ids[2]}},
		{"two kinds", Query{Project: "/p", Kinds: []string{record.KindFailure, record.KindInsight}}, []int64{ids[0], ids[2]}},
		{"since", Query{Project: "/p", Since: t0.Add(12 * time.Hour)}, []int64{ids[1], ids[2]}},
		{"session", Query{Project: "/p", Session: "s1"}, []int64{ids[0], ids[1]}},
		{"session and kind", Query{Project: "/p", Session: "s1", Kinds: []string{record.KindFailure}}, []int64{ids[0]}},
		{"all projects", Query{AllProjects: true}, []int64{ids[0], ids[1], ids[2], ids[3]}},
		{"all projects since", Query{AllProjects: true, Since: t0.Add(5 * 24 * time.Hour)}, []int64{ids[2], ids[3]}},
	}
	for _, tt := range tests {
		tt.q.Text, tt.q.Now = "harmony batch", now
		res, err := Search(ctx, st, nil, tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		// The filters decide which memories, not their order: compare sets.
		if got := slices.Sorted(slices.Values(hitIDs(res.Hits))); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: hits %v, want %v", tt.name, got, tt.want)
		}
		if tt.q.AllProjects && res.Note != "all projects: lexical only (vectors are kept per project)" {
			t.Errorf("%s: note %q", tt.name, res.Note)
		}
	}
	// Vector hits outside the filters are dropped too.
	vec := fixedVectors{hits: []VectorHit{{ID: ids[0], Distance: 0.2}, {ID: ids[1], Distance: 0.3}, {ID: ids[2], Distance: 0.4}}}
	res, err := Search(ctx, st, vec, Query{Project: "/p", Text: "what went wrong?", Session: "s2", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(res.Hits); !reflect.DeepEqual(got, []int64{ids[2]}) {
		t.Errorf("vector hits with --session s2: %v, want [%d]", got, ids[2])
	}
	// All projects never asks the vectors (they are per project).
	res, err = Search(ctx, st, fixedVectors{err: errors.New("must not be called")}, Query{AllProjects: true, Text: "harmony", Now: now})
	if err != nil || len(res.Hits) != 4 || res.Mode != ModeLexical {
		t.Errorf("all projects with vectors: %+v %v", res, err)
	}
}

// recordingReads records the ids MemoriesByID is asked for.
type recordingReads struct {
	Reads
	byID []int64
}

func (r *recordingReads) MemoriesByID(ctx context.Context, project string, ids []int64) ([]record.MemoryRecord, error) {
	r.byID = append(r.byID, ids...)
	return r.Reads.MemoriesByID(ctx, project, ids)
}
