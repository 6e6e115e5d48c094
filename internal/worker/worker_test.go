package worker

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/worker/client"
)

func health(t *testing.T, p config.Paths) client.Health {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h, err := client.GetHealth(ctx, p.Socket)
	if err != nil {
		t.Fatalf("health: %v", err)
	}
	return h
}

func stats(t *testing.T, p config.Paths) (record.Stats, map[string]int) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vc, err := st.VectorCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s, vc
}

func texts(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i)
	}
	return out
}

func TestWorkerDrainsQueueAndCleansUp(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	seedMemories(t, p, texts(50, "finding %d: the effect holds in replicate B")...)
	l := &fakeLoader{}
	cfg := fastConfig(p, l, "fake")
	cfg.BatchSize, cfg.ChunkSize = 16, 4
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The meter is updated right after each batch commits: wait for both.
	eventually(t, 10*time.Second, "backlog drained and metered", func() bool {
		h := health(t, p)
		return h.Backlog == 0 && h.Throughput == 50.0/60
	})
	h := health(t, p)
	want := client.Health{PID: os.Getpid(), Version: buildinfo.Version, Model: "fake", Loaded: true, State: StateLoaded, Done: 50}
	got := h
	got.Throughput, got.EmbedRate, got.RSSBytes, got.StartedAt = 0, 0, 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("health = %+v\nwant     %+v", got, want)
	}
	if h.Throughput != 50.0/60 || h.RSSBytes <= 0 {
		t.Errorf("throughput = %v texts/s (want 50/60), rss = %d", h.Throughput, h.RSSBytes)
	}
	// 50 texts in chunks of 4 per claim of 16: 4 claims, 13 model calls.
	if c := l.last().calls.Load(); c != 13 {
		t.Errorf("model calls = %d, want 13", c)
	}
	for _, f := range []string{p.PIDFile, p.Socket, p.LockFile} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s missing while running: %v", f, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	s, vc := stats(t, p)
	if s.Vectors != 50 || s.QueueDone != 50 || s.QueuePending != 0 || !reflect.DeepEqual(vc, map[string]int{"fake": 50}) {
		t.Errorf("after drain: %+v %v", s, vc)
	}
	for _, f := range []string{p.PIDFile, p.Socket} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s still exists after Close (err %v)", f, err)
		}
	}
	if held, _ := client.LockHeld(p); held {
		t.Error("lock still held after Close")
	}
	if !l.last().closed.Load() {
		t.Error("model not closed by Close")
	}
	log, _ := os.ReadFile(LatestLog(p.Logs))
	for _, want := range []string{"worker " + buildinfo.Version + " started", "loaded model fake", "embedded 16 of 16 texts with fake", "worker stopped"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

func TestWorkerWithoutModelLeavesQueueAndSaysLexical(t *testing.T) {
	p := testHome(t)
	seedMemories(t, p, "alpha", "beta", "gamma")
	l := &fakeLoader{}
	openWorker(t, fastConfig(p, l, "missing-model"))
	time.Sleep(100 * time.Millisecond) // several polls
	h := health(t, p)
	if h.State != StateNoModel || h.Loaded || h.Model != "missing-model" || h.Backlog != 3 || h.Done != 0 {
		t.Errorf("health = %+v", h)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: "alpha", K: 3})
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Code != client.CodeNoModel ||
		err.Error() != "knn: no embedding model installed: recall is lexical only (run `vibe model pull`)" {
		t.Errorf("knn err = %v", err)
	}
	if l.loads() != 0 {
		t.Errorf("loader called %d times for a missing model", l.loads())
	}
	// Installing the model is noticed without a restart.
	installFakeModel(t, p, "missing-model")
	eventually(t, 5*time.Second, "backlog drained after install", func() bool { return health(t, p).Backlog == 0 })
}

func TestSecondWorkerIsRefused(t *testing.T) {
	p := testHome(t)
	l := &fakeLoader{}
	openWorker(t, fastConfig(p, l, "fake"))
	w2 := New(fastConfig(p, l, "fake"))
	err := w2.Open(context.Background())
	if !errors.Is(err, ErrAlreadyRunning) || err.Error() != fmt.Sprintf("another embed worker is running for this VIBE_HOME (pid %d)", os.Getpid()) {
		t.Fatalf("second Open: %v", err)
	}
	// The refused worker must not have removed the running one's files.
	if _, err := os.Stat(p.Socket); err != nil {
		t.Errorf("socket gone after a refused start: %v", err)
	}
	if client.ReadPID(p) != os.Getpid() {
		t.Errorf("pid file changed by a refused start")
	}
}

