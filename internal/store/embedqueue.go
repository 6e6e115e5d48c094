package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// EmbedModelKey is the meta key naming the current embedding model; it
// overrides the settings file so `vibe model use` takes effect in a running
// worker.
const EmbedModelKey = "embed_model"

// ClaimEmbeds returns up to limit items that are due (pending, and
// next_attempt_at <= now) for model: items queued with an empty model
// name ("whatever model is current") or for model itself. Fresh items come oldest first, then
// retries by due time, following the partial index. Nothing is marked: one
// worker holds the lock, and an item whose worker died stays pending, which
// is what makes a kill -9 harmless.
func (s *Store) ClaimEmbeds(ctx context.Context, model string, limit int, now time.Time) ([]record.EmbedItem, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT q.id, q.memory_id, m.project_path, m.kind, m.text, m.created_at, q.attempts
FROM embed_queue q JOIN memories m ON m.id = q.memory_id
WHERE q.status = 'pending' AND q.next_attempt_at <= ? AND q.model IN ('', ?) AND m.forgotten = 0
ORDER BY q.next_attempt_at, q.id
LIMIT ?`, now.UnixMilli(), model, limit)
	if err != nil {
		return nil, classify("claim embeddings", err)
	}
	defer rows.Close()
	var out []record.EmbedItem
	for rows.Next() {
		var it record.EmbedItem
		if err := rows.Scan(&it.QueueID, &it.MemoryID, &it.ProjectPath, &it.Kind, &it.Text, &it.CreatedAt, &it.Attempts); err != nil {
			return nil, classify("claim embeddings", err)
		}
		out = append(out, it)
	}
	return out, classify("claim embeddings", rows.Err())
}

// CompleteEmbeds stores the vectors and marks their queue rows done, all in
// one transaction: for each item the old vector (any model) is deleted, the
// new one inserted, and the row marked done together, so a worker killed at
// any instant leaves each item either pending with its old state or done
// with exactly one vector. An item requeued for another model since it was
// claimed (`vibe model use` ran meanwhile) is skipped, so it is embedded
// again by the new model. It returns the vectors it stored.
func (s *Store) CompleteEmbeds(ctx context.Context, model string, results []record.EmbedResult, now time.Time) ([]record.Vector, error) {
	if len(results) == 0 {
		return nil, nil
	}
	var stored []record.Vector
	err := s.Tx(ctx, func(tx *Tx) error {
		stored = stored[:0]
		for _, r := range results {
			res, err := tx.tx.ExecContext(ctx, `
UPDATE embed_queue SET status = 'done', model = ?, attempts = attempts + 1, last_error = NULL, updated_at = ?
WHERE id = ? AND status = 'pending' AND model IN ('', ?)`,
				model, now.UnixMilli(), r.Item.QueueID, model)
			if err != nil {
				return classify("complete embedding", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			v := record.Vector{
				MemoryID: r.Item.MemoryID, ProjectPath: r.Item.ProjectPath, Embedding: r.Vector,
				Model: model, Kind: r.Item.Kind, CreatedAt: r.Item.CreatedAt,
			}
			if err := tx.PutVector(ctx, v); err != nil {
				return err
			}
			stored = append(stored, v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return stored, nil
}

// RetryPolicy is how often a failing item is retried.
type RetryPolicy struct {
	// Base is the first delay; each further failure doubles it.
	Base time.Duration
	// Max caps the delay.
	Max time.Duration
	// MaxAttempts marks the item failed once it has failed this often.
	MaxAttempts int
}

// DefaultRetry retries after 30 s, 1, 2, 4 minutes, then gives up: a text
// that fails five times in a row is broken, not unlucky, and `vibe status`
// shows it.
var DefaultRetry = RetryPolicy{Base: 30 * time.Second, Max: time.Hour, MaxAttempts: 5}

// Delay is the wait after the given number of failures (1 = first).
func (p RetryPolicy) Delay(failures int) time.Duration {
	d := p.Base
	for i := 1; i < failures && d < p.Max; i++ {
		d *= 2
	}
	return min(d, p.Max)
}

// FailEmbeds records a failed attempt for each queue row: attempts grows,
// the error is kept (scrubbed, at most 500 bytes), and the row waits
// p.Delay(attempts) or, at p.MaxAttempts, becomes 'failed'. It returns how
// many rows became failed.
func (s *Store) FailEmbeds(ctx context.Context, queueIDs []int64, reason string, now time.Time, p RetryPolicy) (int, error) {
	if p.MaxAttempts <= 0 {
		p = DefaultRetry
	}
	reason = privacy.Scrub(reason)
	if len(reason) > 500 {
		reason = reason[:500]
	}
	failed := 0
	err := s.Tx(ctx, func(tx *Tx) error {
		failed = 0
		for _, id := range queueIDs {
			var attempts int
			err := tx.tx.QueryRowContext(ctx, "SELECT attempts FROM embed_queue WHERE id = ? AND status = 'pending'", id).Scan(&attempts)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return classify("record embedding failure", err)
			}
			attempts++
			status, next := "pending", now.Add(p.Delay(attempts)).UnixMilli()
			if attempts >= p.MaxAttempts {
				status, next = "failed", 0
				failed++
			}
			if _, err := tx.tx.ExecContext(ctx, `
UPDATE embed_queue SET attempts = ?, status = ?, next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?`,
				attempts, status, next, reason, now.UnixMilli(), id); err != nil {
				return classify("record embedding failure", err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return failed, nil
}

// RequeueEmbeds queues for model every live memory whose vector was not made
// by model (none yet, another model's, or a failed row): their rows become
// pending for model with a fresh retry budget, and a memory without any
// row gets one. The worker then re-embeds them in the background while the
// old vectors stay (KNN ignores them, filtering on the model) until each is
// replaced. It returns how many memories were queued.
func (s *Store) RequeueEmbeds(ctx context.Context, model string, now time.Time) (int, error) {
	n := 0
	err := s.Tx(ctx, func(tx *Tx) error {
		var err error
		n, err = tx.requeueEmbeds(ctx, model, now)
		return err
	})
	return n, err
}

func (t *Tx) requeueEmbeds(ctx context.Context, model string, now time.Time) (int, error) {
	if model == "" {
		return 0, fault.Errorf(fault.Invalid, "requeue embeddings", "no model named")
	}
	ms := now.UnixMilli()
	// The set of memories already embedded by model is read once into a
	// temporary table: a correlated lookup into vec0 per memory is slow.
	stmts := []struct {
		op, sql string
		args    []any
	}{
		{"requeue embeddings", "CREATE TEMP TABLE IF NOT EXISTS embedded_by_model (memory_id INTEGER PRIMARY KEY)", nil},
		{"requeue embeddings", "DELETE FROM embedded_by_model", nil},
		{"requeue embeddings", "INSERT INTO embedded_by_model SELECT memory_id FROM vec_memories WHERE model = ?", []any{model}},
	}
	for _, st := range stmts {
		if _, err := t.tx.ExecContext(ctx, st.sql, st.args...); err != nil {
			return 0, classify(st.op, err)
		}
	}
	// Rows of memories model already embedded are done for it, whatever
	// an earlier switch left them as (pending for a model no longer current).
	if _, err := t.tx.ExecContext(ctx, `
UPDATE embed_queue SET model = ?, status = 'done', last_error = NULL, updated_at = ?
WHERE memory_id IN (SELECT memory_id FROM embedded_by_model) AND NOT (status = 'done' AND model = ?)`,
		model, ms, model); err != nil {
		return 0, classify("requeue embeddings", err)
	}
	if _, err := t.tx.ExecContext(ctx, `
UPDATE embed_queue SET model = ?, status = 'pending', attempts = 0, next_attempt_at = 0, last_error = NULL, updated_at = ?
WHERE memory_id IN (SELECT id FROM memories WHERE forgotten = 0)
  AND memory_id NOT IN (SELECT memory_id FROM embedded_by_model)`, model, ms); err != nil {
		return 0, classify("requeue embeddings", err)
	}
	if _, err := t.tx.ExecContext(ctx, `
INSERT INTO embed_queue (memory_id, model, created_at, updated_at)
SELECT m.id, ?, ?, ? FROM memories m
WHERE m.forgotten = 0 AND NOT EXISTS (SELECT 1 FROM embed_queue q WHERE q.memory_id = m.id)
  AND m.id NOT IN (SELECT memory_id FROM embedded_by_model)`, model, ms, ms); err != nil {
		return 0, classify("requeue embeddings", err)
	}
	var pending int
	if err := t.tx.QueryRowContext(ctx, `
SELECT count(DISTINCT q.memory_id) FROM embed_queue q JOIN memories m ON m.id = q.memory_id
WHERE m.forgotten = 0 AND q.status = 'pending' AND q.model IN ('', ?)`, model).Scan(&pending); err != nil {
		return 0, classify("requeue embeddings", err)
	}
	return pending, nil
}

// EmbedModel is the model `vibe model use` chose, "" when none was chosen
// (the settings' model applies).
func (s *Store) EmbedModel(ctx context.Context) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", EmbedModelKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, classify("read embedding model", err)
}

// UseEmbedModel makes model current and queues every memory it has not
// embedded, in one transaction. It returns how many memories wait for it.
func (s *Store) UseEmbedModel(ctx context.Context, model string, now time.Time) (int, error) {
	n := 0
	err := s.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
ON CONFLICT(key) DO UPDATE SET value = excluded.value`, EmbedModelKey, model); err != nil {
			return classify("set embedding model", err)
		}
		var err error
		n, err = tx.requeueEmbeds(ctx, model, now)
		return err
	})
	return n, err
}

