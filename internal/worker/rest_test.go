package worker

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed"
)

// quiet waits until the loop has done no round for settle and returns the
// rounds done by then.
func quiet(t *testing.T, w *Worker, settle time.Duration) int64 {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := w.rounds.Load()
		time.Sleep(settle)
		if w.rounds.Load() == n {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("the loop never came to rest: %d rounds", w.rounds.Load())
		}
	}
}

// TestRestingWorkerDoesNoRounds: once the queue is drained and no
// connection comes, the embed loop does no round of work at all (it used
// to look every PollInterval); a connection brings exactly one round,
// PollInterval later, and then rest again.
func TestRestingWorkerDoesNoRounds(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	seedMemories(t, p, "alpha", "beta", "gamma")
	w := openWorker(t, fastConfig(p, &fakeLoader{}, "fake")) // PollInterval 10 ms
	eventually(t, 5*time.Second, "the memories embedded", func() bool { return w.Health(context.Background()).Done == 3 })
	before := quiet(t, w, 100*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // thirty poll intervals
	if n := w.rounds.Load(); n != before {
		t.Fatalf("a resting worker did %d rounds in 300 ms", n-before)
	}
	health(t, p) // one connection
	eventually(t, 5*time.Second, "a round after the connection", func() bool { return w.rounds.Load() > before })
	if n := quiet(t, w, 100*time.Millisecond); n != before+1 {
		t.Errorf("one connection brought %d rounds, want 1", n-before)
	}
}

// TestWorkerIdleExit: Idle closes once the worker has had no connection
// and no work for IdleExit, not while connections keep coming; a negative
// IdleExit never closes it.
func TestWorkerIdleExit(t *testing.T) {
	p := testHome(t)
	cfg := fastConfig(p, &fakeLoader{}, "fake")
	cfg.IdleExit = 300 * time.Millisecond
	w := openWorker(t, cfg)
	for range 8 { // 800 ms of a connection every 100 ms
		health(t, p)
		select {
		case <-w.Idle():
			t.Fatal("Idle closed while connections kept coming")
		case <-time.After(100 * time.Millisecond):
		}
	}
	select {
	case <-w.Idle():
	case <-time.After(10 * time.Second):
		t.Fatal("Idle never closed")
	}
	health(t, p) // it still serves until closed
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	p = testHome(t)
	cfg = fastConfig(p, &fakeLoader{}, "fake")
	cfg.IdleExit = -1
	w = openWorker(t, cfg)
	quiet(t, w, 100*time.Millisecond)
	select {
	case <-w.Idle():
		t.Fatal("Idle closed with IdleExit negative")
	case <-time.After(300 * time.Millisecond):
	}
}

// TestLazyPullBacksOff: with the fallback off and memories waiting, failed
// downloads are retried after PullRetry, doubled for each failure in a row
// up to PullRetryMax, and the next attempt's wait is reported.
func TestLazyPullBacksOff(t *testing.T) {
	var mu sync.Mutex
	var attempts []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		attempts = append(attempts, time.Now()) // the first file of each attempt: 404 ends it
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	p := testHome(t)
	seedMemories(t, p, "alpha beta")
	cfg := fastConfig(p, &fakeLoader{}, embed.PotionModel)
	cfg.Load = hugotembed.Load
	cfg.AutoPull, cfg.PullBaseURL = true, srv.URL
	cfg.PullRetry, cfg.PullRetryMax = 40*time.Millisecond, 160*time.Millisecond
	w := openWorker(t, cfg)
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(attempts) }
	eventually(t, 10*time.Second, "five attempts", func() bool { return count() >= 5 })
	mu.Lock()
	at := append([]time.Time(nil), attempts...)
	mu.Unlock()
	for i, want := range []time.Duration{40, 80, 160, 160} {
		if gap := at[i+1].Sub(at[i]); gap < want*time.Millisecond {
			t.Errorf("attempt %d came %s after the one before, want at least %dms", i+2, gap, want)
		}
	}
	eventually(t, 5*time.Second, "the capped wait reported", func() bool {
		return strings.Contains(w.pull.err(), "the next attempt is in 160ms when an embedding is needed")
	})
	if e := w.pull.err(); !strings.HasPrefix(e, "download model "+embed.PotionModel+": ") || !strings.Contains(e, "HTTP 404") ||
		!strings.HasSuffix(e, "recall stays lexical, the next attempt is in 160ms when an embedding is needed (or run `vibe model pull "+embed.PotionModel+"`)") {
		t.Errorf("pull error = %q", e)
	}
}