func TestStalePIDFileIsHarmless(t *testing.T) {
	p := testHome(t)
	os.MkdirAll(p.Home, 0o755)
	os.WriteFile(p.PIDFile, []byte("999999\n"), 0o644)
	os.WriteFile(p.Socket, []byte("stale"), 0o600) // a dead worker's socket file
	l := &fakeLoader{}
	openWorker(t, fastConfig(p, l, "fake"))
	if got := client.ReadPID(p); got != os.Getpid() {
		t.Errorf("pid file = %d, want %d", got, os.Getpid())
	}
	if h := health(t, p); h.PID != os.Getpid() {
		t.Errorf("health pid = %d", h.PID)
	}
}

func TestFailingTextBacksOffThenFailsAlone(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	ids := seedMemories(t, p, "good one", "POISON pill", "good two")
	l := &fakeLoader{}
	openWorker(t, fastConfig(p, l, "fake"))
	eventually(t, 10*time.Second, "poison gave up", func() bool { return health(t, p).Failed == 1 })
	h := health(t, p)
	if h.Done != 2 || h.Backlog != 0 || !strings.Contains(h.LastError, "tokenizer rejected the text") {
		t.Errorf("health = %+v", h)
	}
	s, _ := stats(t, p)
	if s.Vectors != 2 || s.QueueFailed != 1 {
		t.Errorf("stats = %+v", s)
	}
	_ = ids
	log, _ := os.ReadFile(LatestLog(p.Logs))
	if !strings.Contains(string(log), "embedding failed for 1 texts (1 gave up after 3 attempts): tokenizer rejected the text") {
		t.Errorf("log lacks the give-up line:\n%s", log)
	}
}

func TestIdleModelIsUnloadedAndReloadedOnDemand(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	seedMemories(t, p, "alpha")
	l := &fakeLoader{}
	cfg := fastConfig(p, l, "fake")
	cfg.IdleUnload = 100 * time.Millisecond
	openWorker(t, cfg)
	eventually(t, 5*time.Second, "unloaded", func() bool {
		h := health(t, p)
		return h.Done == 1 && !h.Loaded && h.State == StateUnloaded
	})
	// The unload detaches the model at once and closes it on its own
	// goroutine (a query may still hold it), so the close is waited for.
	eventually(t, 5*time.Second, "idle model closed", func() bool { return l.last().closed.Load() })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hits, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: "alpha", K: 5})
	if err != nil || len(hits) != 1 || hits[0].MemoryID != 1 || hits[0].Distance > 1e-6 {
		t.Fatalf("knn after unload = %+v, %v", hits, err)
	}
	if l.loads() != 2 {
		t.Errorf("loads = %d, want 2 (reloaded on demand)", l.loads())
	}
	if h := health(t, p); !h.Loaded || h.State != StateLoaded {
		t.Errorf("after reload: %+v", h)
	}
	// Idle again; warm loads it without a query.
	eventually(t, 5*time.Second, "unloaded again", func() bool { return !health(t, p).Loaded })
	if err := client.Warm(ctx, p.Socket); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "warmed", func() bool { return l.loads() == 3 })
}

func TestWorkerSurvivesLockedDatabase(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	seedMemories(t, p, texts(20, "memory %d")...)
	ctx := context.Background()
	other, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	locked, release := make(chan struct{}), make(chan struct{})
	txDone := make(chan error, 1)
	go func() {
		txDone <- other.Tx(ctx, func(tx *store.Tx) error {
			// Write something so the transaction holds the write lock.
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: "written under lock", At: t0}); err != nil {
				return err
			}
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked
	l := &fakeLoader{}
	cfg := fastConfig(p, l, "fake")
	cfg.BusyTimeoutMS = 50
	openWorker(t, cfg)
	eventually(t, 5*time.Second, "a locked write was logged", func() bool {
		log, _ := os.ReadFile(LatestLog(p.Logs))
		return strings.Contains(string(log), "database is locked")
	})
	if h := health(t, p); h.Done != 0 || !strings.Contains(h.LastError, "database is locked") {
		t.Errorf("while locked: %+v", h)
	}
	close(release)
	if err := <-txDone; err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "drained after the lock", func() bool {
		h := health(t, p)
		return h.Backlog == 0 && h.Done == 21
	})
	s, _ := stats(t, p)
	if s.Vectors != 21 || s.QueueDone != 21 {
		t.Errorf("stats = %+v", s)
	}
	if h := health(t, p); h.LastError != "" {
		t.Errorf("last error not cleared after recovery: %q", h.LastError)
	}
}

