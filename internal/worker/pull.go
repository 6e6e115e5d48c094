package worker

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
)

// puller runs at most one lazy model download at a time. A failed one is
// retried with a backoff that doubles from Config.PullRetry up to
// Config.PullRetryMax, and only when an embedding is needed then: an
// offline machine is asked nothing while nothing needs the model.
type puller struct {
	ctx    context.Context // cancelled by Close
	wg     sync.WaitGroup
	active atomic.Bool

	mu       sync.Mutex
	failures map[string]int       // failed downloads in a row, by model
	retryAt  map[string]time.Time // a failed download is not retried before
	lastErr  string               // the last failure, for health until a pull succeeds
}

func (p *puller) err() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr
}

// pullCanStart reports whether startPull would download name at all
// (AutoPull on, the model catalogued), whatever its backoff.
func (w *Worker) pullCanStart(name string) bool {
	_, ok := embed.Catalog[name]
	return ok && w.cfg.AutoPull && w.pull.ctx != nil
}

// pullWait is how long a download of name must wait for its backoff; 0:
// it may start now (or one is running, which kicks the loop when it ends).
func (w *Worker) pullWait(name string) time.Duration {
	w.pull.mu.Lock()
	defer w.pull.mu.Unlock()
	return max(w.pull.retryAt[name].Sub(w.now()), 0)
}

// startPull downloads the model called name in the background when
// AutoPull is on, the model is catalogued, no download runs and the
// backoff of the last failed one has passed. It returns at once; when the
// download ends the embed loop is kicked (the model, or the next attempt's
// time, changes what it does).
func (w *Worker) startPull(name string) {
	if !w.pullCanStart(name) {
		return
	}
	spec := embed.Catalog[name]
	now := w.now()
	w.pull.mu.Lock()
	if now.Before(w.pull.retryAt[name]) || !w.pull.active.CompareAndSwap(false, true) {
		w.pull.mu.Unlock()
		return
	}
	w.pull.mu.Unlock()
	dir := embed.Dir(w.cfg.Paths.Models, name)
	w.pull.wg.Add(1)
	go func() {
		defer w.pull.wg.Done()
		defer w.kickLoop()
		defer w.pull.active.Store(false)
		base := spec.BaseURL
		if w.cfg.PullBaseURL != "" {
			base = w.cfg.PullBaseURL
		}
		w.logf("model %s is not installed and an embedding is needed: downloading it in the background from %s", name, base)
		start := w.now()
		res, err := embed.Pull(w.pull.ctx, spec, dir, embed.PullOptions{BaseURL: w.cfg.PullBaseURL})
		if err != nil {
			w.pull.mu.Lock()
			if w.pull.retryAt == nil {
				w.pull.retryAt, w.pull.failures = map[string]time.Time{}, map[string]int{}
			}
			w.pull.failures[name]++
			wait := store.RetryPolicy{Base: w.cfg.PullRetry, Max: w.cfg.PullRetryMax}.Delay(w.pull.failures[name])
			w.pull.retryAt[name] = w.now().Add(wait)
			fallback := "recall stays lexical"
			if w.cfg.Fallback {
				fallback = "the fallback embedder stands in"
			}
			w.pull.lastErr = fmt.Sprintf("download model %s: %v; %s, the next attempt is in %s when an embedding is needed (or run `vibe model pull %s`)",
				name, err, fallback, wait, name)
			w.pull.mu.Unlock()
			w.logf("%s", w.pull.err())
			return
		}
		w.pull.mu.Lock()
		w.pull.lastErr = ""
		delete(w.pull.failures, name)
		delete(w.pull.retryAt, name)
		w.pull.mu.Unlock()
		var bytes int64
		for _, r := range res {
			bytes += r.Bytes
		}
		w.logf("downloaded model %s (%d files, %d bytes) in %s", name, len(res), bytes, w.now().Sub(start).Round(time.Millisecond))
	}()
}
