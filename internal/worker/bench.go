package worker

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/store"
)

// BenchProject and BenchModel label what BenchKNN writes.
const (
	BenchProject = "/bench/knn"
	BenchModel   = "bench-random"
)

// BenchKNN stores n memories with random unit vectors in st (use a
// throwaway database), then times 50 KNN queries (k = 10, the project
// partition and model filter the worker's knn uses) and returns the median.
// It measures with the wall clock: it is a benchmark, not daemon logic.
func BenchKNN(ctx context.Context, st *store.Store, n int) (time.Duration, error) {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	at := time.Unix(1_700_000_000, 0)
	const chunk = 5000
	for start := 0; start < n; start += chunk {
		err := st.Tx(ctx, func(tx *store.Tx) error {
			for i := start; i < min(start+chunk, n); i++ {
				id, _, err := tx.AddMemory(ctx, record.NewMemory{
					ProjectPath: BenchProject, Kind: record.KindNote, Source: "bench",
					Text: fmt.Sprintf("bench memory %d", i), At: at.Add(time.Duration(i) * time.Second),
				})
				if err != nil {
					return err
				}
				if err := tx.PutVector(ctx, record.Vector{MemoryID: id, ProjectPath: BenchProject,
					Embedding: randomUnit(rng), Model: BenchModel, Kind: record.KindNote, CreatedAt: at.UnixMilli()}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("bench knn: fill %d vectors: %w", n, err)
		}
	}
	times := make([]time.Duration, 0, 50)
	for range 50 {
		q := randomUnit(rng)
		t0 := time.Now()
		hits, err := st.KNN(ctx, BenchProject, q, 10, BenchModel, nil)
		if err != nil {
			return 0, fmt.Errorf("bench knn: %w", err)
		}
		times = append(times, time.Since(t0))
		if len(hits) != min(10, n) {
			return 0, fmt.Errorf("bench knn: got %d hits from %d vectors, want %d", len(hits), n, min(10, n))
		}
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

func randomUnit(rng *rand.Rand) []float32 {
	v := make([]float32, record.VectorDims)
	var s float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		s += x * x
	}
	n := float32(math.Sqrt(s))
	for i := range v {
		v[i] /= n
	}
	return v
}