func TestCloseFinishesTheBatchInHand(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	seedMemories(t, p, texts(10, "memory %d")...)
	l := &fakeLoader{gate: make(chan struct{}), inside: make(chan struct{})}
	cfg := fastConfig(p, l, "fake")
	cfg.BatchSize, cfg.ChunkSize = 6, 3
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-l.inside // the first chunk of the first batch is being embedded
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a batch was in hand", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(l.gate)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	s, _ := stats(t, p)
	if s.Vectors != 6 || s.QueueDone != 6 || s.QueuePending != 4 {
		t.Errorf("after Close: %+v; want the whole batch of 6 stored and 4 left", s)
	}
}

func TestModelSwitchReembedsInBackground(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "one")
	installFakeModel(t, p, "two")
	seedMemories(t, p, texts(12, "memory %d")...)
	l := &fakeLoader{}
	openWorker(t, fastConfig(p, l, "one"))
	eventually(t, 5*time.Second, "embedded by one", func() bool { return health(t, p).Done == 12 })
	ctx := context.Background()
	st, err := store.Open(ctx, p.DB, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.UseEmbedModel(ctx, "two", t0); err != nil || n != 12 {
		t.Fatalf("UseEmbedModel = %d, %v", n, err)
	}
	eventually(t, 5*time.Second, "re-embedded by two", func() bool {
		h := health(t, p)
		return h.Model == "two" && h.Backlog == 0 && h.Done == 12
	})
	vc, _ := st.VectorCounts(ctx)
	if !reflect.DeepEqual(vc, map[string]int{"two": 12}) {
		t.Errorf("vectors by model = %v", vc)
	}
	if !l.loaded[0].closed.Load() {
		t.Error("model one not closed after the switch")
	}
}

func TestWrongDimsModelIsRefused(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "wide")
	seedMemories(t, p, "alpha")
	l := &fakeLoader{dims: 768}
	openWorker(t, fastConfig(p, l, "wide"))
	want := "error: model wide gives 768-dim vectors, the vector table holds up to 384: use a model of at most 384 dims (such as potion-base-8M) with `vibe model use`"
	eventually(t, 5*time.Second, "refused", func() bool { return health(t, p).State == want })
	if h := health(t, p); h.Backlog != 1 || h.Loaded {
		t.Errorf("health = %+v", h)
	}
}

