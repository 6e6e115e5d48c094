package record

// VectorDims is the width of vec_memories.embedding (all-MiniLM-L6-v2's
// 384). A narrower model's vectors (potion-base-8M's 256) are stored and
// queried zero-padded, which changes no L2 distance and no sign bit; a
// wider model cannot share the table.
const VectorDims = 384

// Vector is one memory's embedding as vec_memories stores it.
type Vector struct {
	MemoryID    int64
	ProjectPath string
	Embedding   []float32
	Model       string
	Kind        string
	CreatedAt   int64 // the memory's unix milliseconds
}

// VectorHit is one nearest neighbour. Distance is L2 between unit vectors,
// so cosine similarity is 1 - Distance²/2.
type VectorHit struct {
	MemoryID int64   `json:"memory_id"`
	Distance float64 `json:"distance"`
}
