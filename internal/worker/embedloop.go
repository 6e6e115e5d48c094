package worker

import (
	"context"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// The embed loop: drain embed_queue in batches until Close.

// currentModel is the model `vibe model use` chose, else the settings'.
func (w *Worker) currentModel(ctx context.Context) (string, error) {
	name, err := w.reader().EmbedModel(ctx)
	if err != nil {
		return "", err
	}
	if name == "" {
		name = w.settings.Model
	}
	if name == "" {
		name = embed.DefaultModel
	}
	return name, nil
}

// queryModel is the model a query embeds with: the one the embed loop
// read at its last round of work (a round follows every connection), so a
// hook's recall costs no database read, and queries and the loop agree;
// before the loop's first round, the database's.
func (w *Worker) queryModel(ctx context.Context) (string, error) {
	if name, _, _, _ := w.models.status(); name != "" {
		return name, nil
	}
	return w.currentModel(ctx)
}

// rest is what a round returns when nothing is due: the loop then waits for
// a connection (kickLoop) and arms no timer.
const rest time.Duration = -1

// kickLoop asks the embed loop for a round of work within PollInterval:
// a connection ended (a hook may have queued memories, spooled records or
// written memories to check), or a download ended. It never blocks; one
// pending kick is enough.
func (w *Worker) kickLoop() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// loop runs rounds of work until ctx is cancelled: one at once (what the
// hooks left while no worker ran), one within PollInterval of each kick,
// and one whenever a round asked for it (more work, a retry, the model's
// idle unload, the idle exit). While nothing is due it blocks with no
// timer armed, so a resting worker does not wake up. The batch in hand when
// ctx ends is finished and stored first.
func (w *Worker) loop(ctx context.Context) {
	defer close(w.loopDone)
	timer := time.NewTimer(0)
	defer timer.Stop()
	due := time.Now() // when the timer fires; zero while it is not armed
	arm := func(d time.Duration) {
		at := time.Now().Add(d)
		if !due.IsZero() && !at.Before(due) {
			return // armed sooner already
		}
		timer.Reset(d)
		due = at
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
			arm(w.cfg.PollInterval)
			continue
		case <-timer.C:
			due = time.Time{}
		}
		w.rounds.Add(1)
		refused := w.dbRefusals
		wait := w.tick(ctx)
		if w.dbRefusals == refused {
			w.dbRefusals = 0
		}
		if ctx.Err() != nil {
			return
		}
		if replaced, settling := w.exe.check(); replaced {
			w.logf("%s was replaced by another build; this worker stops so that the new one serves the hooks", w.cfg.Executable)
		} else if settling {
			wait = shorter(wait, w.cfg.PollInterval)
		}
		if wait == 0 {
			w.touch() // working is not resting
		}
		wait = shorter(wait, w.idleExitWait())
		if wait != rest {
			arm(wait)
		}
	}
}

// dbRetryMax caps the wait after rounds the database refused in a row.
const dbRetryMax = time.Minute

// dbRetry is the wait after a round the database refused (a long lock, a
// full disk): DBRetry, doubled for each refused round in a row, at most
// dbRetryMax. Only the loop's goroutine calls it.
func (w *Worker) dbRetry() time.Duration {
	w.dbRefusals++
	return store.RetryPolicy{Base: w.cfg.DBRetry, Max: dbRetryMax}.Delay(w.dbRefusals)
}

// shorter is the sooner of two waits, rest being the longest.
func shorter(a, b time.Duration) time.Duration {
	switch {
	case a == rest:
		return b
	case b == rest:
		return a
	}
	return min(a, b)
}