func TestSocketProtocol(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	ids := seedMemories(t, p, "the knockout lowers expression", "batch effect explains clusters", "seed: check donor age")
	l := &fakeLoader{}
	openWorker(t, fastConfig(p, l, "fake"))
	eventually(t, 5*time.Second, "drained", func() bool { return health(t, p).Done == 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	vecs, model, err := client.Embed(ctx, p.Socket, []string{"x", "y"})
	if err != nil || model != "fake" || !reflect.DeepEqual(vecs, [][]float32{fakeVector("x", 384), fakeVector("y", 384)}) {
		t.Errorf("embed = %d vectors, %q, %v", len(vecs), model, err)
	}
	hits, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: "batch effect explains clusters", K: 2})
	if err != nil || len(hits) != 2 || hits[0].MemoryID != ids[1] || hits[0].Distance > 1e-6 || hits[1].Distance < 0.5 {
		t.Errorf("knn = %+v, %v", hits, err)
	}
	if hits, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/elsewhere", Text: "x", K: 2}); err != nil || len(hits) != 0 {
		t.Errorf("knn in another project = %+v, %v", hits, err)
	}
	refusals := []struct {
		req  client.Request
		code string
		msg  string
	}{
		{client.Request{Op: "dance"}, client.CodeInvalid, `unknown op "dance": use health, warm, embed, knn (hook events come as frames)`},
		{client.Request{Op: client.OpEmbed}, client.CodeInvalid, "embed takes 1 to 256 texts, got 0"},
		{client.Request{Op: client.OpKNN, Text: "x"}, client.CodeInvalid, "knn needs a project and a text"},
		{client.Request{Op: client.OpKNN, Project: "/p", Text: "x", K: 5000}, client.CodeInvalid, "knn k = 5000; at most 4096"},
	}
	for _, r := range refusals {
		resp, err := client.Call(ctx, p.Socket, r.req)
		var ce *client.Error
		if !errors.As(err, &ce) || ce.Code != r.code || ce.Message != r.msg || resp == nil || resp.OK {
			t.Errorf("%+v: err = %v", r.req, err)
		}
	}
	// Several requests on one connection, and a line that is not JSON.
	raw := rawExchange(t, p.Socket, "{\"op\":\"health\"}\nnot json\n{\"op\":\"health\"}\n", 3)
	if !strings.HasPrefix(raw[0], `{"ok":true`) || raw[1] != `{"ok":false,"error":"request is not JSON: invalid character 'o' in literal null (expecting 'u')","code":"invalid"}` ||
		!strings.HasPrefix(raw[2], `{"ok":true`) {
		t.Errorf("exchange = %q", raw)
	}
	// A hook frame that is damaged or names no hook is refused, in a frame.
	for frame, want := range map[string]string{
		"HOOK stop v 3 0\nVIBE\n":                    "NO invalid hook frame: more bytes than announced",
		"HOOK dance " + buildinfo.Version + " 0 0\n": `NO invalid no hook "dance"`,
		"HOOK stop other-build 0 0\n":                "NO version the worker is build " + buildinfo.Version + ", the hook other-build",
	} {
		if got := rawExchange(t, p.Socket, frame, 1)[0]; !strings.HasPrefix(got, want) {
			t.Errorf("%q: reply %q, want %q…", frame, got, want)
		}
	}
}

func TestClientFailsFastWithoutWorker(t *testing.T) {
	p := testHome(t)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: "x", K: 3})
	took := time.Since(start)
	if !errors.Is(err, client.ErrUnavailable) || !strings.Contains(err.Error(), "no such file or directory (start it with `vibe worker start`)") {
		t.Errorf("err = %v", err)
	}
	if took > 20*time.Millisecond {
		t.Errorf("failing without a worker took %s; a hook must fall back at once", took)
	}
	// A socket file nobody listens on (a crashed worker) also fails at once.
	os.MkdirAll(p.Home, 0o755)
	os.WriteFile(p.Socket, nil, 0o600)
	start = time.Now()
	if _, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: "x", K: 3}); !errors.Is(err, client.ErrUnavailable) {
		t.Errorf("stale socket: err = %v", err)
	}
	if took := time.Since(start); took > 20*time.Millisecond {
		t.Errorf("stale socket took %s", took)
	}
}

func TestClientHonoursDeadline(t *testing.T) {
	p := testHome(t)
	installFakeModel(t, p, "fake")
	l := &fakeLoader{gate: make(chan struct{})}
	openWorker(t, fastConfig(p, l, "fake"))
	defer close(l.gate) // let the stuck request finish before Close
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: "x", K: 3})
	took := time.Since(start)
	if !errors.Is(err, client.ErrUnavailable) || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Errorf("err = %v", err)
	}
	if took < 90*time.Millisecond || took > 300*time.Millisecond {
		t.Errorf("call took %s with a 100ms deadline", took)
	}
}

var _ = math.Abs

// TestWorkerHomeIsPrivate: the socket's folder (VIBE_HOME) is 0700 after
// Open, also when an older install left it 0755, and so are the logs.
func TestWorkerHomeIsPrivate(t *testing.T) {
	p := testHome(t)
	os.MkdirAll(p.Home, 0o755)
	os.Chmod(p.Home, 0o755)
	w := New(fastConfig(p, nil, "fake"))
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for path, mode := range map[string]os.FileMode{p.Home: 0o700, p.Logs: 0o700, p.DB: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want %v", path, st.Mode().Perm(), err, mode)
		}
	}
	logs, _ := os.ReadDir(p.Logs)
	for _, l := range logs {
		if info, _ := l.Info(); info.Mode().Perm() != 0o600 {
			t.Errorf("log %s is %v", l.Name(), info.Mode().Perm())
		}
	}
	if len(logs) == 0 {
		t.Error("no log written")
	}
}
