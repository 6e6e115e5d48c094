package worker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// clusteredUnit is a unit vector near centre (sentence embeddings cluster).
func clusteredUnit(rng *rand.Rand, centre []float32, noise float64) []float32 {
	v := make([]float32, record.VectorDims)
	var s float64
	for i := range v {
		x := rng.NormFloat64()
		if centre != nil {
			x = float64(centre[i]) + noise*x/math.Sqrt(float64(record.VectorDims))
		}
		v[i] = float32(x)
		s += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(s))
	}
	return v
}

// vectorStore is a database with n memories of project /p with clustered
// vectors by model A (kinds alternate), and a few of project /q and of
// model B beside them; it returns the store, the vectors by memory id and
// the cluster centres.
func vectorStore(t *testing.T, n int) (*store.Store, map[int64][]float32, [][]float32) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "v.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	centres := make([][]float32, 30)
	for i := range centres {
		centres[i] = clusteredUnit(rng, nil, 0)
	}
	vecs := map[int64][]float32{}
	kinds := []string{record.KindNote, record.KindDecision, record.KindSeed}
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for i := range n + 40 {
			project, model := "/p", "A"
			switch {
			case i >= n+20:
				project = "/q"
			case i >= n:
				model = "B"
			}
			kind := kinds[i%3]
			id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: project, Kind: kind, Source: "test",
				Text: fmt.Sprintf("memory %d", i), At: time.Unix(1_700_000_000+int64(i), 0)})
			if err != nil {
				return err
			}
			v := clusteredUnit(rng, centres[i%30], 1.5)
			if err := tx.PutVector(ctx, record.Vector{MemoryID: id, ProjectPath: project, Embedding: v, Model: model, Kind: kind}); err != nil {
				return err
			}
			if project == "/p" && model == "A" {
				vecs[id] = v
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, vecs, centres
}

// exactNearest is the true top k of vecs by L2 distance.
func exactNearest(vecs map[int64][]float32, q []float32, k int) []int64 {
	type hit struct {
		id int64
		d  float64
	}
	var all []hit
	for id, v := range vecs {
		var s float64
		for i := range v {
			d := float64(v[i] - q[i])
			s += d * d
		}
		all = append(all, hit{id, s})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].d < all[j].d || all[i].d == all[j].d && all[i].id < all[j].id })
	var out []int64
	for _, h := range all[:min(k, len(all))] {
		out = append(out, h.id)
	}
	return out
}

// The in-memory scan finds what the SQL scan finds: on a set smaller than
// the short list both rerank everything, so they agree hit for hit; on
// 3000 vectors both find at least 95% of the exact top 10.
func TestIndexKNNMatchesTheSQLScan(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{60, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			st, vecs, centres := vectorStore(t, n)
			var x vectorIndex
			rng := rand.New(rand.NewPCG(5, 5))
			found, total := 0, 0
			for qi := range 30 {
				q := clusteredUnit(rng, centres[qi%30], 1.5)
				for _, kinds := range [][]string{nil, {record.KindDecision}} {
					got, err := x.knn(ctx, st, "/p", q, 10, "A", kinds)
					if err != nil {
						t.Fatal(err)
					}
					sqlHits, err := st.KNN(ctx, "/p", q, 10, "A", kinds)
					if err != nil {
						t.Fatal(err)
					}
					if n < store.Shortlist(10) && !slices.Equal(got, sqlHits) {
						t.Fatalf("query %d kinds %v:\nindex %v\n  sql %v", qi, kinds, got, sqlHits)
					}
					if n < store.Shortlist(10) && kinds == nil && x.floats.Len() != n {
						t.Fatalf("floats kept after a rerank of all %d vectors: %d", n, x.floats.Len())
					}
					for i := 1; i < len(got); i++ {
						if got[i].Distance < got[i-1].Distance {
							t.Fatalf("hits not nearest first: %v", got)
						}
					}
					if kinds != nil {
						continue
					}
					in := map[int64]bool{}
					for _, h := range got {
						in[h.MemoryID] = true
					}
					for _, id := range exactNearest(vecs, q, 10) {
						if in[id] {
							found++
						}
						total++
					}
				}
			}
			if r := float64(found) / float64(total); r < 0.95 {
				t.Errorf("the index found %.3f of the exact top 10, want >= 0.95", r)
			}
			for _, c := range []struct{ project, model string }{{"/q", "A"}, {"/p", "B"}} {
				got, err := x.knn(ctx, st, c.project, centres[0], 50, c.model, nil)
				if err != nil || len(got) != 20 {
					t.Errorf("%s by %s: %d hits, %v; want its 20", c.project, c.model, len(got), err)
				}
			}
		})
	}
}

