package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/cli"
	"github.com/vibe-science/vibe/internal/cli/clitest"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/worker"
	"github.com/vibe-science/vibe/internal/worker/client"
)

func TestNewCmdWorkerFlags(t *testing.T) {
	f, _, _ := modelTestFactory(t)
	starts := []struct {
		argv []string
		want WorkerStartOptions
	}{
		{[]string{}, WorkerStartOptions{Wait: 10 * time.Second}},
		{[]string{"--wait", "2s", "--binary", "/opt/w", "--json"}, WorkerStartOptions{Wait: 2 * time.Second, Binary: "/opt/w", JSON: true}},
	}
	for _, c := range starts {
		var got *WorkerStartOptions
		cmd := NewCmdWorkerStart(f, func(o *WorkerStartOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		got.IO, got.Paths = cli.IO{}, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("start %q: %+v, want %+v", c.argv, *got, c.want)
		}
	}
	stops := []struct {
		argv []string
		want WorkerStopOptions
	}{
		{[]string{}, WorkerStopOptions{Timeout: 30 * time.Second}},
		{[]string{"--timeout", "1m"}, WorkerStopOptions{Timeout: time.Minute}},
	}
	for _, c := range stops {
		var got *WorkerStopOptions
		cmd := NewCmdWorkerStop(f, func(o *WorkerStopOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		got.IO, got.Paths = cli.IO{}, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("stop %q: %+v, want %+v", c.argv, *got, c.want)
		}
	}
	statuses := []struct {
		argv []string
		want WorkerStatusOptions
	}{{[]string{}, WorkerStatusOptions{}}, {[]string{"--json"}, WorkerStatusOptions{JSON: true}}}
	for _, c := range statuses {
		var got *WorkerStatusOptions
		cmd := NewCmdWorkerStatus(f, func(o *WorkerStatusOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got.Binary == nil {
			t.Errorf("status %q: no Binary, so a stale worker would go unnoticed", c.argv)
		}
		clitest.Wired(t, got)
		got.IO, got.Paths, got.Store, got.Now, got.Getenv, got.Binary = cli.IO{}, nil, nil, nil, nil, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("status %q: %+v, want %+v", c.argv, *got, c.want)
		}
	}
	logs := []struct {
		argv []string
		want WorkerLogsOptions
	}{
		{[]string{}, WorkerLogsOptions{Lines: 50, Poll: 500 * time.Millisecond}},
		{[]string{"-f", "-n", "5", "--json"}, WorkerLogsOptions{Follow: true, Lines: 5, JSON: true, Poll: 500 * time.Millisecond}},
	}
	for _, c := range logs {
		var got *WorkerLogsOptions
		cmd := NewCmdWorkerLogs(f, func(o *WorkerLogsOptions) error { got = o; return nil })
		cmd.SetArgs(c.argv)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		got.IO, got.Paths = cli.IO{}, nil
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("logs %q: %+v, want %+v", c.argv, *got, c.want)
		}
	}
}

// unitEmbedder embeds every text as the same unit vector: enough for the
// CLI, which only reports what the worker says.
type unitEmbedder struct{ name string }

func (u unitEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, record.VectorDims)
		out[i][0] = 1
	}
	return out, nil
}
func (u unitEmbedder) Model() string { return u.name }
func (u unitEmbedder) Dims() int     { return record.VectorDims }
func (u unitEmbedder) Close() error  { return nil }

