package vecindex

import (
	"container/list"
	"encoding/binary"
	"math"
	"sync"
)

// Floats keeps the float vectors of the memories most recently reranked or
// stored, at most a fixed number, so a rerank reads from the database only
// the vectors it has not seen. Each vector is kept with the model that made
// it: asked under another model, it is not there. Safe for concurrent use.
type Floats struct {
	mu   sync.Mutex
	max  int
	byID map[int64]*list.Element // of *floatEntry
	lru  list.List               // most recently used first
}

type floatEntry struct {
	id    int64
	model string
	v     []float32
}

// NewFloats keeps at most n vectors (at least one).
func NewFloats(n int) *Floats {
	return &Floats{max: max(n, 1), byID: map[int64]*list.Element{}}
}

// Get fills out[i] with the vector of ids[i] made by model, where it is
// kept, and returns the positions it could not fill.
func (f *Floats) Get(model string, ids []int64, out [][]float32) (missing []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, id := range ids {
		e, ok := f.byID[id]
		if !ok || e.Value.(*floatEntry).model != model {
			missing = append(missing, i)
			continue
		}
		f.lru.MoveToFront(e)
		out[i] = e.Value.(*floatEntry).v
	}
	return missing
}

// Put keeps v as the vector of id made by model (the one a memory has:
// an earlier vector of id, by any model, is replaced), forgetting the
// least recently used vector when full. v must not change afterwards.
func (f *Floats) Put(id int64, model string, v []float32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.byID[id]; ok {
		*e.Value.(*floatEntry) = floatEntry{id, model, v}
		f.lru.MoveToFront(e)
		return
	}
	f.byID[id] = f.lru.PushFront(&floatEntry{id, model, v})
	if f.lru.Len() > f.max {
		old := f.lru.Back()
		f.lru.Remove(old)
		delete(f.byID, old.Value.(*floatEntry).id)
	}
}

// Delete forgets the vector of id.
func (f *Floats) Delete(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.byID[id]; ok {
		f.lru.Remove(e)
		delete(f.byID, id)
	}
}

// Len is how many vectors are kept.
func (f *Floats) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lru.Len()
}

// FloatsOf reads a vector stored as little-endian float32 bytes
// (sqlite-vec's blob format).
func FloatsOf(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// L2 is the Euclidean distance between a stored vector and a query, in
// the same float32 arithmetic, order and rounding as sqlite-vec's
// vec_distance_l2 (its portable loop, which this build uses), so a rerank
// here ranks and ties exactly as the database's did. The shorter of the
// two counts as padded with zeros, as the database stores vectors: a zero
// term adds exactly nothing to the sum.
func L2(stored, query []float32) float64 {
	var sum float32
	for i := range max(len(stored), len(query)) {
		t := at(stored, i) - at(query, i)
		sum += t * t
	}
	return float64(float32(math.Sqrt(float64(sum))))
}

// at is v[i], or 0 past v's end.
func at(v []float32, i int) float32 {
	if i < len(v) {
		return v[i]
	}
	return 0
}
