package worker

import (
	"runtime"
	"strings"
	"sync"

	"github.com/vibe-science/vibe/internal/embed"
)

// How the resident process asks Go to schedule it (Config.OneProc, set by
// cmd/vibe-embed-worker): one processor for Go code while it serves hooks,
// every processor while a model or a project's vector codes load or a model
// embeds, and the runtime's monitor thread on its slow tick.
//
// A hook is a few hundred microseconds of work over a few goroutines (the
// connection, the handler under its budget, the records after the reply).
// With a second processor (a P) idle, each go statement and each goroutine
// woken from a wait starts an idle thread spinning on that P, which mostly
// finds nothing and sleeps again. The monitor (sysmon) sleeps deeply while
// the process idles; a hook's first system call wakes it, and it then looks
// every 20 µs until the process idles again. On one P, a SQLite call that
// outlasts two of those looks loses its P to a new thread. On two cores all
// of it is CPU taken from the hook client and from Claude Code.
//
// Measured with perf stat over 300 PostToolUse events 3 ms apart (the
// worker only): as Go starts it, 12 context switches and 0.80–0.85 ms of CPU
// per hook; one P alone 7.9 and 0.67–0.74; the slow tick alone 6.8 and
// 0.68–0.76; both 3.2 and 0.59–0.60. In make bench, both lowered every
// hook's ratio by about 0.07× (README, "Performance"). The price: the
// monitor then ticks every 10 ms, also while the process idles (about 100
// wake-ups a second; on this two-core VM 2.7 ms of CPU a second against 0.3
// without), and a hook that arrives while another runs one long SQLite call
// waits for that call to end. VIBE_WORKER_TUNING=off runs the worker as Go
// starts it.

// MonitorTick is the GODEBUG setting that keeps the monitor on its slow
// tick. Go has no API for it: with schedtrace set the monitor never sleeps
// deeply (so no system call wakes it and resets its tick to 20 µs), and at
// this period (2^31-1 ms, 24.8 days) the scheduler summary it prints for
// schedtrace comes once, at start, as the first line of the worker's log.
const MonitorTick = "schedtrace=2147483647"

// RuntimeEnv is environ with MonitorTick added to GODEBUG (after the
// settings already there), and whether it was there already. The runtime
// reads GODEBUG once, at start, so cmd/vibe-embed-worker executes itself
// again with it.
func RuntimeEnv(environ []string) (env []string, had bool) {
	env = make([]string, 0, len(environ)+1)
	found := false
	for _, kv := range environ {
		v, ok := strings.CutPrefix(kv, "GODEBUG=")
		if !ok || found {
			env = append(env, kv)
			continue
		}
		found = true
		for _, s := range strings.Split(v, ",") {
			if strings.HasPrefix(s, "schedtrace=") {
				return environ, true // set already, perhaps on purpose
			}
		}
		if v != "" {
			v += ","
		}
		env = append(env, "GODEBUG="+v+MonitorTick)
	}
	if !found {
		env = append(env, "GODEBUG="+MonitorTick)
	}
	return env, false
}

// procs narrows Go to one P (narrow) and widens it back to every P while
// any heavy work runs (wide).
type procs struct {
	mu   sync.Mutex
	on   bool // narrowed: Config.OneProc
	all  int  // GOMAXPROCS before narrowing
	busy int  // heavy work in flight
}

// narrow sets one P and remembers how many there were.
func (p *procs) narrow() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.on, p.all = true, runtime.GOMAXPROCS(1)
}

// restore gives Go back every P (Close: a process that goes on, a test).
func (p *procs) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		runtime.GOMAXPROCS(p.all)
		p.on = false
	}
}

// wide gives Go every P until the returned func is called: heavy work
// (milliseconds to seconds of CPU) would otherwise hold the one P, and a
// hook could wait up to the monitor's 10 ms tick for each turn. Each change
// stops the world for some microseconds, so it is for heavy work only.
func (p *procs) wide() (done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.on {
		return func() {}
	}
	if p.busy++; p.busy == 1 && p.all > 1 {
		runtime.GOMAXPROCS(p.all)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.busy--; p.busy == 0 && p.on && p.all > 1 {
				runtime.GOMAXPROCS(1)
			}
		})
	}
}

// forModel is wide for a model's embedding; embed.Fallback's hashing is
// microseconds and needs no second P.
func (p *procs) forModel(emb embed.Embedder) (done func()) {
	if _, ok := emb.(embed.Fallback); ok {
		return func() {}
	}
	return p.wide()
}
