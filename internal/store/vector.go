package store

import (
	"context"
	"strings"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/record"
)

// MaxKNN is sqlite-vec's largest k.
const MaxKNN = 4096

// PutVector replaces the memory's vector: a memory has at most one, and it
// records the model that made it.
func (t *Tx) PutVector(ctx context.Context, v record.Vector) error {
	if len(v.Embedding) != record.VectorDims {
		return fault.Errorf(fault.Invalid, "store vector",
			"memory %d: vector has %d dims, the vector table holds %d (use a %d-dim model such as all-MiniLM-L6-v2)",
			v.MemoryID, len(v.Embedding), record.VectorDims, record.VectorDims)
	}
	blob, err := sqlite_vec.SerializeFloat32(v.Embedding)
	if err != nil {
		return fault.E(fault.Internal, "store vector", err)
	}
	if _, err := t.tx.ExecContext(ctx, "DELETE FROM vec_memories WHERE memory_id = ?", v.MemoryID); err != nil {
		return classify("replace vector", err)
	}
	_, err = t.tx.ExecContext(ctx, `
INSERT INTO vec_memories (memory_id, project_path, embedding, model, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		v.MemoryID, v.ProjectPath, blob, v.Model, v.Kind, v.CreatedAt)
	return classify("store vector", err)
}

// KNN returns the k memories of project whose vectors (made by model) lie
// nearest to query, nearest first, optionally only of the given kinds.
// Project is the vec0 partition key and model a metadata column, so both
// filter inside the scan and vectors of two models never mix; forgotten
// memories are dropped afterwards, so fewer than k may come back.
func (s *Store) KNN(ctx context.Context, project string, query []float32, k int, model string, kinds []string) ([]record.VectorHit, error) {
	if len(query) != record.VectorDims {
		return nil, fault.Errorf(fault.Invalid, "knn", "query vector has %d dims, the vector table holds %d", len(query), record.VectorDims)
	}
	if k < 1 || k > MaxKNN {
		return nil, fault.Errorf(fault.Invalid, "knn", "k = %d; it must be between 1 and %d", k, MaxKNN)
	}
	blob, err := sqlite_vec.SerializeFloat32(query)
	if err != nil {
		return nil, fault.E(fault.Internal, "knn", err)
	}
	var b strings.Builder
	// MATERIALIZED keeps SQLite from flattening the KNN into the join, which
	// vec0 rejects (it allows only its own ORDER BY distance).
	b.WriteString(`WITH v AS MATERIALIZED (
  SELECT memory_id, distance FROM vec_memories
  WHERE embedding MATCH ? AND k = ? AND project_path = ? AND model = ?`)
	args := []any{blob, k, project, model}
	if len(kinds) > 0 {
		b.WriteString(" AND kind IN (")
		for i, kind := range kinds {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("?")
			args = append(args, kind)
		}
		b.WriteString(")")
	}
	b.WriteString(`
)
SELECT v.memory_id, v.distance FROM v JOIN memories m ON m.id = v.memory_id AND m.forgotten = 0
ORDER BY v.distance, v.memory_id`)
	rows, err := s.db.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, classify("knn", err)
	}
	defer rows.Close()
	hits := make([]record.VectorHit, 0, k)
	for rows.Next() {
		var h record.VectorHit
		if err := rows.Scan(&h.MemoryID, &h.Distance); err != nil {
			return nil, classify("knn", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, classify("knn", err)
	}
	return hits, nil
}

// VectorCounts counts vectors by the model that made them.
func (s *Store) VectorCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT model, count(*) FROM vec_memories GROUP BY model")
	if err != nil {
		return nil, classify("count vectors", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var m string
		var n int
		if err := rows.Scan(&m, &n); err != nil {
			return nil, classify("count vectors", err)
		}
		out[m] = n
	}
	return out, classify("count vectors", rows.Err())
}
