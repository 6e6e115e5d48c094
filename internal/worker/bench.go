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

// BenchSpine adds rows spine entries of earlier sessions (500 a session,
// a month ago) to project in st: the history `make bench` and the worker's
// hook benchmarks run the hooks beside.
func BenchSpine(ctx context.Context, st *store.Store, project string, rows int) error {
	base := time.Now().Add(-30 * 24 * time.Hour)
	return st.Tx(ctx, func(tx *store.Tx) error {
		const perSession = 500
		for i := 0; i < rows; i++ {
			sid := fmt.Sprintf("prefill-%d", i/perSession)
			at := base.Add(time.Duration(i) * time.Second)
			if i%perSession == 0 {
				if err := tx.UpsertSession(ctx, record.SessionSeen{ID: sid, ProjectPath: project, At: at, Start: true}); err != nil {
					return err
				}
			}
			d := int64(i % 900)
			if _, err := tx.AddSpine(ctx, record.SpineEntry{SessionID: sid, ProjectPath: project, At: at,
				ActionType: []string{"DATA_LOAD", "MODEL_TRAIN", "CODE_EDIT", "COMMAND", "FILE_READ"}[i%5],
				ToolName:   "Bash", ToolUseID: fmt.Sprintf("toolu_pre_%d", i), InputSummary: fmt.Sprintf("$ python step_%d.py --seed %d", i%97, i),
				OutputSummary: "ok", InputSHA256: "x", OutputSHA256: "y", DurationMS: &d}, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// KNNTimes is what BenchKNN measures.
type KNNTimes struct {
	// P50 is a query as the worker answers it: the in-memory Hamming scan
	// (vectors.go) and the exact rerank, which reads the vectors it does
	// not keep from the database (random queries find few kept).
	P50 time.Duration
	// Load is the first query's loading of the project's codes.
	Load time.Duration
	// SQLP50 is the same query scanned by sqlite-vec (store.KNN), for
	// comparison.
	SQLP50 time.Duration
}

// BenchKNN stores n memories with random unit vectors in st (use a
// throwaway database), then times 50 KNN queries (k = 10, the project
// partition and model filter the worker's knn uses) each way and returns
// the medians. It measures with the wall clock: it is a benchmark, not
// daemon logic.
func BenchKNN(ctx context.Context, st *store.Store, n int) (KNNTimes, error) {
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
			return KNNTimes{}, fmt.Errorf("bench knn: fill %d vectors: %w", n, err)
		}
	}
	var x vectorIndex
	var out KNNTimes
	t0 := time.Now()
	if _, err := x.set(ctx, st, vectorKey{BenchProject, BenchModel}); err != nil {
		return KNNTimes{}, fmt.Errorf("bench knn: load codes: %w", err)
	}
	out.Load = time.Since(t0)
	var idx, sql []time.Duration
	for range 50 {
		q := randomUnit(rng)
		for _, way := range []struct {
			times *[]time.Duration
			knn   func() ([]record.VectorHit, error)
		}{
			{&idx, func() ([]record.VectorHit, error) { return x.knn(ctx, st, BenchProject, q, 10, BenchModel, nil) }},
			{&sql, func() ([]record.VectorHit, error) { return st.KNN(ctx, BenchProject, q, 10, BenchModel, nil) }},
		} {
			t0 := time.Now()
			hits, err := way.knn()
			if err != nil {
				return KNNTimes{}, fmt.Errorf("bench knn: %w", err)
			}
			*way.times = append(*way.times, time.Since(t0))
			if len(hits) != min(10, n) {
				return KNNTimes{}, fmt.Errorf("bench knn: got %d hits from %d vectors, want %d", len(hits), n, min(10, n))
			}
		}
	}
	slices.Sort(idx)
	slices.Sort(sql)
	out.P50, out.SQLP50 = idx[len(idx)/2], sql[len(sql)/2]
	return out, nil
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