// tick does one round of work and says how long to wait before the next
// (0: go on at once; rest: nothing is due).
func (w *Worker) tick(ctx context.Context) time.Duration {
	// The batch in hand must be stored even when ctx is cancelled
	// mid-batch (SIGTERM), so the work runs on an uncancelled context.
	work := context.WithoutCancel(ctx)
	w.checkDatabase(work)
	wait := rest
	if !w.replaySpool(work) {
		wait = w.dbRetry()
	}
	wait = shorter(wait, w.checkMemories(work))
	name, err := w.currentModel(work)
	if err != nil {
		w.fail("read current model: %v", err)
		return w.dbRetry()
	}
	installed := embed.Ready(embed.Dir(w.cfg.Paths.Models, name)) == nil && w.cfg.Load != nil
	w.models.note(name, installed)
	now := w.now()
	if left, due := w.models.unloadIdle(now, w.cfg.IdleUnload); due {
		wait = shorter(wait, max(left, w.cfg.PollInterval))
	}
	if installed && w.fallbackVectors.Load() {
		// The model arrived: what the fallback embedded is embedded again.
		n, err := w.store().RequeueEmbeds(work, name, now)
		if err != nil {
			w.fail("queue the fallback embedder's memories for %s: %v", name, err)
			return w.dbRetry()
		}
		w.fallbackVectors.Store(false)
		w.logf("model %s is installed: %d memories embedded by the fallback embedder are queued for it", name, n)
	}
	useFallback := !installed && w.cfg.Fallback
	if !installed && !useFallback {
		// Nothing can embed: download the model if something waits for it.
		if !w.pullCanStart(name) {
			return wait
		}
		if _, pending, err := w.reader().NextEmbedDue(work, name); err != nil || !pending {
			return wait
		}
		if left := w.pullWait(name); left > 0 {
			return shorter(wait, left)
		}
		w.startPull(name) // its end kicks the loop
		return wait
	}
	claimFor := name
	if useFallback {
		claimFor = embed.FallbackModel
	}
	items, err := w.reader().ClaimEmbeds(work, claimFor, w.cfg.BatchSize, now)
	if err != nil {
		w.fail("claim embeddings: %v", err)
		return w.dbRetry()
	}
	if len(items) == 0 {
		// Items in retry backoff: the next round is when the first is due.
		at, pending, err := w.reader().NextEmbedDue(work, claimFor)
		if err != nil {
			w.fail("read the embedding queue: %v", err)
			return w.dbRetry()
		}
		if pending {
			wait = shorter(wait, max(at.Sub(now), w.cfg.PollInterval))
		}
		return wait
	}
	var emb embed.Embedder
	if useFallback {
		w.startPull(name)
		emb = embed.Fallback{}
		w.fallbackVectors.Store(true)
		name = embed.FallbackModel
	} else {
		var release func()
		emb, release, err = w.models.acquire(name, now)
		if err != nil {
			if !errors.Is(err, errNoModel) {
				w.fail("load model %s: %v", name, err)
				return shorter(wait, w.cfg.ModelRetry)
			}
			return wait
		}
		defer release()
	}
	start := w.now()
	stored, failed := 0, 0
	for i := 0; i < len(items); i += w.cfg.ChunkSize {
		chunk := items[i:min(i+w.cfg.ChunkSize, len(items))]
		w.yieldToQueries(ctx)
		n, f, err := w.embedChunk(work, emb, chunk)
		stored, failed = stored+n, failed+f
		if err != nil {
			w.fail("store %d vectors: %v", len(chunk), err)
			return w.dbRetry()
		}
	}
	elapsed := w.now().Sub(start)
	w.logf("embedded %d of %d texts with %s in %s", stored, len(items), name, elapsed.Round(time.Millisecond))
	if failed == 0 {
		w.errMu.Lock()
		w.lastErr = ""
		w.errMu.Unlock()
	}
	return 0
}

// yieldToQueries waits while a recall query is using the model: a hook is
// waiting for it, the backlog is not. The wait is bounded so a stream of
// queries cannot starve the queue.
func (w *Worker) yieldToQueries(ctx context.Context) {
	for i := 0; i < 500 && w.queries.Load() > 0 && ctx.Err() == nil; i++ {
		time.Sleep(2 * time.Millisecond)
	}
}

// embedChunk embeds and stores one chunk. When the model fails on the
// chunk, each text is tried alone so one bad text fails alone. It returns
// how many vectors were stored and how many texts failed; an error means
// the database refused them (they stay pending).
func (w *Worker) embedChunk(ctx context.Context, emb embed.Embedder, chunk []record.EmbedItem) (stored, failedN int, err error) {
	texts := make([]string, len(chunk))
	for i, it := range chunk {
		texts[i] = it.Text
	}
	t0 := w.now()
	vecs, eerr := emb.Embed(ctx, texts)
	var results []record.EmbedResult
	var failed []int64
	var lastErr error
	if eerr == nil {
		for i, it := range chunk {
			results = append(results, record.EmbedResult{Item: it, Vector: vecs[i]})
		}
	} else {
		for _, it := range chunk {
			v, err := emb.Embed(ctx, []string{it.Text})
			if err != nil {
				failed = append(failed, it.QueueID)
				lastErr = err
				continue
			}
			results = append(results, record.EmbedResult{Item: it, Vector: v[0]})
		}
	}
	busy := w.now().Sub(t0)
	now := w.now()
	vs, err := w.store().CompleteEmbeds(ctx, emb.Model(), results, now)
	if err != nil {
		return 0, 0, err
	}
	w.vectors.put(vs)
	stored = len(vs)
	w.meter.add(now, stored, busy)
	if len(failed) > 0 {
		gaveUp, err := w.store().FailEmbeds(ctx, failed, lastErr.Error(), now, w.cfg.Retry)
		if err != nil {
			return stored, len(failed), err
		}
		w.fail("embedding failed for %d texts (%d gave up after %d attempts): %v", len(failed), gaveUp, w.cfg.Retry.MaxAttempts, lastErr)
	}
	return stored, len(failed), nil
}

// replaySpool writes what hooks spooled while the database refused them,
// when no hook event came to do it; false means the database refused them
// again (the round retries after dbRetry).
func (w *Worker) replaySpool(ctx context.Context) bool {
	path := w.cfg.Paths.Spool
	if path == "" || !store.Spooled(path) {
		return true
	}
	n, skipped, err := w.store().ReplaySpool(ctx, path)
	switch {
	case err != nil:
		w.fail("replay spool: %v", err)
		return false
	case n > 0 || skipped > 0:
		w.logf("replayed %d spooled records (%d unreadable lines skipped)", n, skipped)
	}
	return true
}
