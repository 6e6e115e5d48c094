package worker

import (
	"context"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/worker/client"
)

func TestRuntimeEnv(t *testing.T) {
	tick := "GODEBUG=" + MonitorTick
	for _, c := range []struct {
		name string
		in   []string
		want []string
		had  bool
	}{
		{"no GODEBUG", []string{"HOME=/h"}, []string{"HOME=/h", tick}, false},
		{"empty GODEBUG", []string{"GODEBUG=", "HOME=/h"}, []string{tick, "HOME=/h"}, false},
		{"other settings kept", []string{"GODEBUG=madvdontneed=1,gctrace=0"}, []string{"GODEBUG=madvdontneed=1,gctrace=0," + MonitorTick}, false},
		{"set already by the user", []string{"GODEBUG=gctrace=1,schedtrace=1000"}, []string{"GODEBUG=gctrace=1,schedtrace=1000"}, true},
		{"set already by a restart", []string{"A=1", tick}, []string{"A=1", tick}, true},
		{"the first GODEBUG is the one read", []string{"GODEBUG=x=1", "GODEBUG=schedtrace=5"}, []string{"GODEBUG=x=1," + MonitorTick, "GODEBUG=schedtrace=5"}, false},
	} {
		got, had := RuntimeEnv(c.in)
		if !reflect.DeepEqual(got, c.want) || had != c.had {
			t.Errorf("%s: RuntimeEnv(%q) = %q, %v; want %q, %v", c.name, c.in, got, had, c.want, c.had)
		}
		if again, had := RuntimeEnv(got); !had || !reflect.DeepEqual(again, got) {
			t.Errorf("%s: a second RuntimeEnv changed %q to %q (had %v): the restarted process would start again", c.name, got, again, had)
		}
	}
}

// setProcs sets GOMAXPROCS for a test and restores it after.
func setProcs(t *testing.T, n int) {
	t.Helper()
	prev := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

func TestProcsWidenWhileHeavyWorkRuns(t *testing.T) {
	setProcs(t, 3)
	var off procs
	off.wide()()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("without narrow, wide changed GOMAXPROCS to %d", n)
	}
	var p procs
	p.narrow()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("narrowed: GOMAXPROCS = %d, want 1", n)
	}
	first := p.wide()
	second := p.wide()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("two heavy jobs: GOMAXPROCS = %d, want 3", n)
	}
	first()
	first() // a second call of the same done counts once
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("one heavy job left: GOMAXPROCS = %d, want 3", n)
	}
	second()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("none left: GOMAXPROCS = %d, want 1", n)
	}
	p.forModel(embed.Fallback{})()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("the fallback embedder widened: GOMAXPROCS = %d", n)
	}
	late := p.wide()
	p.restore()
	late() // ends after Close: must not narrow a process that was given back
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("restored: GOMAXPROCS = %d, want 3", n)
	}
}

// TestOneProcWidensForTheModel: the worker binary's setting runs the
// worker on one processor, the model's embeddings (the queue's and a
// query's) on all of them, and gives them back at Close.
func TestOneProcWidensForTheModel(t *testing.T) {
	setProcs(t, 3)
	p := testHome(t)
	installFakeModel(t, p, "fake")
	seedMemories(t, p, texts(6, "finding %d holds")...)
	l := &fakeLoader{}
	cfg := fastConfig(p, l, "fake")
	cfg.OneProc = true
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("open: GOMAXPROCS = %d, want 1", n)
	}
	eventually(t, 10*time.Second, "drained", func() bool { return health(t, p).Done == 6 })
	if n := l.procs.Load(); n != 3 {
		t.Errorf("while the model loaded GOMAXPROCS was %d, want 3", n)
	}
	if n := l.last().procs.Load(); n != 3 {
		t.Errorf("while the queue was embedded GOMAXPROCS was %d, want 3", n)
	}
	eventually(t, 5*time.Second, "narrowed again after the batch", func() bool { return runtime.GOMAXPROCS(0) == 1 })
	l.last().procs.Store(0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := client.Embed(ctx, p.Socket, []string{"a prompt nobody asked before"}); err != nil {
		t.Fatal(err)
	}
	if n := l.last().procs.Load(); n != 3 {
		t.Errorf("while a query was embedded GOMAXPROCS was %d, want 3", n)
	}
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("after the query: GOMAXPROCS = %d, want 1", n)
	}
	seen := make(chan int)
	w.vectors.run(func() { seen <- runtime.GOMAXPROCS(0) }) // as a load of a project's codes
	if n := <-seen; n != 3 {
		t.Errorf("while codes loaded GOMAXPROCS was %d, want 3", n)
	}
	eventually(t, 5*time.Second, "narrowed again after the codes", func() bool { return runtime.GOMAXPROCS(0) == 1 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("closed: GOMAXPROCS = %d, want 3", n)
	}
	// This test process has no schedtrace in GODEBUG: the log says so.
	log, _ := os.ReadFile(LatestLog(p.Logs))
	if want := "scheduling: one processor, every one while a model or vector codes load or a model embeds; Go's monitor as Go starts it (GODEBUG has no schedtrace)"; !strings.Contains(string(log), want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
}
