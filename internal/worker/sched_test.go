package worker

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
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
		{"schedtrace off", []string{"GODEBUG=schedtrace=0"}, []string{"GODEBUG=schedtrace=0," + MonitorTick}, false},
		{"schedtrace unreadable", []string{"GODEBUG=schedtrace=soon"}, []string{"GODEBUG=schedtrace=soon," + MonitorTick}, false},
		{"the last schedtrace counts: off", []string{"GODEBUG=schedtrace=5,schedtrace=0"}, []string{"GODEBUG=schedtrace=5,schedtrace=0," + MonitorTick}, false},
		{"the last schedtrace counts: on", []string{"GODEBUG=schedtrace=0,schedtrace=5"}, []string{"GODEBUG=schedtrace=0,schedtrace=5"}, true},
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

// waitProcs waits for the applier to set GOMAXPROCS to n.
func waitProcs(t *testing.T, n int, what string) {
	t.Helper()
	eventually(t, 5*time.Second, fmt.Sprintf("%s: GOMAXPROCS %d", what, n), func() bool { return runtime.GOMAXPROCS(0) == n })
}

func TestProcsWidenWhileHeavyWorkRuns(t *testing.T) {
	setProcs(t, 3)
	var off procs
	off.wide()()
	off.restore()
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Fatalf("without narrow, wide or restore changed GOMAXPROCS to %d", n)
	}
	var p procs
	p.narrow()
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("narrowed: GOMAXPROCS = %d, want 1", n)
	}
	first := p.wide()
	second := p.wide()
	waitProcs(t, 3, "two heavy jobs")
	first()
	first() // a second call of the same done counts once
	time.Sleep(20 * time.Millisecond)
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("one heavy job left: GOMAXPROCS = %d, want 3", n)
	}
	second()
	waitProcs(t, 1, "none left")
	p.forModel(embed.Fallback{})()
	time.Sleep(20 * time.Millisecond)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Errorf("the fallback embedder widened: GOMAXPROCS = %d", n)
	}
	late := p.wide()
	p.restore()
	late() // ends after Close: must not narrow a process that was given back
	time.Sleep(20 * time.Millisecond)
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("restored: GOMAXPROCS = %d, want 3", n)
	}
	p.restore() // twice is harmless
}

// TestProcsRace turns heavy work on and off from many goroutines while
// the applier runs (go test -race), and ends narrowed.
func TestProcsRace(t *testing.T) {
	setProcs(t, 2)
	var p procs
	p.narrow()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				p.wide()()
			}
		}()
	}
	wg.Wait()
	waitProcs(t, 1, "all heavy work done")
	p.restore()
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Errorf("restored: GOMAXPROCS = %d, want 2", n)
	}
}

// TestOneProcWidensForTheModel: the worker binary's setting runs the
// worker on one processor, a model's load and embeddings (the queue's and
// a query's of several texts) and a load of vector codes on all of them,
// and gives them back at Close.
func TestOneProcWidensForTheModel(t *testing.T) {
	setProcs(t, 3)
	p := testHome(t)
	seedMemories(t, p, texts(6, "finding %d holds")...)
	l := &fakeLoader{awaitWide: true}
	cfg := fastConfig(p, l, "fake")
	cfg.OneProc = true
	w := New(cfg)
	if err := w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != 1 { // no model yet: nothing heavy
		t.Errorf("open: GOMAXPROCS = %d, want 1", n)
	}
	installFakeModel(t, p, "fake")
	eventually(t, 10*time.Second, "drained", func() bool { return health(t, p).Done == 6 })
	if n := l.procs.Load(); n != 3 {
		t.Errorf("while the model loaded GOMAXPROCS was %d, want 3", n)
	}
	if n := l.last().procs.Load(); n != 3 {
		t.Errorf("while the queue was embedded GOMAXPROCS was %d, want 3", n)
	}
	waitProcs(t, 1, "after the batch")
	l.last().procs.Store(0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := client.Embed(ctx, p.Socket, []string{"two texts", "nobody asked before"}); err != nil {
		t.Fatal(err)
	}
	if n := l.last().procs.Load(); n != 3 {
		t.Errorf("while a query was embedded GOMAXPROCS was %d, want 3", n)
	}
	waitProcs(t, 1, "after the query")
	seen := make(chan int)
	w.vectors.run(func() { seen <- awaitWide() }) // as a load of a project's codes
	if n := <-seen; n != 3 {
		t.Errorf("while codes loaded GOMAXPROCS was %d, want 3", n)
	}
	waitProcs(t, 1, "after the codes")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("closed: GOMAXPROCS = %d, want 3", n)
	}
	// This test process has no schedtrace in GODEBUG: the log says so.
	log, _ := os.ReadFile(LatestLog(p.Logs))
	if want := "scheduling: one processor, every one while heavy work runs; Go's monitor as Go starts it (GODEBUG has no schedtrace)"; !strings.Contains(string(log), want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
}
