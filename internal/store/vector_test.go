package store

import (
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/vibe-science/vibe/internal/record"
)

func TestKNNPartitionModelKindsAndForgotten(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	// Memory ids 1..6; vectors put directly so distances are exact.
	addMemories(t, s, "m1", "m2", "m3", "m4", "m5", "m6")
	puts := []record.Vector{
		{MemoryID: 1, ProjectPath: "/p", Embedding: unit(0, 0, 0), Model: "A", Kind: "note"},
		{MemoryID: 2, ProjectPath: "/p", Embedding: unit(0, 1, 1), Model: "A", Kind: "decision"},
		{MemoryID: 3, ProjectPath: "/p", Embedding: unit(1, 1, 0), Model: "A", Kind: "note"},
		{MemoryID: 4, ProjectPath: "/q", Embedding: unit(0, 0, 0), Model: "A", Kind: "note"},
		{MemoryID: 5, ProjectPath: "/p", Embedding: unit(0, 0, 0), Model: "B", Kind: "note"},
		{MemoryID: 6, ProjectPath: "/p", Embedding: unit(0, 2, 0.5), Model: "A", Kind: "seed"},
	}
	err := s.Tx(ctx, func(tx *Tx) error {
		for _, v := range puts {
			if err := tx.PutVector(ctx, v); err != nil {
				return err
			}
		}
		// Replacing keeps one vector per memory.
		return tx.PutVector(ctx, puts[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "SELECT count(*) FROM vec_memories"); n != 6 {
		t.Fatalf("vectors = %d, want 6", n)
	}
	q := unit(0, 0, 0)
	d2 := math.Sqrt(2 - 2/math.Sqrt(2))    // e0 vs (e0+e1)/√2
	d6 := math.Sqrt(2 - 2/math.Sqrt(1.25)) // e0 vs (e0+0.5e2)/√1.25
	tests := []struct {
		name    string
		project string
		model   string
		k       int
		kinds   []string
		want    []record.VectorHit
	}{
		{"nearest first within project and model", "/p", "A", 10, nil,
			[]record.VectorHit{{MemoryID: 1, Distance: 0}, {MemoryID: 6, Distance: d6}, {MemoryID: 2, Distance: d2}, {MemoryID: 3, Distance: math.Sqrt2}}},
		{"k", "/p", "A", 2, nil, []record.VectorHit{{MemoryID: 1, Distance: 0}, {MemoryID: 6, Distance: d6}}},
		{"kinds", "/p", "A", 10, []string{"decision", "seed"}, []record.VectorHit{{MemoryID: 6, Distance: d6}, {MemoryID: 2, Distance: d2}}},
		{"other project", "/q", "A", 10, nil, []record.VectorHit{{MemoryID: 4, Distance: 0}}},
		{"other model", "/p", "B", 10, nil, []record.VectorHit{{MemoryID: 5, Distance: 0}}},
		{"unknown model", "/p", "C", 10, nil, []record.VectorHit{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.KNN(ctx, tc.project, q, tc.k, tc.model, tc.kinds)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i].MemoryID != tc.want[i].MemoryID || math.Abs(got[i].Distance-tc.want[i].Distance) > 1e-5 {
					t.Errorf("hit %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
	s.DB().Exec("UPDATE memories SET forgotten = 1 WHERE id = 6")
	got, _ := s.KNN(ctx, "/p", q, 10, "A", nil)
	ids := []int64{}
	for _, h := range got {
		ids = append(ids, h.MemoryID)
	}
	if !reflect.DeepEqual(ids, []int64{1, 2, 3}) {
		t.Errorf("after forgetting 6: %v", ids)
	}
}

func TestKNNRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	tests := []struct {
		name  string
		query []float32
		k     int
		want  string
	}{
		{"short query", []float32{1, 0}, 5, "knn: query vector has 2 dims, the vector table holds 384"},
		{"k zero", unit(0, 0, 0), 0, "knn: k = 0; it must be between 1 and 4096"},
		{"k huge", unit(0, 0, 0), 5000, "knn: k = 5000; it must be between 1 and 4096"},
	}
	for _, tc := range tests {
		if _, err := s.KNN(ctx, "/p", tc.query, tc.k, "A", nil); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