// After a project's codes are loaded, what the embed loop stores is found
// (put), a memory embedded again by another model leaves the old model's
// codes, a memory forgotten by another process is left out and dropped,
// and another read pool (the file was reopened) loads afresh.
func TestIndexFollowsTheDatabase(t *testing.T) {
	ctx := context.Background()
	st, _, centres := vectorStore(t, 60)
	var x vectorIndex
	q := clusteredUnit(rand.New(rand.NewPCG(1, 1)), centres[7], 0.01)
	before, err := x.knn(ctx, st, "/p", q, 3, "A", nil)
	if err != nil {
		t.Fatal(err)
	}
	// A new memory exactly at q, stored as the embed loop stores it.
	var id int64
	err = st.Tx(ctx, func(tx *store.Tx) error {
		id, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Source: "test", Text: "new", At: time.Unix(1_800_000_000, 0)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.ClaimEmbeds(ctx, "A", 1000, time.Unix(1_800_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	var res []record.EmbedResult
	for _, it := range items {
		if it.MemoryID == id {
			res = append(res, record.EmbedResult{Item: it, Vector: q})
		}
	}
	stored, err := st.CompleteEmbeds(ctx, "A", res, time.Unix(1_800_000_000, 0))
	if err != nil || len(stored) != 1 {
		t.Fatalf("CompleteEmbeds = %v, %v", stored, err)
	}
	if got, _ := x.knn(ctx, st, "/p", q, 3, "A", nil); len(got) > 0 && got[0].MemoryID == id {
		t.Fatal("found before put: the test does not exercise put")
	}
	x.put(stored)
	got, err := x.knn(ctx, st, "/p", q, 3, "A", nil)
	if err != nil || len(got) == 0 || got[0].MemoryID != id || got[0].Distance > 1e-6 {
		t.Fatalf("after put: %v, %v; want memory %d at distance 0 (before: %v)", got, err, id, before)
	}

	// Embedded again by model B: A's codes no longer hold it.
	moved := record.Vector{MemoryID: id, ProjectPath: "/p", Embedding: q, Model: "B", Kind: record.KindNote}
	if err := st.Tx(ctx, func(tx *store.Tx) error { return tx.PutVector(ctx, moved) }); err != nil {
		t.Fatal(err)
	}
	if _, err := x.knn(ctx, st, "/p", q, 3, "B", nil); err != nil { // load B's codes
		t.Fatal(err)
	}
	x.put([]record.Vector{moved})
	a := x.sets[vectorKey{"/p", "A"}]
	nA := a.Len()
	if got := a.Nearest(nil, 1000, nil); slices.Contains(got, id) {
		t.Fatal("memory still in model A's codes after model B embedded it")
	}
	if got, _ := x.knn(ctx, st, "/p", q, 1, "B", nil); len(got) != 1 || got[0].MemoryID != id {
		t.Fatalf("model B: %v, want memory %d", got, id)
	}

	// Forgotten by another process: while its float vector is kept, KNN
	// may list it and reading the memories leaves it out; once a rerank
	// has to read its vector, it is left out and dropped from the codes.
	top, _ := x.knn(ctx, st, "/p", q, 1, "A", nil)
	forgotten := top[0].MemoryID
	other, err := store.Open(ctx, st.Path(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Tx(ctx, func(tx *store.Tx) error { return tx.ForgetMemory(ctx, forgotten) }); err != nil {
		t.Fatal(err)
	}
	if ms, err := st.MemoriesByID(ctx, "/p", []int64{forgotten}); err != nil || len(ms) != 0 {
		t.Fatalf("reading the forgotten memory = %v, %v; want nothing", ms, err)
	}
	x.floats.Delete(forgotten)
	after, err := x.knn(ctx, st, "/p", q, 50, "A", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range after {
		if h.MemoryID == forgotten {
			t.Fatalf("forgotten memory %d still found", h.MemoryID)
		}
	}
	if a.Len() != nA-1 {
		t.Errorf("codes held = %d, want %d after the forgotten one was dropped", a.Len(), nA-1)
	}

	// A reopened file: the codes are read from the new handle.
	if _, err := x.knn(ctx, other, "/p", q, 3, "A", nil); err != nil {
		t.Fatal(err)
	}
	if x.from != other || len(x.sets) != 1 {
		t.Errorf("after another read pool: from the new one = %v, sets = %d; want true, 1", x.from == other, len(x.sets))
	}
}

// A memory the running worker embeds after a KNN loaded its project is
// found by the next KNN: the embed loop's puts reach the index.
func TestWorkerKNNFindsWhatItEmbedsLater(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	seedMemories(t, p, "the knockout lowers expression", "batch effect explains clusters")
	l := &fakeLoader{}
	openWorker(t, fastConfig(p, l, "fake"))
	eventually(t, 5*time.Second, "drained", func() bool { return health(t, p).Done == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	const text = "donor age confounds the expression change"
	if hits, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: text, K: 5}); err != nil || len(hits) != 2 {
		t.Fatalf("knn before = %+v, %v; want the 2 seeded memories", hits, err)
	}
	ids := seedMemories(t, p, text)
	eventually(t, 5*time.Second, "drained", func() bool { return health(t, p).Done == 3 })
	hits, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: text, K: 5})
	if err != nil || len(hits) != 3 || hits[0].MemoryID != ids[0] || hits[0].Distance > 1e-6 {
		t.Fatalf("knn after = %+v, %v; want memory %d first at distance 0", hits, err, ids[0])
	}
}

// Session start's warm request with a project reads that project's codes
// in the background, so the session's first prompt does not wait for them:
// those of the current model, or of the fallback embedder while the model
// is not installed (the name KNN then uses). A hook running in the worker
// asks in-process (Worker.query answers a warm-up on its goroutine), one
// in a hook binary over the socket.
func TestWarmLoadsTheProjectsCodes(t *testing.T) {
	for _, c := range []struct {
		installed, inProcess bool
	}{{true, false}, {false, false}, {true, true}, {false, true}} {
		installed := c.installed
		t.Run(fmt.Sprintf("model installed %v, in-process %v", installed, c.inProcess), func(t *testing.T) {
			p := testHome(t)
			cfg, codesOf := fastConfig(p, &fakeLoader{}, "fake"), "fake"
			if installed {
				installFakeModel(t, p, "fake")
			} else {
				cfg.Fallback, cfg.AutoPull, codesOf = true, false, embed.FallbackModel
			}
			seedMemories(t, p, "alpha", "beta")
			w := openWorker(t, cfg)
			eventually(t, 5*time.Second, "drained", func() bool { return health(t, p).Done == 2 })
			loaded := func() int {
				w.vectors.mu.RLock()
				defer w.vectors.mu.RUnlock()
				if s, ok := w.vectors.sets[vectorKey{"/p", codesOf}]; ok {
					return s.Len()
				}
				return -1
			}
			if n := loaded(); n != -1 {
				t.Fatalf("codes loaded before any request: %d", n)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			call := func(ctx context.Context, req client.Request) (*client.Response, error) {
				return client.Call(ctx, p.Socket, req)
			}
			if c.inProcess {
				call = w.query
			}
			resp, err := call(ctx, client.Request{Op: client.OpWarm, Project: "/p"})
			if err != nil || !resp.OK || resp.Model != codesOf && installed {
				t.Fatalf("warm: %+v, %v", resp, err)
			}
			eventually(t, 5*time.Second, "codes loaded", func() bool { return loaded() == 2 })
		})
	}
}

// A query whose deadline passes while its project's codes are read goes on
// without them, and the reading completes for the next query (the load has
// its own context: the hook's recall deadline is 150 ms, a large project's
// codes take longer). What the embed loop stores meanwhile is in the set.
func TestCodesLoadOutlivesAQuerysDeadline(t *testing.T) {
	ctx := context.Background()
	st, _, centres := vectorStore(t, 60)
	release := make(chan struct{})
	x := vectorIndex{run: func(f func()) { go func() { <-release; f() }() }}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	q := centres[3]
	if _, err := x.knn(short, st, "/p", q, 5, "A", nil); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("knn while the codes load = %v; want the deadline's error", err)
	}
	// Stored while the codes are read (not in the file: only put knows it).
	x.put([]record.Vector{{MemoryID: 999_999, ProjectPath: "/p", Model: "A", Kind: record.KindNote, Embedding: q}})
	close(release)
	eventually(t, 5*time.Second, "codes loaded", func() bool {
		x.mu.RLock()
		defer x.mu.RUnlock()
		return x.sets[vectorKey{"/p", "A"}] != nil
	})
	x.mu.RLock()
	s := x.sets[vectorKey{"/p", "A"}]
	x.mu.RUnlock()
	if s.Len() != 61 {
		t.Errorf("codes held = %d, want the 60 read and the one put meanwhile", s.Len())
	}
	got, err := x.knn(ctx, st, "/p", q, 5, "A", nil)
	if err != nil || len(got) != 5 {
		t.Fatalf("knn after the load = %v, %v", got, err)
	}
}

// TestIndexRefusesWhatKNNRefuses: a query no vector table could answer (no
// dims, too many, k out of range) gets the index's refusal, the same as
// store.KNN's, before anything is read.
func TestIndexRefusesWhatKNNRefuses(t *testing.T) {
	ctx := context.Background()
	st, _, _ := vectorStore(t, 60)
	var x vectorIndex
	ok := make([]float32, record.VectorDims)
	for _, c := range []struct {
		name string
		q    []float32
		k    int
	}{{"no dims", nil, 5}, {"too many dims", make([]float32, record.VectorDims+1), 5}, {"k 0", ok, 0}, {"k too large", ok, store.MaxKNN + 1}} {
		_, err := x.knn(ctx, st, "/p", c.q, c.k, "A", nil)
		_, want := st.KNN(ctx, "/p", c.q, c.k, "A", nil)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: index %v, store.KNN %v", c.name, err, want)
		}
	}
}
