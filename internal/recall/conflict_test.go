package recall

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/store"
)

var t0 = time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "vibe.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestOpposite(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"Gate DQ2 passed for C-12", "Gate DQ2 failed for C-12", true},
		{"The effect is significant at p < 0.01", "The effect is not significant at p < 0.01", true},
		{"The effect is significant", "The effect is insignificant", true},
		{"The effect is significant", "The effect is non-significant", true},
		{"Expression increased after treatment", "Expression decreased after treatment", true},
		{"C-7 VERIFIED by R2", "C-7 KILLED by R2", true},
		{"Hypothesis supported by the replication", "Hypothesis refuted by the replication", true},
		{"No off-target activity at site 4", "Off-target activity detected at site 4", true},
		{"The model didn't converge", "The model converged", true},
		// Agreement in other words.
		{"The gate did not pass", "The gate failed", false},
		{"Expression did not increase", "Expression decreased", false},
		{"Gate DQ2 passed for C-12", "Gate DQ2 passed for C-12 again", false},
		{"no effect on AUROC", "never any effect on AUROC", false},
		// Two oppositions are still one contradiction of outcome.
		{"Expression increased and the gate passed", "Expression decreased and the gate failed", true},
		// Numbers alone are not read.
		{"AUROC was 0.91", "AUROC was 0.62", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := Opposite(tt.a, tt.b); got != tt.want {
			t.Errorf("Opposite(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Opposite(tt.b, tt.a); got != tt.want {
			t.Errorf("Opposite(%q, %q) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestSimilarAndContradicts(t *testing.T) {
	tests := []struct {
		a, b        string
		similar     float64
		contradicts bool
	}{
		// {gate, dq2, c, 12}: "c" is one rune, so {gate, dq2, 12} both sides.
		{"Gate DQ2 passed for C-12", "Gate DQ2 failed for C-12", 1, true},
		{"Gate DQ2 passed for C-12", "Gate DQ3 failed for claim C-40 in the photonics project", 1.0 / 8, false},
		{"batch effect is significant in cohort 2", "batch effect is not significant in cohort 2", 1, true},
		{"batch effect is significant in cohort 2", "batch effect is significant in cohort 2", 1, false},
	}
	for _, tt := range tests {
		if got := Similar(tt.a, tt.b); got != tt.similar {
			t.Errorf("Similar(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.similar)
		}
		if got := Contradicts(tt.a, tt.b); got != tt.contradicts {
			t.Errorf("Contradicts(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.contradicts)
		}
	}
}

func add(t *testing.T, st *store.Store, vec Vectors, kind, text string, at time.Time) (int64, *int64) {
	t.Helper()
	id, c, err := AddMemory(context.Background(), st, vec, record.NewMemory{ProjectPath: "/p", Kind: kind, Text: text, Source: "cli", At: at})
	if err != nil {
		t.Fatal(err)
	}
	return id, c
}

func TestAddMemoryRecordsConflictsBothWays(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	passed, c := add(t, st, nil, record.KindGateFailure, "Gate DQ2 passed for claim C-12 on the CHANGE-seq table", t0)
	if c != nil {
		t.Fatalf("first memory conflicts with %d", *c)
	}
	other, c := add(t, st, nil, record.KindNote, "Harmony integration uses day as the batch key", t0)
	if c != nil {
		t.Fatalf("unrelated memory conflicts with %d", *c)
	}
	failed, c := add(t, st, nil, record.KindGateFailure, "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", t0.Add(time.Hour))
	if c == nil || *c != passed {
		t.Fatalf("conflict = %v, want M-%d", c, passed)
	}
	for id, want := range map[int64]*int64{passed: &failed, failed: &passed, other: nil} {
		m, err := st.Memory(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == nil && m.ConflictsWith != nil:
			t.Errorf("M-%d conflicts with %d, want none", id, *m.ConflictsWith)
		case want != nil && (m.ConflictsWith == nil || *m.ConflictsWith != *want):
			t.Errorf("M-%d conflicts with %v, want %d", id, m.ConflictsWith, *want)
		}
	}
	// A recall hit shows the conflict.
	res, err := Search(ctx, st, nil, Query{Project: "/p", Text: "DQ2 gate C-12", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].Conflict == nil || res.Hits[1].Conflict == nil {
		t.Fatalf("hits %+v, want both flagged", res.Hits)
	}
	// Adding the same text again is the same memory with its conflict.
	again, c := add(t, st, nil, record.KindGateFailure, "Gate DQ2 failed for claim C-12 on the CHANGE-seq table", t0.Add(2*time.Hour))
	if again != failed || c == nil || *c != passed {
		t.Errorf("re-add = M-%d conflict %v, want M-%d conflict %d", again, c, failed, passed)
	}
}

func TestAddMemoryByVectors(t *testing.T) {
	st := openStore(t)
	first, _ := add(t, st, nil, record.KindClaimEvent, "C-3 supported: annealing raises intrinsic Q", t0)
	// Words differ too much for Jaccard, but the vectors say they are near.
	near := fixedVectors{hits: []VectorHit{{ID: first, Distance: 0.4}}} // cosine 0.92
	_, c := add(t, st, near, record.KindClaimEvent, "C-3 refuted after re-measuring the rings with per-ring coupling", t0.Add(time.Hour))
	if c == nil || *c != first {
		t.Errorf("conflict = %v, want M-%d (cosine 0.92)", c, first)
	}
	far := fixedVectors{hits: []VectorHit{{ID: first, Distance: 0.8}}} // cosine 0.68
	_, c = add(t, st, far, record.KindClaimEvent, "C-3 refuted once more, this time on run 3 dies", t0.Add(2*time.Hour))
	if c != nil {
		t.Errorf("conflict = M-%d, want none (cosine 0.68)", *c)
	}
	// A worker that cannot answer leaves the word rule.
	down := fixedVectors{err: ErrNoWorker}
	_, c = add(t, st, down, record.KindNote, "annealing raises intrinsic Q on every die", t0)
	if c != nil {
		t.Errorf("conflict = M-%d, want none", *c)
	}
}

func TestAddMemoryRejects(t *testing.T) {
	st := openStore(t)
	tests := []record.NewMemory{
		{Kind: record.KindNote, Text: "x"},
		{ProjectPath: "/p", Kind: record.KindNote, Text: "  ...  "},
		{ProjectPath: "/p", Kind: "gossip", Text: "a fact"},
		{ProjectPath: "/p", Kind: record.KindNote, Text: "a fact", Trust: record.Trust(1.5)},
	}
	for _, m := range tests {
		if _, _, err := AddMemory(context.Background(), st, nil, m); fault.KindOf(err) != fault.Invalid {
			t.Errorf("AddMemory(%+v) = %v, want an Invalid error", m, err)
		}
	}
}

func TestAddMemoryRevivesForgotten(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	id, _ := add(t, st, nil, record.KindNote, "the cluster is down on the first Tuesday", t0)
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.ForgetMemory(ctx, id) }); err != nil {
		t.Fatal(err)
	}
	res, _ := Search(ctx, st, nil, Query{Project: "/p", Text: "cluster Tuesday"})
	if len(res.Hits) != 0 {
		t.Fatalf("forgotten memory recalled: %+v", res.Hits)
	}
	again, _ := add(t, st, nil, record.KindNote, "the cluster is down on the first Tuesday", t0)
	if again != id {
		t.Fatalf("re-add gave M-%d, want M-%d", again, id)
	}
	res, _ = Search(ctx, st, nil, Query{Project: "/p", Text: "cluster Tuesday"})
	if len(res.Hits) != 1 || res.Hits[0].ID != id {
		t.Fatalf("revived memory not recalled: %+v", res.Hits)
	}
}
