package store

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// addMemories stores texts in project /p (kind note unless given) and
// returns their ids in order.
func addMemories(t *testing.T, s *Store, texts ...string) []int64 {
	t.Helper()
	ctx := context.Background()
	var ids []int64
	err := s.Tx(ctx, func(tx *Tx) error {
		for i, text := range texts {
			id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: text, At: t0.Add(time.Duration(i) * time.Second)})
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// unit returns a 384-dim unit vector along axis i (mixed with axis j by w,
// then renormalised), so distances are known exactly.
func unit(i, j int, w float32) []float32 {
	v := make([]float32, record.VectorDims)
	v[i] = 1
	v[j] += w
	n := float32(math.Sqrt(float64(1 + w*w)))
	if i == j {
		n = 1 + w
	}
	for k := range v {
		v[k] /= n
	}
	return v
}

func claimedMemories(items []record.EmbedItem) []int64 {
	out := []int64{}
	for _, it := range items {
		out = append(out, it.MemoryID)
	}
	return out
}

func queueRow(t *testing.T, s *Store, memoryID int64) (status, model string, attempts int, next int64, lastErr string) {
	t.Helper()
	var le *string
	if err := s.DB().QueryRow("SELECT status, model, attempts, next_attempt_at, last_error FROM embed_queue WHERE memory_id = ?", memoryID).
		Scan(&status, &model, &attempts, &next, &le); err != nil {
		t.Fatal(err)
	}
	if le != nil {
		lastErr = *le
	}
	return
}

func count(t *testing.T, s *Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestClaimEmbedsDueOldestFirstForModel(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ids := addMemories(t, s, "alpha", "beta", "gamma", "delta", "epsilon")
	// gamma waits in backoff, delta is forgotten, epsilon is queued for another model.
	if _, err := s.FailEmbeds(ctx, []int64{3}, "boom", t0, DefaultRetry); err != nil {
		t.Fatal(err)
	}
	s.DB().Exec("UPDATE memories SET forgotten = 1 WHERE id = ?", ids[3])
	s.DB().Exec("UPDATE embed_queue SET model = 'other' WHERE memory_id = ?", ids[4])

	tests := []struct {
		name  string
		model string
		limit int
		now   time.Time
		want  []int64
	}{
		{"due items for m", "m", 10, t0, []int64{ids[0], ids[1]}},
		{"limit", "m", 1, t0, []int64{ids[0]}},
		{"zero limit", "m", 0, t0, []int64{}},
		{"backoff over: retry comes after fresh items", "m", 10, t0.Add(30 * time.Second), []int64{ids[0], ids[1], ids[2]}},
		{"the other model sees its own and the unassigned", "other", 10, t0, []int64{ids[0], ids[1], ids[4]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ClaimEmbeds(ctx, tc.model, tc.limit, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if g := claimedMemories(got); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("claimed %v, want %v", g, tc.want)
			}
		})
	}
	got, _ := s.ClaimEmbeds(ctx, "m", 1, t0)
	want := record.EmbedItem{QueueID: 1, MemoryID: ids[0], ProjectPath: "/p", Kind: record.KindNote, Text: "alpha", CreatedAt: t0.UnixMilli()}
	if len(got) != 1 || got[0] != want {
		t.Errorf("item = %+v, want %+v", got, want)
	}
}

func TestCompleteEmbedsLeavesExactlyOneVector(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ids := addMemories(t, s, "alpha", "beta")
	items, err := s.ClaimEmbeds(ctx, "m1", 10, t0)
	if err != nil {
		t.Fatal(err)
	}
	results := []record.EmbedResult{{Item: items[0], Vector: unit(0, 0, 0)}, {Item: items[1], Vector: unit(1, 1, 0)}}
	stored, err := s.CompleteEmbeds(ctx, "m1", results, t0)
	n := len(stored)
	if err != nil || n != 2 {
		t.Fatalf("CompleteEmbeds = %d, %v; want 2, nil", n, err)
	}
	// A second completion of the same claim (a worker that stored, then was
	// killed before it knew) stores nothing more.
	stored, err = s.CompleteEmbeds(ctx, "m1", results, t0)
	n = len(stored)
	if err != nil || n != 0 {
		t.Fatalf("repeated CompleteEmbeds = %d, %v; want 0, nil", n, err)
	}
	if v := count(t, s, "SELECT count(*) FROM vec_memories"); v != 2 {
		t.Errorf("vectors = %d, want 2", v)
	}
	status, model, attempts, _, _ := queueRow(t, s, ids[0])
	if status != "done" || model != "m1" || attempts != 1 {
		t.Errorf("row = %s %s %d, want done m1 1", status, model, attempts)
	}
	// A vector of the wrong width aborts the whole transaction.
	ids2 := addMemories(t, s, "gamma", "delta")
	items, _ = s.ClaimEmbeds(ctx, "m1", 10, t0)
	_, err = s.CompleteEmbeds(ctx, "m1", []record.EmbedResult{{Item: items[0], Vector: unit(2, 2, 0)}, {Item: items[1], Vector: make([]float32, 385)}}, t0)
	if err == nil || err.Error() != "store vector: memory 4: vector has 385 dims, the vector table holds up to 384 (use a model of at most 384 dims such as potion-base-8M or all-MiniLM-L6-v2)" {
		t.Fatalf("err = %v", err)
	}
	if status, _, _, _, _ := queueRow(t, s, ids2[0]); status != "pending" {
		t.Errorf("gamma is %s after a failed transaction, want pending", status)
	}
	if v := count(t, s, "SELECT count(*) FROM vec_memories"); v != 2 {
		t.Errorf("vectors = %d after a failed transaction, want 2", v)
	}
}

func TestFailEmbedsBacksOffThenFails(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ids := addMemories(t, s, "alpha")
	p := RetryPolicy{Base: 30 * time.Second, Max: 2 * time.Minute, MaxAttempts: 4}
	steps := []struct {
		status   string
		attempts int
		delay    time.Duration
		failed   int
	}{
		{"pending", 1, 30 * time.Second, 0},
		{"pending", 2, time.Minute, 0},
		{"pending", 3, 2 * time.Minute, 0},
		{"failed", 4, 0, 1},
	}
	now := t0
	for i, st := range steps {
		failed, err := s.FailEmbeds(ctx, []int64{1}, "tokenizer error for password=hunter22", now, p)
		if err != nil {
			t.Fatal(err)
		}
		status, _, attempts, next, lastErr := queueRow(t, s, ids[0])
		wantNext := int64(0)
		if st.delay > 0 {
			wantNext = now.Add(st.delay).UnixMilli()
		}
		if status != st.status || attempts != st.attempts || next != wantNext || failed != st.failed {
			t.Errorf("step %d: %s attempts=%d next=%d failed=%d; want %s %d %d %d", i, status, attempts, next, failed,
				st.status, st.attempts, wantNext, st.failed)
		}
		if lastErr == "" || lastErr == "tokenizer error for password=hunter22" {
			t.Errorf("step %d: last_error %q is empty or unscrubbed", i, lastErr)
		}
		now = now.Add(st.delay)
	}
	// A failed row is no longer pending: failing it again changes nothing.
	if failed, err := s.FailEmbeds(ctx, []int64{1}, "again", now, p); err != nil || failed != 0 {
		t.Errorf("FailEmbeds on a failed row = %d, %v", failed, err)
	}
	c, err := s.EmbedCounts(ctx, "m", now)
	if err != nil || c != (record.EmbedCounts{Failed: 1}) {
		t.Errorf("counts = %+v, %v; want failed 1", c, err)
	}
}

func TestRetryPolicyDelay(t *testing.T) {
	tests := []struct {
		failures int
		want     time.Duration
	}{{1, 30 * time.Second}, {2, time.Minute}, {3, 2 * time.Minute}, {4, 4 * time.Minute}, {12, time.Hour}}
	for _, tc := range tests {
		if got := DefaultRetry.Delay(tc.failures); got != tc.want {
			t.Errorf("Delay(%d) = %v, want %v", tc.failures, got, tc.want)
		}
	}
}

func TestUseEmbedModelReembedsAndNeverMixes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ids := addMemories(t, s, "alpha", "beta", "gamma")
	if m, err := s.EmbedModel(ctx); err != nil || m != "" {
		t.Fatalf("EmbedModel before any use = %q, %v", m, err)
	}
	embedAll := func(model string, limit int) int {
		t.Helper()
		items, err := s.ClaimEmbeds(ctx, model, limit, t0)
		if err != nil {
			t.Fatal(err)
		}
		var rs []record.EmbedResult
		for _, it := range items {
			rs = append(rs, record.EmbedResult{Item: it, Vector: unit(int(it.MemoryID), int(it.MemoryID), 0)})
		}
		stored, err := s.CompleteEmbeds(ctx, model, rs, t0)
		n := len(stored)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := embedAll("A", 10); n != 3 {
		t.Fatalf("embedded %d with A, want 3", n)
	}
	// One row failed for good: a model switch gives it a fresh budget.
	s.DB().Exec("UPDATE embed_queue SET status = 'failed', attempts = 5 WHERE memory_id = ?", ids[2])
	s.Tx(ctx, func(tx *Tx) error { return tx.deleteVector(ctx, ids[2]) })

	n, err := s.UseEmbedModel(ctx, "B", t0)
	if err != nil || n != 3 {
		t.Fatalf("UseEmbedModel(B) = %d, %v; want 3", n, err)
	}
	if m, _ := s.EmbedModel(ctx); m != "B" {
		t.Errorf("EmbedModel = %q, want B", m)
	}
	if items, _ := s.ClaimEmbeds(ctx, "A", 10, t0); len(items) != 0 {
		t.Errorf("model A can still claim %v", claimedMemories(items))
	}
	q := unit(int(ids[0]), int(ids[0]), 0)
	knn := func(model string) []int64 {
		hits, err := s.KNN(ctx, "/p", q, 10, model, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := []int64{}
		for _, h := range hits {
			out = append(out, h.MemoryID)
		}
		return out
	}
	if got := knn("B"); len(got) != 0 {
		t.Errorf("KNN(B) before re-embedding = %v, want none", got)
	}
	if got := knn("A"); !reflect.DeepEqual(got, []int64{ids[0], ids[1]}) {
		t.Errorf("KNN(A) = %v, want the two old vectors", got)
	}
	if n := embedAll("B", 2); n != 2 {
		t.Fatalf("embedded %d with B, want 2", n)
	}
	if got := knn("B"); !reflect.DeepEqual(got, []int64{ids[0], ids[1]}) {
		t.Errorf("KNN(B) = %v", got)
	}
	if got := knn("A"); len(got) != 0 {
		t.Errorf("KNN(A) after re-embedding = %v: a memory keeps one vector", got)
	}
	// Back to A before gamma was embedded by B: alpha and beta need A again,
	// gamma's row (pending for B) is taken over by A.
	n, err = s.UseEmbedModel(ctx, "A", t0)
	if err != nil || n != 3 {
		t.Fatalf("UseEmbedModel(A) = %d, %v; want 3", n, err)
	}
	if c, _ := s.EmbedCounts(ctx, "A", t0); c != (record.EmbedCounts{Backlog: 3}) {
		t.Errorf("counts for A = %+v", c)
	}
	if c, _ := s.EmbedCounts(ctx, "B", t0); c != (record.EmbedCounts{}) {
		t.Errorf("counts for B = %+v, want nothing pending for B", c)
	}
	vc, err := s.VectorCounts(ctx)
	if err != nil || !reflect.DeepEqual(vc, map[string]int{"B": 2}) {
		t.Errorf("VectorCounts = %v, %v", vc, err)
	}
}

func TestCompleteSkipsItemsRequeuedForAnotherModel(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	addMemories(t, s, "alpha")
	items, _ := s.ClaimEmbeds(ctx, "A", 10, t0)
	// `vibe model use B` runs while the worker embeds with A.
	if _, err := s.UseEmbedModel(ctx, "B", t0); err != nil {
		t.Fatal(err)
	}
	stored, err := s.CompleteEmbeds(ctx, "A", []record.EmbedResult{{Item: items[0], Vector: unit(0, 0, 0)}}, t0)
	n := len(stored)
	if err != nil || n != 0 {
		t.Fatalf("CompleteEmbeds(A) after the switch = %d, %v; want 0", n, err)
	}
	if c, _ := s.EmbedCounts(ctx, "B", t0); c.Backlog != 1 {
		t.Errorf("B backlog = %d, want 1", c.Backlog)
	}
}

func TestEmbeddedBy(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	addMemories(t, s, "alpha")
	items, _ := s.ClaimEmbeds(ctx, "fb", 10, t0)
	if ok, err := s.EmbeddedBy(ctx, "fb"); ok || err != nil {
		t.Fatalf("before embedding: %v, %v", ok, err)
	}
	if _, err := s.CompleteEmbeds(ctx, "fb", []record.EmbedResult{{Item: items[0], Vector: unit(0, 0, 0)}}, t0); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.EmbeddedBy(ctx, "fb"); !ok || err != nil {
		t.Errorf("after embedding: %v, %v", ok, err)
	}
	if ok, _ := s.EmbeddedBy(ctx, "other"); ok {
		t.Error("another model counts as having embedded")
	}
}