func seedNotes(t *testing.T, f *cli.Factory, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := f.Store(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(ctx, func(tx *store.Tx) error {
		for i := range n {
			if _, _, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: record.KindNote, Text: fmt.Sprintf("note %d", i), At: modelT0}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunWorkerStatus(t *testing.T) {
	ctx := context.Background()
	f, out, _ := modelTestFactory(t)
	p := f.Paths()
	seedNotes(t, f, 3)
	if err := runWorkerStatus(ctx, &WorkerStatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, Getenv: f.Getenv}); err != nil {
		t.Fatal(err)
	}
	want := "worker   not running: start it with `vibe worker start`\n" +
		"model    potion-base-8M: not installed: once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) and downloads the model on first need (`vibe model pull potion-base-8M` installs it now)\n" +
		"queue    backlog 3 (0 in retry backoff) · failed 0 · done 0\n"
	if out.String() != want {
		t.Errorf("down:\n%s\nwant:\n%s", out, want)
	}

	os.WriteFile(p.PIDFile, []byte("4242\n"), 0o644)
	out.Reset()
	if err := runWorkerStatus(ctx, &WorkerStatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var js map[string]any
	json.Unmarshal(out.Bytes(), &js)
	if js["running"] != false || js["note"] != "not running (stale pid file "+p.PIDFile+" names 4242): start it with `vibe worker start`" ||
		js["backlog"] != 3.0 || js["model"] != "potion-base-8M" || js["fallback"] != true {
		t.Errorf("stale pid json: %s", out)
	}

	// A running worker (in-process, same clock) answers for itself.
	dir := embed.Dir(p.Models, "mini")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, embed.ONNXFile), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, embed.TokenizerFile), []byte("x"), 0o644)
	s := config.Defaults
	s.Model = "mini"
	w := worker.New(worker.Config{Paths: p, Settings: &s, Now: f.Now, PollInterval: 10 * time.Millisecond,
		Load: func(dir string) (embed.Embedder, error) { return unitEmbedder{filepath.Base(dir)}, nil }})
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The meter is updated right after the batch commits: wait for both.
		h, err := client.GetHealth(ctx, p.Socket)
		if err == nil && h.Done == 3 && h.Throughput > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker did not drain: %+v %v", h, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	out.Reset()
	if err := runWorkerStatus(ctx, &WorkerStatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	wantLines := []string{
		fmt.Sprintf("worker   running (pid %d, version %s, up 0s)", os.Getpid(), buildinfo.Version),
		"model    mini: loaded",
		"queue    backlog 0 (0 in retry backoff) · failed 0 · done 3",
		"speed    0.1 texts/s over the last minute (0.0 texts/s while embedding)",
	}
	if len(lines) != 6 || !reflect.DeepEqual(lines[:4], wantLines) || !strings.HasPrefix(lines[4], "memory   ") || !strings.HasSuffix(lines[4], " resident") {
		t.Errorf("running:\n%s", out)
	}
	// This install's worker program is another file than the one running
	// (a rebuild replaced it): status says the worker is stale, and how to
	// replace it.
	bin := filepath.Join(t.TempDir(), client.BinaryName)
	if err := os.WriteFile(bin, []byte("the rebuilt worker"), 0o755); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runWorkerStatus(ctx, &WorkerStatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now,
		Binary: func() (string, error) { return bin, nil }}); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(out.String(), "\n")
	wantStale := fmt.Sprintf("stale    the worker (pid %d) runs another file than %s: another install's copy, or the one a rebuild replaced: hooks bypass it and run slower; `vibe setup` replaces it (or `vibe worker stop`, then `vibe worker start`)", os.Getpid(), bin)
	if len(lines) < 2 || lines[1] != wantStale {
		t.Errorf("stale worker:\n%s\nwant line 2 %q", out, wantStale)
	}
	out.Reset()
	if err := runWorkerStatus(ctx, &WorkerStatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, JSON: true,
		Binary: func() (string, error) { return bin, nil }}); err != nil {
		t.Fatal(err)
	}
	var staleJS map[string]any
	if err := json.Unmarshal(out.Bytes(), &staleJS); err != nil || !strings.HasPrefix(fmt.Sprint(staleJS["stale"]), fmt.Sprintf("the worker (pid %d) runs another file", os.Getpid())) {
		t.Errorf("stale worker json: %s %v", out, err)
	}
}

