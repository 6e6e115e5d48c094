package worker

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vibe-science/vibe/internal/embed"
)

// How the resident process asks Go to schedule it (Config.OneProc, set by
// cmd/vibe-embed-worker unless VIBE_WORKER_TUNING=off): one processor (a P)
// for Go code; every P while heavy work runs (a model or a project's vector
// codes load, a model embeds several texts or hands its memory back, a
// handler hashes a large file, judges changed artifacts or records a
// download: hookrun.Env.Heavy); and the runtime's monitor thread on its
// 10 ms tick.
//
// A hook is a few hundred microseconds of work over a few goroutines (the
// connection, the handler under its budget, the records after the reply).
// With a second P idle, each go statement and each goroutine woken from a
// wait starts an idle thread spinning on that P, which mostly finds nothing
// and sleeps again. The monitor (sysmon) sleeps deeply while the process
// idles; a hook's first system call wakes it, and it then looks every 20 µs
// until the process idles again. On one P alone, a SQLite call that
// outlasts two of those looks loses its P to a new thread. On two cores all
// of it is CPU taken from the hook client and from Claude Code.
//
// Measured with perf stat over 300 PostToolUse events 3 ms apart (the
// worker only): as Go starts it, 12 context switches and 0.80–0.85 ms of CPU
// per hook; one P alone 7.9 and 0.67–0.74; the slow tick alone 6.8 and
// 0.68–0.76; both 3.2 and 0.59–0.60. In make bench, both together lowered
// every hook's ratio to the empty Go binary, by 0.01–0.13× (README, "Test").
// The price:
//   - the monitor ticks every 10 ms, also while the process idles: about
//     100 wake-ups a second (on the two-core development VM 1.2–2.7 ms of CPU
//     a second, against 0.3 without);
//   - a hook that arrives while other work holds the one P waits until that
//     work lets go of it or the monitor takes it back (after its 10 ms tick,
//     twice). Heavy work widens first, but the change takes effect only when
//     the applier gets the P; work nobody marks heavy (a long SQLite query,
//     the embed loop's bookkeeping) runs on the one P;
//   - a crash's or SIGQUIT's dump begins with the scheduler's state, which
//     schedtrace adds.

// MonitorTick is the GODEBUG setting that keeps the monitor on its slow
// tick. Go has no API for it: with schedtrace set the monitor never sleeps
// deeply, so a system call does not wake it and reset its tick to 20 µs
// (only taking the P back from a call that outlasted two ticks still does).
// At this period (2^31-1 ms, 24.8 days), the scheduler summary schedtrace
// prints to stderr (worker-stderr.log for a detached worker) comes only
// once the machine has been up for 24.8 days, and every 24.8 days after;
// client.Unlogged does not count it as a crash.
const MonitorTick = "schedtrace=2147483647"

// RuntimeEnv is environ with MonitorTick added to GODEBUG (after the
// settings already there, so that it is the one that counts), and whether
// GODEBUG had a schedtrace above zero already (the user's, or a restart's).
// The runtime reads GODEBUG once, at start, so cmd/vibe-embed-worker
// executes itself again with it.
func RuntimeEnv(environ []string) (env []string, had bool) {
	i := slices.IndexFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, "GODEBUG=") })
	if i < 0 {
		return append(slices.Clip(environ), "GODEBUG="+MonitorTick), false
	}
	v := environ[i][len("GODEBUG="):] // the first GODEBUG is the one Go reads
	if monitorTicks(v) {
		return environ, true
	}
	if v != "" {
		v += ","
	}
	env = slices.Clone(environ)
	env[i] = "GODEBUG=" + v + MonitorTick
	return env, false
}

// monitorTicks reports whether the GODEBUG value v sets schedtrace above
// zero: its last setting counts, as in the runtime.
func monitorTicks(v string) bool {
	on := false
	for _, s := range strings.Split(v, ",") {
		if n, ok := strings.CutPrefix(s, "schedtrace="); ok {
			k, err := strconv.Atoi(n)
			on = err == nil && k > 0
		}
	}
	return on
}

// procs narrows Go to one P (narrow) and widens it back to every P while
// any heavy work runs (wide). A goroutine of its own applies each change:
// runtime.GOMAXPROCS stops the world and waits for a garbage collection in
// progress to end, which no caller (a hook among them) should wait for.
type procs struct {
	mu      sync.Mutex
	on      bool          // narrowed: Config.OneProc
	all     int           // GOMAXPROCS before narrowing
	busy    int           // heavy work in flight
	kick    chan struct{} // wakes the applier (one pending wake-up is enough)
	stopped chan struct{} // closed when the applier returned
}

// narrow sets one P, remembers how many there were, and starts the
// applier.
func (p *procs) narrow() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.on, p.all = true, runtime.GOMAXPROCS(1)
	p.kick, p.stopped = make(chan struct{}, 1), make(chan struct{})
	go p.apply(p.kick, p.stopped)
}

// apply sets GOMAXPROCS to what busy asks for, each time it is kicked,
// until kick is closed.
func (p *procs) apply(kick <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	for range kick {
		p.mu.Lock()
		want := 1
		if p.busy > 0 {
			want = p.all
		}
		p.mu.Unlock()
		if runtime.GOMAXPROCS(0) != want {
			runtime.GOMAXPROCS(want) // a change meanwhile has kicked again
		}
	}
}

// wake kicks the applier; p.mu is held and p.on.
func (p *procs) wake() {
	select {
	case p.kick <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// restore stops the applier and gives Go back every P (Close: a process
// that goes on, a test).
func (p *procs) restore() {
	p.mu.Lock()
	if !p.on {
		p.mu.Unlock()
		return
	}
	p.on = false
	close(p.kick)
	stopped := p.stopped
	p.mu.Unlock()
	<-stopped
	runtime.GOMAXPROCS(p.all)
}

// wide gives Go every P until the returned func is called: heavy work
// (milliseconds to seconds of CPU) would otherwise hold the one P, and a
// hook would wait behind it until the monitor preempts it (its 10 ms tick,
// twice). Each change stops the world for some microseconds, so it is for
// heavy work only. The change comes from the applier, which wide lets run
// at once (runtime.Gosched); until it has, the work goes on on one P.
func (p *procs) wide() (done func()) {
	p.mu.Lock()
	if !p.on {
		p.mu.Unlock()
		return func() {}
	}
	p.busy++
	first := p.busy == 1
	if first {
		p.wake()
	}
	p.mu.Unlock()
	if first {
		runtime.Gosched()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.busy--; p.busy == 0 && p.on {
				p.wake()
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
