package worker

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
)

// puller runs at most one lazy model download at a time.
type puller struct {
	ctx    context.Context // cancelled by Close
	wg     sync.WaitGroup
	active atomic.Bool

	mu      sync.Mutex
	retryAt map[string]time.Time // a failed download is not retried before
	lastErr string               // the last failure, for health until a pull succeeds
}

func (p *puller) err() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastErr
}

// pullDue reports whether startPull would start a download of name now.
func (w *Worker) pullDue(name string) bool {
	if !w.cfg.AutoPull || w.pull.ctx == nil || w.pull.active.Load() {
		return false
	}
	if _, ok := embed.Catalog[name]; !ok {
		return false
	}
	w.pull.mu.Lock()
	defer w.pull.mu.Unlock()
	return !w.now().Before(w.pull.retryAt[name])
}

// startPull downloads the model called name in the background when
// AutoPull is on, the model is catalogued, no download runs and the last
// one for it did not fail within PullRetry. It returns at once.
func (w *Worker) startPull(name string) {
	if !w.cfg.AutoPull || w.pull.ctx == nil {
		return
	}
	spec, ok := embed.Catalog[name]
	if !ok {
		return
	}
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
				w.pull.retryAt = map[string]time.Time{}
			}
			w.pull.retryAt[name] = w.now().Add(w.cfg.PullRetry)
			fallback := "recall stays lexical"
			if w.cfg.Fallback {
				fallback = "the fallback embedder stands in"
			}
			w.pull.lastErr = fmt.Sprintf("download model %s: %v; %s, the next attempt is in %s (or run `vibe model pull %s`)",
				name, err, fallback, w.cfg.PullRetry, name)
			w.pull.mu.Unlock()
			w.logf("%s", w.pull.err())
			return
		}
		w.pull.mu.Lock()
		w.pull.lastErr = ""
		w.pull.mu.Unlock()
		var bytes int64
		for _, r := range res {
			bytes += r.Bytes
		}
		w.logf("downloaded model %s (%d files, %d bytes) in %s", name, len(res), bytes, w.now().Sub(start).Round(time.Millisecond))
	}()
}
