package worker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// BenchmarkHookReadsUnderEmbedWrites measures the connection strategy: hook-
// shaped reads (an FTS5 recall search for one word and a session lookup) from parallel
// goroutines while another goroutine writes as the embed loop does (a
// transaction storing 8 vectors, every 2 ms: a fast model's pace). "one-conn" runs the reads on
// the writer's single connection, as the worker does; "read-pool" on a
// read-only handle with its own connections beside it (WAL lets readers run
// during a write). Reported: ns per read (wall), p50 and p99 per read, and
// how many write transactions committed per second meanwhile.
func BenchmarkHookReadsUnderEmbedWrites(b *testing.B) {
	const writePause = 2 * time.Millisecond
	// Hooks do not read back to back: each reader pauses between reads, so
	// the two cores are not simply saturated by readers.
	const readPause = 500 * time.Microsecond
	for _, mode := range []string{"one-conn", "read-pool"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "bench.db")
			w, err := store.Open(ctx, path, store.Options{BusyTimeoutMS: store.HookBusyTimeoutMS})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			fillRandomVectors(b, w, 2000) // 2000 memories with vectors
			reader := w
			if mode == "read-pool" {
				r, err := store.Open(ctx, path, store.Options{ReadOnly: true, ReadConns: DefaultReadConns})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				reader = r
			}
			stop := make(chan struct{})
			var writes atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(9, 9))
				at := time.Unix(1_800_000_000, 0)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					err := w.Tx(ctx, func(tx *store.Tx) error {
						for j := 0; j < 8; j++ {
							id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: benchProject, Kind: record.KindNote, Source: "bench",
								Text: fmt.Sprintf("written %d %d", i, j), At: at.Add(time.Duration(i*8+j) * time.Millisecond)})
							if err != nil {
								return err
							}
							if err := tx.PutVector(ctx, record.Vector{MemoryID: id, ProjectPath: benchProject, Embedding: randomUnit(rng),
								Model: benchModel, Kind: record.KindNote, CreatedAt: at.UnixMilli()}); err != nil {
								return err
							}
						}
						return nil
					})
					if err == nil {
						writes.Add(1)
					}
					time.Sleep(writePause) // the model embedding the next chunk
				}
			}()
			var mu sync.Mutex
			var lat []time.Duration
			b.SetParallelism(2) // 2 × GOMAXPROCS readers, as parallel hooks
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				n := 0
				for pb.Next() {
					t := time.Now()
					n++
					if _, err := reader.SearchMemories(ctx, record.TextQuery{Project: benchProject, Match: fmt.Sprint(n % 2000), Limit: 5}); err != nil {
						b.Error(err)
						return
					}
					reader.Session(ctx, "no-such-session")
					mine = append(mine, time.Since(t))
					time.Sleep(readPause)
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			elapsed := time.Since(start)
			b.StopTimer()
			close(stop)
			wg.Wait()
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			}
			b.ReportMetric(float64(writes.Load())/elapsed.Seconds(), "writes/s")
		})
	}
}

// BenchmarkHookReadsBesideKNN measures what the worker does: hook reads stay
// on the writer's connection (a handler reads and writes through one Env
// store), while the query service's KNN scans and the embed loop's reads
// run either on that same connection ("knn-on-writer", before) or on the
// read pool ("knn-on-pool", as built). A KNN query every 2 ms and an
// 8-vector write every 2 ms run meanwhile.
func BenchmarkHookReadsBesideKNN(b *testing.B) {
	for _, mode := range []string{"knn-on-writer", "knn-on-pool"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "bench.db")
			w, err := store.Open(ctx, path, store.Options{BusyTimeoutMS: store.HookBusyTimeoutMS})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			fillRandomVectors(b, w, 5000)
			knnOn := w
			if mode == "knn-on-pool" {
				r, err := store.Open(ctx, path, store.Options{ReadOnly: true, ReadConns: DefaultReadConns})
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				knnOn = r
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var knns atomic.Int64
			wg.Add(2)
			go func() { // the query service
				defer wg.Done()
				rng := rand.New(rand.NewPCG(3, 3))
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := knnOn.KNN(ctx, benchProject, randomUnit(rng), 10, benchModel, nil); err == nil {
						knns.Add(1)
					}
					time.Sleep(2 * time.Millisecond)
				}
			}()
			go func() { // the embed loop's writes
				defer wg.Done()
				rng := rand.New(rand.NewPCG(9, 9))
				at := time.Unix(1_800_000_000, 0)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					w.Tx(ctx, func(tx *store.Tx) error {
						for j := 0; j < 8; j++ {
							id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: benchProject, Kind: record.KindNote, Source: "bench",
								Text: fmt.Sprintf("written %d %d", i, j), At: at.Add(time.Duration(i*8+j) * time.Millisecond)})
							if err != nil {
								return err
							}
							if err := tx.PutVector(ctx, record.Vector{MemoryID: id, ProjectPath: benchProject, Embedding: randomUnit(rng),
								Model: benchModel, Kind: record.KindNote, CreatedAt: at.UnixMilli()}); err != nil {
								return err
							}
						}
						return nil
					})
					time.Sleep(2 * time.Millisecond)
				}
			}()
			var lat []time.Duration
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				if _, err := w.SearchMemories(ctx, record.TextQuery{Project: benchProject, Match: fmt.Sprint(i % 5000), Limit: 5}); err != nil {
					b.Fatal(err)
				}
				w.Session(ctx, "no-such-session")
				lat = append(lat, time.Since(t))
				time.Sleep(500 * time.Microsecond)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			close(stop)
			wg.Wait()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(knns.Load())/elapsed.Seconds(), "knn/s")
		})
	}
}
