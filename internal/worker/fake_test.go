package worker

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
)

// fakeEmbedder gives each text a fixed random unit vector (seeded by the
// text), fails on texts containing "POISON", and can be made to block.
type fakeEmbedder struct {
	name   string
	dims   int
	calls  atomic.Int32
	texts  atomic.Int32
	closed atomic.Bool
	gate   chan struct{} // when set, Embed waits for it to close
	inside chan struct{} // when set, Embed signals it once inside
	once   sync.Once
}

func fakeVector(text string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	v := make([]float32, dims)
	var s float64
	for i := range v {
		x := rng.NormFloat64()
		v[i], s = float32(x), s+x*x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(s))
	}
	return v
}

func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if f.closed.Load() {
		return nil, errors.New("embed: model is closed")
	}
	f.calls.Add(1)
	if f.inside != nil {
		f.once.Do(func() { close(f.inside) })
	}
	if f.gate != nil {
		<-f.gate
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if strings.Contains(t, "POISON") {
			return nil, errors.New("tokenizer rejected the text")
		}
		out[i] = fakeVector(t, f.dims)
	}
	f.texts.Add(int32(len(texts)))
	return out, nil
}

func (f *fakeEmbedder) Model() string { return f.name }
func (f *fakeEmbedder) Dims() int     { return f.dims }
func (f *fakeEmbedder) Close() error  { f.closed.Store(true); return nil }

// fakeLoader hands out fakeEmbedders named after the directory and keeps
// them, so tests can look inside.
type fakeLoader struct {
	mu     sync.Mutex
	loaded []*fakeEmbedder
	dims   int
	gate   chan struct{}
	inside chan struct{}
}

func (l *fakeLoader) Load(dir string) (embed.Embedder, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dims := l.dims
	if dims == 0 {
		dims = record.VectorDims
	}
	e := &fakeEmbedder{name: filepath.Base(dir), dims: dims, gate: l.gate, inside: l.inside}
	l.loaded = append(l.loaded, e)
	return e, nil
}

func (l *fakeLoader) loads() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.loaded)
}

func (l *fakeLoader) last() *fakeEmbedder {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.loaded[len(l.loaded)-1]
}

// testHome makes a short VIBE_HOME (Unix socket paths are limited to about
// 100 bytes, and t.TempDir embeds the test name).
func testHome(t testing.TB) config.Paths {
	t.Helper()
	dir, err := os.MkdirTemp("", "vw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return config.Resolve(func(k string) string {
		if k == "VIBE_HOME" {
			return dir
		}
		return ""
	})
}

// installFakeModel makes models/<name> look installed to embed.Ready.
func installFakeModel(t *testing.T, p config.Paths, name string) {
	t.Helper()
	dir := embed.Dir(p.Models, name)
	os.MkdirAll(dir, 0o755)
	for _, f := range []string{embed.ONNXFile, embed.TokenizerFile} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("fake "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func settings(model string) *config.Settings {
	s := config.Defaults
	s.Model = model
	return &s
}

// fastConfig shrinks every interval so tests run in milliseconds.
func fastConfig(p config.Paths, l *fakeLoader, model string) Config {
	return Config{
		Paths: p, Settings: settings(model), Load: l.Load,
		PollInterval: 10 * time.Millisecond, DBRetry: 10 * time.Millisecond, ModelRetry: 50 * time.Millisecond,
		LockWait: 100 * time.Millisecond, Retry: store.RetryPolicy{Base: 10 * time.Millisecond, Max: 40 * time.Millisecond, MaxAttempts: 3},
	}
}

var t0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// seedMemories adds texts to project /p through the store, as hooks do.
func seedMemories(t *testing.T, p config.Paths, texts ...string) []int64 {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ids []int64
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for i, text := range texts {
			id, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: text,
				At: t0.Add(time.Duration(i) * time.Millisecond)})
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

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func openWorker(t *testing.T, cfg Config) *Worker {
	t.Helper()
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}
