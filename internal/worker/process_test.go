package worker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed"
	"github.com/vibe-science/vibe/internal/embed/hugotembed/testmodel"
	"github.com/vibe-science/vibe/internal/worker/client"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// pinVersion gives a binary the tests build this test binary's version:
// without it each build takes the VCS stamp of the moment it is built, and
// a commit while the tests run makes the worker and a hook client of one
// test two builds (the worker then refuses the hook).
var pinVersion = "-X github.com/vibe-science/vibe/internal/buildinfo.Version=" + buildinfo.Version

// workerBinary builds cmd/vibe-embed-worker once per test run.
func workerBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the real worker binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vwbin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, client.BinaryName)
		cmd := exec.Command("go", "build", "-tags", "sqlite_fts5", "-ldflags", pinVersion, "-o", builtBin, "github.com/vibe-science/vibe/cmd/vibe-embed-worker")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// installTiny copies the one-layer test model into the home and makes it
// current through config.json, as a user's settings would.
func installTiny(t *testing.T, p config.Paths) {
	t.Helper()
	if err := testmodel.CopyTo(testmodel.Dir(t, testmodel.Tiny), embed.Dir(p.Models, "minilm-tiny")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(p.Home, 0o755)
	if err := os.WriteFile(p.Settings, []byte(`{"model": "minilm-tiny"}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitPID waits for a started worker to hold the lock and write its pid.
func waitPID(t *testing.T, p config.Paths) int {
	t.Helper()
	var pid int
	eventually(t, 20*time.Second, "worker wrote its pid", func() bool {
		held, _ := client.LockHeld(p)
		pid = client.ReadPID(p)
		return held && pid > 0 && isWorkerProcess(pid)
	})
	return pid
}

func reap(pid int) {
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
}

func TestRealWorkerSurvivesKill9(t *testing.T) {
	bin := workerBinary(t)
	p := testHome(t)
	installTiny(t, p)
	rng := rand.New(rand.NewPCG(42, 9))
	words := strings.Fields("assay batch cohort donor effect expression knockout replicate signal variance claim seed gate confounder")
	texts := make([]string, 2000)
	for i := range texts {
		var b strings.Builder
		fmt.Fprintf(&b, "memory %d:", i)
		for range 4 + rng.IntN(8) {
			b.WriteString(" " + words[rng.IntN(len(words))])
		}
		texts[i] = b.String()
	}
	seedMemories(t, p, texts...)
	start := time.Now()
	for kill := 0; kill < 20; kill++ {
		started, err := client.EnsureRunningBinary(p, bin)
		if err != nil || !started {
			t.Fatalf("kill %d: EnsureRunning = %v, %v", kill, started, err)
		}
		pid := waitPID(t, p)
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill %d: %v", kill, err)
		}
		reap(pid)
		eventually(t, 5*time.Second, "lock released by the dead worker", func() bool {
			held, _ := client.LockHeld(p)
			return !held
		})
	}
	s, _ := stats(t, p)
	t.Logf("after 20 kills in %s: %d of 2000 done", time.Since(start).Round(time.Second), s.QueueDone)
	if _, err := client.EnsureRunningBinary(p, bin); err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, p)
	eventually(t, 3*time.Minute, "backlog drained after the kills", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		h, err := client.GetHealth(ctx, p.Socket)
		return err == nil && h.Backlog == 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if got, err := Stop(ctx, p, 20*time.Millisecond); err != nil || got != pid {
		t.Fatalf("Stop = %d, %v; want %d", got, err, pid)
	}
	reap(pid)
	s, vc := stats(t, p)
	t.Logf("finished in %s", time.Since(start).Round(time.Second))
	if s.Vectors != 2000 || s.QueueDone != 2000 || s.QueuePending != 0 || s.QueueFailed != 0 || !reflect.DeepEqual(vc, map[string]int{"minilm-tiny": 2000}) {
		t.Errorf("after the kills: vectors %d, done %d, pending %d, failed %d, by model %v; want 2000 each, one vector per item",
			s.Vectors, s.QueueDone, s.QueuePending, s.QueueFailed, vc)
	}
}

func TestRealWorkerStartIsIdempotentAndStops(t *testing.T) {
	bin := workerBinary(t)
	p := testHome(t)
	// The binary's default mode starts a detached copy and returns.
	out, err := exec.Command(bin, "--home", p.Home).CombinedOutput()
	if err != nil || string(out) != fmt.Sprintf("vibe-embed-worker: started for %s (logs in %s)\n", p.Home, p.Logs) {
		t.Fatalf("start: %v: %q", err, out)
	}
	pid := waitPID(t, p)
	eventually(t, 10*time.Second, "socket up", func() bool { return client.Listening(p.Socket) })
	begin := time.Now()
	started, err := client.EnsureRunningBinary(p, bin)
	took := time.Since(begin)
	if err != nil || started {
		t.Errorf("EnsureRunning with a worker up = %v, %v", started, err)
	}
	if took > 10*time.Millisecond {
		t.Errorf("EnsureRunning with a worker up took %s", took)
	}
	h := health(t, p)
	// The binary turns the fallback embedder on: no model is labelled so.
	if h.PID != pid || h.State != StateFallback || !h.Fallback || h.Model != embed.DefaultModel {
		t.Errorf("health = %+v", h)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if got, err := Stop(ctx, p, 20*time.Millisecond); err != nil || got != pid {
		t.Fatalf("Stop = %d, %v", got, err)
	}
	reap(pid)
	for _, f := range []string{p.PIDFile, p.Socket} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s left behind (err %v)", f, err)
		}
	}
	if _, err := Stop(ctx, p, 20*time.Millisecond); !errors.Is(err, client.ErrNotRunning) {
		t.Errorf("second Stop: %v", err)
	}
	if stderr, err := os.ReadFile(filepath.Join(p.Logs, client.StderrLog)); len(stderr) != 0 || err != nil && !os.IsNotExist(err) {
		t.Errorf("worker wrote to stderr (%v): %s", err, stderr)
	}
}

// TestRealWorkerExitsWhenIdle: the worker binary, left alone for its idle
// time (VIBE_WORKER_IDLE_EXIT), says so in its log and exits on its own,
// cleanly: lock released, socket and pid file removed, nothing on stderr.
func TestRealWorkerExitsWhenIdle(t *testing.T) {
	bin := workerBinary(t)
	p := testHome(t)
	cmd := exec.Command(bin, "--home", p.Home, "--foreground")
	cmd.Env = append(os.Environ(), "VIBE_WORKER_IDLE_EXIT=1500ms")
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker exit: %v: %s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the worker did not exit after its idle time: %s", stderr.String())
	}
	log, _ := os.ReadFile(LatestLog(p.Logs))
	for _, want := range []string{"exits after 1.5s idle)", "no hook, query or work for 1.5s: the worker exits (the next hook starts it again)", "worker stopped"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the worker's log lacks %q:\n%s", want, log)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	for _, f := range []string{p.PIDFile, p.Socket} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s left behind (err %v)", f, err)
		}
	}
	if held, err := client.LockHeld(p); held || err != nil {
		t.Errorf("lock held %v, %v after the exit", held, err)
	}
}

func TestRealHugotEndToEnd(t *testing.T) {
	if raceEnabled {
		t.Skip("gomlx's simplego backend (under hugot) has data races of its own between its worker goroutines")
	}
	p := testHome(t)
	installTiny(t, p)
	ids := seedMemories(t, p, texts(40, "observation %d: the knockout lowers expression in donor cells")...)
	cfg := fastConfig(p, &fakeLoader{}, "minilm-tiny")
	cfg.Settings = nil // read config.json like the binary does
	cfg.Load = hugotembed.Load
	openWorker(t, cfg)
	eventually(t, 2*time.Minute, "embedded with hugot", func() bool { return health(t, p).Done == 40 })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hits, err := client.KNN(ctx, p.Socket, client.KNNRequest{Project: "/p", Text: "observation 17: the knockout lowers expression in donor cells", K: 3})
	if err != nil || len(hits) != 3 || hits[0].MemoryID != ids[17] || hits[0].Distance > 1e-3 {
		t.Fatalf("knn = %+v, %v; want memory %d first at distance ~0", hits, err, ids[17])
	}
	h := health(t, p)
	if h.Model != "minilm-tiny" || !h.Loaded || h.EmbedRate <= 0 || h.RSSBytes <= 0 {
		t.Errorf("health = %+v", h)
	}
	t.Logf("tiny model: %.1f texts/s while embedding, rss %d MB", h.EmbedRate, h.RSSBytes>>20)
}

// TestForeignWorkerIsReplaced: a worker started from another copy of the
// binary (another install, or the file an upgrade replaced) is foreign to
// this install; ReplaceForeign stops it and starts this install's, whose
// pid then answers on the socket.
func TestForeignWorkerIsReplaced(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("needs /proc to tell one worker binary from another")
	}
	bin := workerBinary(t)
	other := filepath.Join(t.TempDir(), client.BinaryName)
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	p := testHome(t)
	if err := client.Spawn(p, other); err != nil {
		t.Fatal(err)
	}
	oldPID := waitPID(t, p)
	eventually(t, 10*time.Second, "socket up", func() bool { return client.Listening(p.Socket) })
	if _, foreign := client.Foreign(p, other); foreign {
		t.Fatal("the worker is foreign to the binary it runs")
	}
	if _, foreign := client.Foreign(p, bin); !foreign {
		t.Fatal("a worker of another copy is not foreign")
	}
	replaced, err := client.ReplaceForeign(p, bin, 10*time.Second)
	if err != nil || !replaced {
		t.Fatalf("ReplaceForeign = %v, %v", replaced, err)
	}
	reap(oldPID)
	eventually(t, 10*time.Second, "the new worker answers", func() bool {
		h, err := client.GetHealth(context.Background(), p.Socket)
		return err == nil && h.PID != oldPID && h.PID != 0
	})
	if _, foreign := client.Foreign(p, bin); foreign {
		t.Fatal("the replacement is still foreign")
	}
	if replaced, err := client.ReplaceForeign(p, bin, time.Second); replaced || err != nil {
		t.Fatalf("replacing our own worker: %v, %v", replaced, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if pid, err := Stop(ctx, p, 20*time.Millisecond); err == nil {
		reap(pid)
	}
}
