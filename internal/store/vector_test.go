package store

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/vibe-science/vibe/internal/store/record"
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
		{"wide query", make([]float32, 385), 5, "knn: query vector has 385 dims, the vector table holds up to 384 (use a model of at most 384 dims such as potion-base-8M or all-MiniLM-L6-v2)"},
		{"empty query", nil, 5, "knn: query vector has 0 dims, the vector table holds up to 384 (use a model of at most 384 dims such as potion-base-8M or all-MiniLM-L6-v2)"},
		{"k zero", unit(0, 0, 0), 0, "knn: k = 0; it must be between 1 and 4096"},
		{"k huge", unit(0, 0, 0), 5000, "knn: k = 5000; it must be between 1 and 4096"},
	}
	for _, tc := range tests {
		if _, err := s.KNN(ctx, "/p", tc.query, tc.k, "A", nil); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// exactKNN is the float table's own KNN, the reference the binary scan
// with rerank must agree with.
func exactKNN(t *testing.T, s *Store, project string, q []float32, k int, model string) []int64 {
	t.Helper()
	blob, _ := sqlite_vec.SerializeFloat32(q)
	rows, err := s.DB().Query(`SELECT memory_id FROM vec_memories WHERE embedding MATCH ? AND k = ? AND project_path = ? AND model = ? ORDER BY distance`,
		blob, k, project, model)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	return ids
}

func TestKNNBinaryScanMatchesExact(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 3000
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("m%d", i)
	}
	ids := addMemories(t, s, texts...)
	// Clustered vectors, as sentence embeddings are: 30 centres, each
	// memory a centre plus noise, so near neighbours are close in angle.
	centres := make([][]float32, 30)
	for i := range centres {
		centres[i] = randUnit(rng, record.VectorDims, nil, 0)
	}
	err := s.Tx(ctx, func(tx *Tx) error {
		for i, id := range ids {
			v := randUnit(rng, record.VectorDims, centres[i%30], 1.5)
			if err := tx.PutVector(ctx, record.Vector{MemoryID: id, ProjectPath: "/p", Embedding: v, Model: "A", Kind: "note"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := count(t, s, "SELECT count(*) FROM vec_memories"), count(t, s, "SELECT count(*) FROM vec_memories_bits"); a != n || b != n {
		t.Fatalf("vectors = %d, codes = %d, want %d each", a, b, n)
	}
	found, total := 0, 0
	for q := 0; q < 40; q++ {
		query := randUnit(rng, record.VectorDims, centres[q%30], 1.5)
		want := exactKNN(t, s, "/p", query, 10, "A")
		got, err := s.KNN(ctx, "/p", query, 10, "A", nil)
		if err != nil {
			t.Fatal(err)
		}
		in := map[int64]bool{}
		for i, h := range got {
			in[h.MemoryID] = true
			if i > 0 && h.Distance < got[i-1].Distance {
				t.Fatalf("query %d: hits not nearest first: %v", q, got)
			}
		}
		for _, id := range want {
			if in[id] {
				found++
			}
		}
		total += len(want)
	}
	// The rerank is exact, so only neighbours the Hamming shortlist missed
	// can be lost.
	r := float64(found) / float64(total)
	t.Logf("binary scan + rerank recall of the exact top 10: %.3f", r)
	if r < 0.95 {
		t.Errorf("binary scan + rerank found %.3f of the exact top 10, want >= 0.95", r)
	}
}

func TestNarrowVectorsArePadded(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ids := addMemories(t, s, "a", "b")
	a := make([]float32, 256)
	b := make([]float32, 256)
	a[0], b[0], b[1] = 1, 0.6, 0.8
	err := s.Tx(ctx, func(tx *Tx) error {
		if err := tx.PutVector(ctx, record.Vector{MemoryID: ids[0], ProjectPath: "/p", Embedding: a, Model: "S", Kind: "note"}); err != nil {
			return err
		}
		return tx.PutVector(ctx, record.Vector{MemoryID: ids[1], ProjectPath: "/p", Embedding: b, Model: "S", Kind: "note"})
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.KNN(ctx, "/p", a, 5, "S", nil)
	if err != nil {
		t.Fatal(err)
	}
	// |a-b|² = 0.4² + 0.8² = 0.8: the padding adds nothing.
	if len(got) != 2 || got[0].MemoryID != ids[0] || got[0].Distance != 0 || math.Abs(got[1].Distance-math.Sqrt(0.8)) > 1e-6 {
		t.Errorf("KNN = %+v", got)
	}
	if err := s.Tx(ctx, func(tx *Tx) error { return tx.ForgetMemory(ctx, ids[1]) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "SELECT count(*) FROM vec_memories_bits") + count(t, s, "SELECT count(*) FROM vec_floats"); n != 2 {
		t.Errorf("codes + floats after forgetting one of two = %d, want 2", n)
	}
}

func randUnit(rng *rand.Rand, dims int, centre []float32, noise float64) []float32 {
	v := make([]float32, dims)
	var s float64
	for i := range v {
		x := rng.NormFloat64()
		if centre != nil {
			x = float64(centre[i]) + noise*x/math.Sqrt(float64(dims))
		}
		v[i] = float32(x)
		s += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(s))
	}
	return v
}

// A database made before 0008 gets the codes and floats of the vectors it
// already holds, so KNN finds them at once.
func TestVectorBitsMigrationBackfills(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids := addMemories(t, s, "a", "b")
	for i, id := range ids {
		blob, _ := sqlite_vec.SerializeFloat32(unit(i, i, 0))
		if _, err := s.DB().Exec("INSERT INTO vec_memories(memory_id, project_path, embedding, model, kind, created_at) VALUES (?, '/p', ?, 'A', 'note', 0)", id, blob); err != nil {
			t.Fatal(err)
		}
	}
	// Back to version 7: as if 0008 (and 0009, the memory links, 0010, the tool-call count, and 0012, an index on 0009's column) had never run.
	for _, q := range []string{"DROP INDEX idx_memories_salient", "DROP TABLE vec_memories_bits", "DROP TABLE vec_floats",
		"DROP INDEX idx_memories_unchecked", "ALTER TABLE memories DROP COLUMN unchecked",
		"ALTER TABLE memories DROP COLUMN superseded_by", "DROP TABLE memory_links",
		"DROP TRIGGER spine_entries_count", "ALTER TABLE sessions DROP COLUMN tool_calls", "PRAGMA user_version=7"} {
		if _, err := s.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s, err = Open(ctx, path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.KNN(ctx, "/p", unit(1, 1, 0), 5, "A", nil)
	if err != nil || len(got) != 2 || got[0].MemoryID != ids[1] || got[0].Distance > 1e-6 {
		t.Errorf("KNN after the migration = %+v, %v", got, err)
	}
}
