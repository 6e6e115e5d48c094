package worker

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// benchProject and benchModel label the memories fillRandomVectors writes.
const (
	benchProject = "/bench/knn"
	benchModel   = "bench-random"
)

// BenchmarkKNN times a KNN query (k = 10, the project partition and model
// filter the worker's knn uses) over 10k and 100k memories with random unit
// vectors, each way: "index" as the worker answers it, the in-memory
// Hamming scan (vectors.go) and the exact rerank, which reads the vectors
// it does not keep from the database (random queries find few kept), and
// "sqlite-vec" the same query scanned by sqlite-vec (store.KNN), for
// comparison. Each reports its median (p50-ms); "index" also the first
// query's loading of the project's codes (load-ms). `make bench` runs it
// with -benchtime 50x.
func BenchmarkKNN(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(b.TempDir(), "knn.db"), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			fillRandomVectors(b, st, n)
			rng := rand.New(rand.NewPCG(2, uint64(n)))
			queries := make([][]float32, 50)
			for i := range queries {
				queries[i] = randomUnit(rng)
			}
			var x vectorIndex
			for _, way := range []struct {
				name string
				knn  func(q []float32) ([]record.VectorHit, error)
			}{
				{"index", func(q []float32) ([]record.VectorHit, error) {
					return x.knn(ctx, st, benchProject, q, 10, benchModel, nil)
				}},
				{"sqlite-vec", func(q []float32) ([]record.VectorHit, error) {
					return st.KNN(ctx, benchProject, q, 10, benchModel, nil)
				}},
			} {
				b.Run(way.name, func(b *testing.B) {
					var load time.Duration
					if way.name == "index" {
						t0 := time.Now()
						if _, err := x.set(ctx, st, vectorKey{benchProject, benchModel}); err != nil {
							b.Fatalf("load codes: %v", err)
						}
						load = time.Since(t0)
					}
					var times []time.Duration
					for i := 0; b.Loop(); i++ {
						t0 := time.Now()
						hits, err := way.knn(queries[i%len(queries)])
						times = append(times, time.Since(t0))
						if err != nil {
							b.Fatal(err)
						}
						if len(hits) != 10 {
							b.Fatalf("got %d hits from %d vectors, want 10", len(hits), n)
						}
					}
					slices.Sort(times)
					b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
					if way.name == "index" { // b.Loop's start deletes what was reported before it
						b.ReportMetric(float64(load.Microseconds())/1000, "load-ms")
					}
				})
			}
		})
	}
}

// fillRandomVectors stores n memories of benchProject with random unit
// vectors of benchModel in st, 5,000 a transaction.
func fillRandomVectors(tb testing.TB, st *store.Store, n int) {
	tb.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	at := time.Unix(1_700_000_000, 0)
	const chunk = 5000
	for start := 0; start < n; start += chunk {
		err := st.Tx(ctx, func(tx *store.Tx) error {
			for i := start; i < min(start+chunk, n); i++ {
				id, _, err := tx.AddMemory(ctx, record.NewMemory{
					ProjectPath: benchProject, Kind: record.KindNote, Source: "bench",
					Text: fmt.Sprintf("bench memory %d", i), At: at.Add(time.Duration(i) * time.Second),
				})
				if err != nil {
					return err
				}
				if err := tx.PutVector(ctx, record.Vector{MemoryID: id, ProjectPath: benchProject,
					Embedding: randomUnit(rng), Model: benchModel, Kind: record.KindNote, CreatedAt: at.UnixMilli()}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("fill %d vectors: %v", n, err)
		}
	}
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
