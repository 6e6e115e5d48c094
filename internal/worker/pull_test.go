package worker

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed/testmodel"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// serveModel serves a model directory's files over loopback HTTP, as the
// catalogue's host would, once release is closed (404 for what it lacks).
func serveModel(t *testing.T, dir string, release <-chan struct{}) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		http.ServeFile(w, r, filepath.Join(dir, filepath.Base(r.URL.Path)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func knnModel(t *testing.T, socket, text string) ([]client.Hit, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hits, model, err := client.KNNModel(ctx, socket, client.KNNRequest{Project: "/p", Text: text, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	return hits, model
}

// The default model is not installed: the fallback embedder drains the
// queue and answers KNN, labelled as the fallback, while the worker pulls
// the model from a loopback server; once it lands, every memory is
// embedded again by the model and KNN answers with it.
func TestFallbackThenLazyPull(t *testing.T) {
	model := testmodel.Dir(t, testmodel.Static)
	p := testHome(t)
	ids := seedMemories(t, p, texts(12, "observation %d: the knockout lowers expression in donor cells")...)
	release := make(chan struct{})
	srv := serveModel(t, model, release)
	cfg := fastConfig(p, &fakeLoader{}, embed.PotionModel)
	cfg.Load = hugotembed.Load
	cfg.Fallback, cfg.AutoPull, cfg.PullBaseURL = true, true, srv.URL
	openWorker(t, cfg)

	eventually(t, 10*time.Second, "embedded by the fallback", func() bool {
		_, vc := stats(t, p)
		return vc[embed.FallbackModel] == 12
	})
	h := health(t, p)
	if !h.Fallback || !h.Pulling || h.State != StatePulling || h.Loaded || h.Model != embed.PotionModel {
		t.Errorf("health while pulling = %+v", h)
	}
	query := "observation 7: the knockout lowers expression in donor cells"
	hits, used := knnModel(t, p.Socket, query)
	if used != embed.FallbackModel || len(hits) != 3 || hits[0].MemoryID != ids[7] || hits[0].Distance > 1e-5 {
		t.Fatalf("knn with the fallback = %+v by %q; want memory %d first, by %s", hits, used, ids[7], embed.FallbackModel)
	}

	close(release)
	eventually(t, 30*time.Second, "re-embedded by the pulled model", func() bool {
		_, vc := stats(t, p)
		return reflect.DeepEqual(vc, map[string]int{embed.PotionModel: 12})
	})
	if v, err := embed.Verify(embed.Dir(p.Models, embed.PotionModel)); v != embed.Verified || err != nil {
		t.Errorf("the pulled model verifies as %s, %v; want its first-download digests recorded", v, err)
	}
	h = health(t, p)
	if h.Fallback || h.Pulling || !h.Loaded || h.State != StateLoaded || h.Backlog != 0 || h.Done != 12 {
		t.Errorf("health after the pull = %+v", h)
	}
	hits, used = knnModel(t, p.Socket, query)
	if used != embed.PotionModel || len(hits) != 3 || hits[0].MemoryID != ids[7] || hits[0].Distance > 1e-5 {
		t.Fatalf("knn with the model = %+v by %q; want memory %d first", hits, used, ids[7])
	}
	// The second identical query comes from the query cache: same answer.
	again, _ := knnModel(t, p.Socket, query)
	if !reflect.DeepEqual(again, hits) {
		t.Errorf("cached query = %+v, first = %+v", again, hits)
	}
}

// A failed lazy pull is reported, not retried at once, and the fallback
// keeps answering.
func TestLazyPullFailureKeepsFallback(t *testing.T) {
	p := testHome(t)
	seedMemories(t, p, "alpha beta", "gamma delta")
	release := make(chan struct{})
	close(release)
	srv := serveModel(t, t.TempDir(), release) // serves nothing: 404
	cfg := fastConfig(p, &fakeLoader{}, embed.PotionModel)
	cfg.Load = hugotembed.Load
	cfg.Fallback, cfg.AutoPull, cfg.PullBaseURL = true, true, srv.URL
	openWorker(t, cfg)
	eventually(t, 10*time.Second, "the pull failed", func() bool {
		return strings.Contains(health(t, p).LastError, "download model "+embed.PotionModel)
	})
	h := health(t, p)
	want := "the fallback embedder stands in, the next attempt is in 1m0s when an embedding is needed (or run `vibe model pull " + embed.PotionModel + "`)"
	if !strings.Contains(h.LastError, "HTTP 404") || !strings.HasSuffix(h.LastError, want) || h.Pulling || h.State != StateFallback {
		t.Errorf("health = %+v", h)
	}
	if _, used := knnModel(t, p.Socket, "alpha"); used != embed.FallbackModel {
		t.Errorf("knn used %q, want the fallback", used)
	}
}

// Vectors the fallback made in an earlier run are replaced when a later
// worker starts with the model installed.
func TestFallbackVectorsReplacedAfterRestart(t *testing.T) {
	model := testmodel.Dir(t, testmodel.Static)
	p := testHome(t)
	seedMemories(t, p, texts(5, "note %d about the batch effect")...)
	cfg := fastConfig(p, &fakeLoader{}, embed.PotionModel)
	cfg.Load, cfg.Fallback = hugotembed.Load, true
	w := openWorker(t, cfg)
	eventually(t, 10*time.Second, "embedded by the fallback", func() bool {
		_, vc := stats(t, p)
		return vc[embed.FallbackModel] == 5
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := testmodel.CopyTo(model, embed.Dir(p.Models, embed.PotionModel)); err != nil {
		t.Fatal(err)
	}
	openWorker(t, cfg)
	eventually(t, 10*time.Second, "re-embedded by the model", func() bool {
		_, vc := stats(t, p)
		return reflect.DeepEqual(vc, map[string]int{embed.PotionModel: 5})
	})
}
