package worker

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/vecindex"
)

// The vector index: every project's binary codes in memory, so a KNN scans
// them in Go (internal/vecindex), and the float vectors of the memories
// most often near a query (vecindex.Floats), so it reranks its short list
// in Go too and reads from the database only the vectors it does not keep.
// This process is the only one that stores vectors (the embed loop), so
// after a project's codes are loaded from the database once, the loop's
// puts keep them current. A memory another process forgets (`vibe memory
// forget`) leaves the index when a rerank reads its vector and finds it
// gone; while its vector is kept, KNN may still list it, and every reader
// of KNN hits drops it where it reads the memories (store.MemoriesByID
// leaves forgotten ones out).

// vectorKey names one set of codes: vectors of one project by one model.
type vectorKey struct{ project, model string }

// vectorIndex holds the sets of codes read from one database.
type vectorIndex struct {
	// run starts a load of codes, which outlives the query that asked for
	// it (Worker.goHandler, so Close waits for it; nil: a goroutine); ctx
	// is the loads' context (the worker's hook context; nil: none).
	run func(func())
	ctx context.Context

	mu      sync.RWMutex
	from    *store.Store // the read pool the sets were loaded from
	sets    map[vectorKey]*vecindex.Set
	loading map[vectorKey]*codeLoad
	floats  *vecindex.Floats // the float vectors reranks read, of rerankKept memories
}

// rerankKept is how many float vectors the index keeps for reranks, the
// most recently stored or reranked: 12 MB at 384 dims, every vector of most
// projects. A rerank reads from the database only those it does not keep:
// reading a hundred 1.5 KB rows cost ~0.3 ms in a worker that had idled
// 5 ms, as it does between a researcher's tool calls.
const rerankKept = 8192

// codeLoad is one set of codes being read.
type codeLoad struct {
	done    chan struct{}
	set     *vecindex.Set
	err     error
	pending []record.Vector // stored by the embed loop while the codes were read
}

// set returns the codes of project and model in rd. The first call for a
// key starts reading them (a second at 100k vectors) on a load of its own,
// so a query whose deadline passes first (a hook's recall has 150 ms) goes
// on without vectors while the load completes for the next one; another rd
// (the database file was reopened) starts over.
func (x *vectorIndex) set(ctx context.Context, rd *store.Store, k vectorKey) (*vecindex.Set, error) {
	x.mu.RLock()
	s, ok := x.sets[k]
	fresh := x.from == rd
	x.mu.RUnlock()
	if ok && fresh {
		return s, nil
	}
	x.mu.Lock()
	if x.from != rd {
		x.from, x.sets, x.loading = rd, map[vectorKey]*vecindex.Set{}, map[vectorKey]*codeLoad{}
		x.floats = vecindex.NewFloats(rerankKept)
	}
	if s, ok := x.sets[k]; ok {
		x.mu.Unlock()
		return s, nil
	}
	l, ok := x.loading[k]
	if !ok {
		l = &codeLoad{done: make(chan struct{})}
		x.loading[k] = l
		run := x.run
		if run == nil {
			run = func(f func()) { go f() }
		}
		run(func() { x.load(rd, k, l) })
	}
	x.mu.Unlock()
	select {
	case <-l.done:
		return l.set, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("the project's vector codes are still being read: %w", ctx.Err())
	}
}

// load reads the codes of k from rd and installs them, with what the embed
// loop stored meanwhile: a vector stored while they are read is either in
// what is read or in l.pending (put sees the load registered before the
// read starts), and putting it twice changes nothing.
func (x *vectorIndex) load(rd *store.Store, k vectorKey, l *codeLoad) {
	ctx := x.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	s := vecindex.NewSet(record.VectorDims)
	err := rd.VectorCodes(ctx, k.project, k.model, func(id int64, kind string, code []byte) {
		s.Put(id, kind, vecindex.CodeOf(code))
	})
	x.mu.Lock()
	defer x.mu.Unlock()
	defer close(l.done)
	current := x.from == rd && x.loading[k] == l
	if current {
		delete(x.loading, k)
	}
	if err != nil {
		l.err = err
		return
	}
	for _, v := range l.pending {
		apply(k, s, v)
	}
	l.set = s
	if current {
		x.sets[k] = s
	}
}

// knn is the k memories of project whose vectors by model lie nearest to
// q, nearest first, ties by id: the Hamming short list of the loaded codes,
// reranked by exact distance (store.KNN does both in SQL, with the same
// result). The rerank reads from the database only the vectors it does not
// keep (floats); a short-listed id whose vector is gone from the database
// leaves the index.
func (x *vectorIndex) knn(ctx context.Context, rd *store.Store, project string, q []float32, k int, model string, kinds []string) ([]record.VectorHit, error) {
	if err := store.CheckKNN(q, k); err != nil {
		return nil, err
	}
	key := vectorKey{project, model}
	s, err := x.set(ctx, rd, key)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	ids := s.Nearest(vecindex.Code(q), store.Shortlist(k), kinds)
	floats := x.floats
	x.mu.RUnlock()
	vecs := make([][]float32, len(ids))
	if missing := floats.Get(model, ids, vecs); len(missing) > 0 {
		at := make(map[int64]int, len(missing))
		want := make([]int64, len(missing))
		for j, i := range missing {
			at[ids[i]], want[j] = i, ids[i]
		}
		if err := rd.VectorFloats(ctx, want, func(id int64, b []byte) {
			v := vecindex.FloatsOf(b)
			vecs[at[id]] = v
			floats.Put(id, model, v)
		}); err != nil {
			return nil, err
		}
		x.dropMissing(rd, key, want, vecs, at)
	}
	dist := make([]float64, len(ids))
	vecindex.L2s(vecs, q, dist)
	hits := make([]record.VectorHit, 0, len(ids))
	for i, id := range ids {
		if vecs[i] != nil {
			hits = append(hits, record.VectorHit{MemoryID: id, Distance: dist[i]})
		}
	}
	slices.SortFunc(hits, func(a, b record.VectorHit) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.MemoryID, b.MemoryID))
	})
	return hits[:min(k, len(hits))], nil
}

// dropMissing removes from the index the ids of want whose vector the
// database did not return (vecs[at[id]] still nil): their vector was
// deleted or their memory forgotten by another process.
func (x *vectorIndex) dropMissing(rd *store.Store, key vectorKey, want []int64, vecs [][]float32, at map[int64]int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.from != rd {
		return
	}
	s, ok := x.sets[key]
	if !ok {
		return
	}
	for _, id := range want {
		if vecs[at[id]] == nil {
			s.Delete(id)
		}
	}
}

// put records vectors the embed loop stored, once they are committed.
func (x *vectorIndex) put(vs []record.Vector) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, v := range vs {
		for k, s := range x.sets {
			apply(k, s, v)
		}
		if x.floats != nil {
			x.floats.Put(v.MemoryID, v.Model, v.Embedding)
		}
		for k, l := range x.loading {
			if k.project == v.ProjectPath {
				l.pending = append(l.pending, v)
			}
		}
	}
}

// apply puts v into the codes of k: a memory has one vector, so its code
// leaves the sets of the project's other models.
func apply(k vectorKey, s *vecindex.Set, v record.Vector) {
	switch {
	case k.project != v.ProjectPath:
	case k.model == v.Model:
		s.Put(v.MemoryID, v.Kind, vecindex.Code(v.Embedding))
	default:
		s.Delete(v.MemoryID)
	}
}
