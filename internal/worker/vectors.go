package worker

import (
	"context"
	"fmt"
	"sync"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/vecindex"
)

// The vector index: every project's binary codes in memory, so a KNN scans
// them in Go (internal/vecindex) and asks the database only for the exact
// distances of its short list. This process is the only one that stores
// vectors (the embed loop), so after a project's codes are loaded from the
// database once, the loop's puts keep them current. A vector deleted by
// another process (`vibe memory forget`) is missing from the rerank, which
// drops it from the index too.

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
}

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
// q, nearest first: the Hamming short list of the loaded codes, reranked
// by exact distance in the database (store.KNN does both in SQL).
func (x *vectorIndex) knn(ctx context.Context, rd *store.Store, project string, q []float32, k int, model string, kinds []string) ([]record.VectorHit, error) {
	if k < 1 || k > store.MaxKNN {
		return nil, fault.Errorf(fault.Invalid, "knn", "k = %d; it must be between 1 and %d", k, store.MaxKNN)
	}
	key := vectorKey{project, model}
	s, err := x.set(ctx, rd, key)
	if err != nil {
		return nil, err
	}
	x.mu.RLock()
	ids := s.Nearest(vecindex.Code(q), store.Shortlist(k), kinds)
	x.mu.RUnlock()
	hits, err := rd.VectorDistances(ctx, q, ids)
	if err != nil {
		return nil, err
	}
	if len(hits) < len(ids) {
		x.dropMissing(rd, key, ids, hits)
	}
	return hits[:min(k, len(hits))], nil
}

// dropMissing removes from the index the short-listed ids the rerank did
// not find: their vector was deleted or their memory forgotten.
func (x *vectorIndex) dropMissing(rd *store.Store, key vectorKey, ids []int64, hits []record.VectorHit) {
	found := make(map[int64]bool, len(hits))
	for _, h := range hits {
		found[h.MemoryID] = true
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.from != rd {
		return
	}
	if s, ok := x.sets[key]; ok {
		for _, id := range ids {
			if !found[id] {
				s.Delete(id)
			}
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
