package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

// padVector returns v zero-padded to VectorDims, or an error when it is
// wider.
func padVector(op, what string, v []float32) ([]float32, error) {
	if err := checkDims(op, what, v); err != nil {
		return nil, err
	}
	if len(v) == record.VectorDims {
		return v, nil
	}
	out := make([]float32, record.VectorDims)
	copy(out, v)
	return out, nil
}

// checkDims refuses a vector the table cannot hold: none, or more than
// record.VectorDims dims.
func checkDims(op, what string, v []float32) error {
	if len(v) == 0 || len(v) > record.VectorDims {
		return fault.Errorf(fault.Invalid, op,
			"%s has %d dims, the vector table holds up to %d (use a model of at most %d dims such as potion-base-8M or all-MiniLM-L6-v2)",
			what, len(v), record.VectorDims, record.VectorDims)
	}
	return nil
}

// CheckKNN refuses a KNN query no vector table answers: a query vector of
// no or too many dims, or k outside 1..MaxKNN. KNN and the worker's index
// (which reranks in memory) apply it alike.
func CheckKNN(query []float32, k int) error {
	if err := checkDims("knn", "query vector", query); err != nil {
		return err
	}
	if k < 1 || k > MaxKNN {
		return fault.Errorf(fault.Invalid, "knn", "k = %d; it must be between 1 and %d", k, MaxKNN)
	}
	return nil
}

// idList is ids as a JSON array, for `IN (SELECT value FROM json_each(?))`:
// one statement whatever the number of ids, which the statement cache keeps
// prepared (a list of placeholders is a new statement for every length).
func idList(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// Shortlist is how many candidates the Hamming scan hands to the exact
// rerank for a k (here and in the resident process's in-memory scan). vec0's top-k costs about k passes over each chunk, so
// the shortlist is kept short: twice k and never under 100 (on clustered
// random 384-dim vectors that finds 99.5% of the exact top 10; a shortlist
// of 64 found 94%, of k alone 38%).
func Shortlist(k int) int { return min(MaxKNN, max(2*k, 100)) }

// MaxKNN is sqlite-vec's largest k.
const MaxKNN = 4096

// PutVector replaces the memory's vector: a memory has at most one, and it
// records the model that made it.
func (t *Tx) PutVector(ctx context.Context, v record.Vector) error {
	emb, err := padVector("store vector", fmt.Sprintf("memory %d: vector", v.MemoryID), v.Embedding)
	if err != nil {
		return err
	}
	blob, err := sqlite_vec.SerializeFloat32(emb)
	if err != nil {
		return fault.E(fault.Internal, "store vector", err)
	}
	if err := t.deleteVector(ctx, v.MemoryID); err != nil {
		return err
	}
	if _, err = t.tx.ExecContext(ctx, `
INSERT INTO vec_memories (memory_id, project_path, embedding, model, kind, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		v.MemoryID, v.ProjectPath, blob, v.Model, v.Kind, v.CreatedAt); err != nil {
		return classify("store vector", err)
	}
	if _, err = t.tx.ExecContext(ctx, `
INSERT INTO vec_memories_bits (memory_id, project_path, embedding, model, kind) VALUES (?, ?, vec_quantize_binary(?), ?, ?)`,
		v.MemoryID, v.ProjectPath, blob, v.Model, v.Kind); err != nil {
		return classify("store vector bits", err)
	}
	_, err = t.tx.ExecContext(ctx, "INSERT INTO vec_floats (memory_id, embedding) VALUES (?, ?)", v.MemoryID, blob)
	return classify("store vector floats", err)
}

// deleteVector removes a memory's vector and its binary code.
func (t *Tx) deleteVector(ctx context.Context, id int64) error {
	if _, err := t.tx.ExecContext(ctx, "DELETE FROM vec_memories WHERE memory_id = ?", id); err != nil {
		return classify("delete vector", err)
	}
	if _, err := t.tx.ExecContext(ctx, "DELETE FROM vec_memories_bits WHERE memory_id = ?", id); err != nil {
		return classify("delete vector bits", err)
	}
	_, err := t.tx.ExecContext(ctx, "DELETE FROM vec_floats WHERE memory_id = ?", id)
	return classify("delete vector floats", err)
}

// KNN returns the k memories of project whose vectors (made by model) lie
// nearest to query, nearest first, optionally only of the given kinds.
// Project is the vec0 partition key and model a metadata column, so both
// filter inside the scan and vectors of two models never mix; forgotten
// memories are dropped afterwards, so fewer than k may come back.
//
// The scan runs over the binary codes (vec_memories_bits, Hamming
// distance), and the shortlist is reranked by the exact L2 distance of the
// float vectors read from vec_floats (B-tree lookups; vec0's own point
// lookups cost up to a millisecond each): the float vec0 scan alone took
// 73 ms p50 at 100k vectors on two cores (`make bench` has the new figure).
func (s *Store) KNN(ctx context.Context, project string, query []float32, k int, model string, kinds []string) ([]record.VectorHit, error) {
	if err := CheckKNN(query, k); err != nil {
		return nil, err
	}
	query, err := padVector("knn", "query vector", query)
	if err != nil {
		return nil, err
	}
	blob, err := sqlite_vec.SerializeFloat32(query)
	if err != nil {
		return nil, fault.E(fault.Internal, "knn", err)
	}
	var b strings.Builder
	// MATERIALIZED keeps SQLite from flattening the KNN into the join, which
	// vec0 rejects (it allows only its own ORDER BY distance).
	b.WriteString(`WITH c AS MATERIALIZED (
  SELECT memory_id FROM vec_memories_bits
  WHERE embedding MATCH vec_quantize_binary(?) AND k = ? AND project_path = ? AND model = ?`)
	args := []any{blob, Shortlist(k), project, model}
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
SELECT c.memory_id, vec_distance_l2(f.embedding, ?) AS d
FROM c JOIN vec_floats f ON f.memory_id = c.memory_id JOIN memories m ON m.id = c.memory_id AND m.forgotten = 0
ORDER BY d, c.memory_id LIMIT ?`)
	args = append(args, blob, k)
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
	return hits, classify("knn", rows.Err())
}

// VectorCodes calls fn with the binary code (vec_quantize_binary's bytes)
// of every vector of project made by model, with its memory's kind: what
// the resident process loads into its in-memory index (internal/vecindex)
// once per project, to scan in Go instead of in vec0.
func (s *Store) VectorCodes(ctx context.Context, project, model string, fn func(id int64, kind string, code []byte)) error {
	rows, err := s.db.QueryContext(ctx, `
SELECT memory_id, kind, embedding FROM vec_memories_bits WHERE project_path = ? AND model = ?`, project, model)
	if err != nil {
		return classify("read vector codes", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var kind string
		var code []byte
		if err := rows.Scan(&id, &kind, &code); err != nil {
			return classify("read vector codes", err)
		}
		fn(id, kind, code)
	}
	return classify("read vector codes", rows.Err())
}

// VectorFloats reads the float vectors of ids (as stored: padded to
// record.VectorDims), for the ids whose vector exists and whose memory is
// not forgotten (any other is left out): what the worker's rerank has not
// kept in memory.
func (s *Store) VectorFloats(ctx context.Context, ids []int64, fn func(id int64, embedding []byte)) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT f.memory_id, f.embedding
FROM vec_floats f JOIN memories m ON m.id = f.memory_id AND m.forgotten = 0
WHERE f.memory_id IN (SELECT value FROM json_each(?))`, idList(ids))
	if err != nil {
		return classify("read vectors", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return classify("read vectors", err)
		}
		fn(id, b)
	}
	return classify("read vectors", rows.Err())
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