// EmbedCounts counts queue rows of live memories for model.
func (s *Store) EmbedCounts(ctx context.Context, model string, now time.Time) (record.EmbedCounts, error) {
	var c record.EmbedCounts
	err := s.db.QueryRowContext(ctx, `
SELECT
  coalesce(sum(q.status = 'pending' AND q.model IN ('', ?1)), 0),
  coalesce(sum(q.status = 'pending' AND q.model IN ('', ?1) AND q.next_attempt_at > ?2), 0),
  coalesce(sum(q.status = 'failed'), 0),
  coalesce(sum(q.status = 'done'), 0)
FROM embed_queue q JOIN memories m ON m.id = q.memory_id WHERE m.forgotten = 0`, model, now.UnixMilli()).Scan(
		&c.Backlog, &c.Waiting, &c.Failed, &c.Done)
	return c, classify("count embedding queue", err)
}

// NextEmbedDue is when the first pending item for model (or for whatever
// model is current) is due, and whether there is one: the worker's embed
// loop arms its timer for it instead of looking again and again. It follows
// the partial index of pending items.
func (s *Store) NextEmbedDue(ctx context.Context, model string) (time.Time, bool, error) {
	var ms sql.NullInt64
	err := s.db.QueryRowContext(ctx, `
SELECT q.next_attempt_at FROM embed_queue q JOIN memories m ON m.id = q.memory_id
WHERE q.status = 'pending' AND q.model IN ('', ?) AND m.forgotten = 0
ORDER BY q.next_attempt_at, q.id LIMIT 1`, model).Scan(&ms)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return time.Time{}, false, nil
	case err != nil:
		return time.Time{}, false, classify("read the embedding queue", err)
	}
	return time.UnixMilli(ms.Int64), true, nil
}

// EmbeddedBy reports whether any memory's vector was made by model (its
// queue row is done for it): the worker asks it once, at start, to know
// whether the fallback embedder's vectors wait to be replaced.
func (s *Store) EmbeddedBy(ctx context.Context, model string) (bool, error) {
	var ok bool
	err := s.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM embed_queue WHERE status = 'done' AND model = ?)", model).Scan(&ok)
	return ok, classify("read embedding models", err)
}