func TestRunWorkerStartStopWithoutWorker(t *testing.T) {
	ctx := context.Background()
	f, out, errOut := modelTestFactory(t)
	missing := filepath.Join(t.TempDir(), "vibe-embed-worker")
	err := runWorkerStart(ctx, &WorkerStartOptions{IO: f.IO, Paths: f.Paths, Binary: missing, Wait: time.Second})
	if err == nil || err.Error() != "worker start: start worker: "+missing+" not found: build it with `make build`" || cli.ExitCode(err) != 1 {
		t.Errorf("start: %v", err)
	}
	if err := runWorkerStop(ctx, &WorkerStopOptions{IO: f.IO, Paths: f.Paths, Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errOut.String() != "the embed worker is not running\n" {
		t.Errorf("stop: %q %q", out, errOut)
	}
}

func TestRunWorkerLogs(t *testing.T) {
	f, out, errOut := modelTestFactory(t)
	p := f.Paths()
	os.MkdirAll(p.Logs, 0o755)
	os.WriteFile(filepath.Join(p.Logs, "worker-2026-11-21.log"), []byte("2026-11-21T10:00:00.000Z old day\n"), 0o644)
	today := filepath.Join(p.Logs, "worker-2026-11-22.log")
	os.WriteFile(today, []byte("2026-11-22T09:00:00.000Z worker started\n2026-11-22T09:00:01.000Z loaded model <mini>\n2026-11-22T09:00:02.000Z embedded 3 of 3 texts\n"), 0o644)
	os.WriteFile(filepath.Join(p.Logs, client.StderrLog), []byte("panic: boom\n"), 0o644)
	ctx := context.Background()
	if err := runWorkerLogs(ctx, &WorkerLogsOptions{IO: f.IO, Paths: f.Paths, Lines: 2}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "2026-11-22T09:00:01.000Z loaded model <mini>\n2026-11-22T09:00:02.000Z embedded 3 of 3 texts\n" {
		t.Errorf("tail: %q", out)
	}
	if errOut.String() != "note: "+filepath.Join(p.Logs, client.StderrLog)+" holds 12 bytes the worker could not log itself (a crash?)\n" {
		t.Errorf("stderr: %q", errOut)
	}
	out.Reset()
	if err := runWorkerLogs(ctx, &WorkerLogsOptions{IO: f.IO, Paths: f.Paths, Lines: 1, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if out.String() != `{"logged_at":"2026-11-22T09:00:02.000Z","message":"embedded 3 of 3 texts"}`+"\n" {
		t.Errorf("json: %q", out)
	}

	// -f prints what is appended, including the next day's file.
	var follow bytes.Buffer
	fo := &WorkerLogsOptions{IO: cli.IO{Out: &follow, ErrOut: &bytes.Buffer{}}, Paths: f.Paths, Lines: 1, Follow: true, Poll: 5 * time.Millisecond}
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runWorkerLogs(fctx, fo) }()
	time.Sleep(30 * time.Millisecond)
	fh, _ := os.OpenFile(today, os.O_APPEND|os.O_WRONLY, 0o644)
	fh.WriteString("2026-11-22T23:59:59.000Z late line\n2026-11-22T23:59:59.500Z partial")
	fh.Close()
	time.Sleep(30 * time.Millisecond)
	fh, _ = os.OpenFile(today, os.O_APPEND|os.O_WRONLY, 0o644)
	fh.WriteString(" line done\n")
	fh.Close()
	os.WriteFile(filepath.Join(p.Logs, "worker-2026-11-23.log"), []byte("2026-11-23T00:00:00.000Z next day\n"), 0o644)
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := "2026-11-22T09:00:02.000Z embedded 3 of 3 texts\n" +
		"2026-11-22T23:59:59.000Z late line\n" +
		"2026-11-22T23:59:59.500Z partial line done\n" +
		"2026-11-23T00:00:00.000Z next day\n"
	if follow.String() != want {
		t.Errorf("follow:\n%s\nwant:\n%s", follow.String(), want)
	}
}

var modelT0 = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func modelTestFactory(t *testing.T) (*cli.Factory, *bytes.Buffer, *bytes.Buffer) {
	return clitest.New(t, clitest.Options{Now: modelT0})
}

// TestWorkerJSONTimeFields: every time in --json output is an RFC 3339
// string in a field named <something>_at.
func TestWorkerJSONTimeFields(t *testing.T) {
	clitest.JSONTimeFields(t, WorkerStatus{}, logLineJSON{})
}

// TestWorkerStatusSaysWhatAWorkerWouldDoWithoutItsModel: with no worker
// running and the model not installed, the model line and --json say what
// a worker started with this environment does: embed with the fallback
// embedder and download the model on first need by default; without the
// download under VIBE_MODEL_PULL=off; lexical only under
// VIBE_EMBED_FALLBACK=off (it downloads the model when it needs one
// unless VIBE_MODEL_PULL=off too).
func TestWorkerStatusSaysWhatAWorkerWouldDoWithoutItsModel(t *testing.T) {
	const fallbackNow = "not installed: once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) "
	for _, c := range []struct {
		name, pull, fallback string
		want                 string
		wantFallback         bool
	}{
		{name: "defaults", wantFallback: true,
			want: fallbackNow + "and downloads the model on first need (`vibe model pull " + embed.DefaultModel + "` installs it now)"},
		{name: "no pull", pull: "off", wantFallback: true,
			want: fallbackNow + "until `vibe model pull " + embed.DefaultModel + "` installs it (VIBE_MODEL_PULL=off: no download on first need)"},
		{name: "no fallback", fallback: "off",
			want: "not installed: recall stays lexical (VIBE_EMBED_FALLBACK=off) until the worker, once started, downloads the model on first need (`vibe model pull " + embed.DefaultModel + "` installs it now)"},
		{name: "neither, in capitals", pull: "OFF", fallback: "Off",
			want: "not installed: recall stays lexical (VIBE_EMBED_FALLBACK=off) until `vibe model pull " + embed.DefaultModel + "` installs it (VIBE_MODEL_PULL=off)"},
	} {
		f, out, _ := clitest.New(t, clitest.Options{Now: modelT0, Env: map[string]string{"VIBE_MODEL_PULL": c.pull, "VIBE_EMBED_FALLBACK": c.fallback}})
		o := clitest.Built(t, func(runF func(*WorkerStatusOptions) error) *cobra.Command { return NewCmdWorkerStatus(f, runF) })
		if err := runWorkerStatus(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		want := "worker   not running: start it with `vibe worker start`\n" +
			"model    " + embed.DefaultModel + ": " + c.want + "\n" +
			"queue    backlog 0 (0 in retry backoff) · failed 0 · done 0\n"
		if out.String() != want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, out, want)
		}
		out.Reset()
		o.JSON = true
		if err := runWorkerStatus(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		var js WorkerStatus
		if err := json.Unmarshal(out.Bytes(), &js); err != nil {
			t.Fatalf("%s: %v: %s", c.name, err, out)
		}
		if js.Running || js.State != c.want || js.Fallback != c.wantFallback {
			t.Errorf("%s: json running %v, state %q, fallback %v; want state %q, fallback %v", c.name, js.Running, js.State, js.Fallback, c.want, c.wantFallback)
		}
	}
}

// TestStateOf: an installed model is "installed, not loaded"; a model vibe
// cannot download says where its files go, fallback or not.
func TestStateOf(t *testing.T) {
	p := config.Resolve(func(k string) string {
		if k == "VIBE_HOME" {
			return "/v"
		}
		return ""
	})
	dir := embed.Dir(p.Models, "my-own")
	for _, c := range []struct {
		env          map[string]string
		want         string
		wantFallback bool
	}{
		{nil, "not installed: once started, the worker embeds with the fallback hashed-token embedder (degraded vectors) until its files are placed in " + dir + " (vibe does not know how to download it)", true},
		{map[string]string{"VIBE_EMBED_FALLBACK": "off"}, "not installed: recall stays lexical (VIBE_EMBED_FALLBACK=off) until its files are placed in " + dir + " (vibe does not know how to download it)", false},
	} {
		got, fb := StateOf(p, "my-own", func(k string) string { return c.env[k] })
		if got != c.want || fb != c.wantFallback {
			t.Errorf("%v: %q %v, want %q %v", c.env, got, fb, c.want, c.wantFallback)
		}
	}
	home := t.TempDir()
	p = config.Resolve(func(k string) string {
		if k == "VIBE_HOME" {
			return home
		}
		return ""
	})
	dir = embed.Dir(p.Models, "mini")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, embed.ONNXFile), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, embed.TokenizerFile), []byte("x"), 0o644)
	if got, fb := StateOf(p, "mini", nil); got != "installed, not loaded" || fb {
		t.Errorf("installed: %q %v", got, fb)
	}
}

// TestWorkerStatusOfARunningWorkerWithoutItsModel: a running worker
// reports its own state for a model that is not installed (the fallback
// embedder, or lexical recall without it), and status adds how to install
// the model now, which that state does not say.
func TestWorkerStatusOfARunningWorkerWithoutItsModel(t *testing.T) {
	for _, c := range []struct {
		fallback bool
		state    string
	}{{true, worker.StateFallback}, {false, worker.StateNoModel}} {
		ctx := context.Background()
		f, out, _ := modelTestFactory(t)
		p := f.Paths()
		settings := config.Defaults
		w := worker.New(worker.Config{Paths: p, Settings: &settings, Now: f.Now, PollInterval: 10 * time.Millisecond, Fallback: c.fallback,
			Load: func(dir string) (embed.Embedder, error) { return unitEmbedder{filepath.Base(dir)}, nil }})
		if err := w.Open(ctx); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			h, err := client.GetHealth(ctx, p.Socket)
			if err == nil && h.State == c.state {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("fallback %v: health %+v %v, want state %q", c.fallback, h, err, c.state)
			}
			time.Sleep(10 * time.Millisecond)
		}
		err := runWorkerStatus(ctx, &WorkerStatusOptions{IO: f.IO, Paths: f.Paths, Store: f.Store, Now: f.Now, Getenv: f.Getenv})
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.String(), "\n")
		want := []string{"model    " + embed.DefaultModel + ": " + c.state, "note: `vibe model pull " + embed.DefaultModel + "` installs the model now"}
		if len(lines) < 6 || !reflect.DeepEqual(lines[1:2], want[:1]) || !slices.Contains(lines, want[1]) {
			t.Errorf("fallback %v:\n%s\nwant the lines\n%s", c.fallback, out, strings.Join(want, "\n"))
		}
	}
}
