package worker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/buildinfo"
	hookclient "github.com/vibe-science/vibe/internal/client"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/wire"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// The hook host: run the hook events the per-event clients relay, on the
// open database, each handler counted and under the process's context.

// handleHook answers the one hook frame a hook binary sends.
func (w *Worker) handleHook(conn net.Conn, r io.Reader) {
	var reply wire.HookReply
	later := &afterReply{w: w}
	req, err := wire.ReadHookRequest(r, maxLine)
	start := time.Now()
	if err != nil {
		reply = wire.HookReply{Code: client.CodeInvalid, Error: err.Error()}
	} else {
		reply = w.runHook(req, later)
	}
	done := func() {}
	if later.pendingOrdered() {
		done = w.after.hold(later) // before the reply: a hook that follows it waits for this work
	}
	conn.SetWriteDeadline(time.Now().Add(connIdle))
	conn.Write(wire.AppendHookReply(nil, reply))
	conn.Close() // the client has its reply; what follows is the worker's own
	if w.replied != nil {
		w.replied(req.Hook, time.Since(start))
	}
	later.run()
	done()
}

// runHook runs a hook event in the worker, on the database it holds open,
// for a hook client of the same build (another build's handlers may decide
// differently, so its client runs them itself). The hook's own time budget
// and failure policy apply as in the hook binary.
func (w *Worker) runHook(req wire.HookRequest, later *afterReply) wire.HookReply {
	if req.Version != buildinfo.Version {
		return wire.HookReply{Code: client.CodeVersion, Error: fmt.Sprintf(
			"the worker is build %s, the hook %s: the hook runs its handler itself", buildinfo.Version, req.Version)}
	}
	spec, err := w.cfg.Lookup(req.Hook)
	if err != nil {
		return wire.HookReply{Code: client.CodeInvalid, Error: err.Error()}
	}
	vars := make(map[string]string, len(req.Env))
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	// What earlier hooks recorded after their replies for the hooks that
	// follow is there before this one reads (afterGate).
	if limit := afterWait(spec.Budget); !w.after.wait(w.hookCtx, limit) && w.hookCtx.Err() == nil {
		w.logf("%s: went on after waiting %v for earlier hooks' records", req.Hook, limit)
	}
	w.checkDatabase(context.Background())
	var stdout, stderr bytes.Buffer
	env := &hookrun.Env{Stdin: bytes.NewReader(req.Stdin), Stdout: &stdout, Stderr: &stderr, Now: w.now,
		Getenv: func(k string) string { return vars[k] }, Context: w.hookCtx, Go: w.goHandler, After: later.add, AfterOrdered: later.addOrdered, Query: w.query, StartQuery: w.startQuery}
	env.UseStore(w.store())
	if n := w.notice.Swap(nil); n != nil {
		env.Note("%s", *n)
	}
	code := hookclient.Main(spec, env) // hookrun.Main, in the dialect the hook command names (--client)
	return wire.HookReply{Exit: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
}

// handlerWarn is how long Close waits for handlers before it logs that it
// still waits (a handler that ignores its context; a second SIGTERM ends
// the process at once).
const handlerWarn = 5 * time.Second

func (w *Worker) waitHandlers() {
	done := make(chan struct{})
	go func() { w.handlers.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(handlerWarn):
		w.logf("waiting for hook handlers that ignore cancellation; the database closes when they return")
	}
	<-done
}

// goHandler runs a hook handler counted in w.handlers.
func (w *Worker) goHandler(f func()) {
	w.handlers.Add(1)
	go func() {
		defer w.handlers.Done()
		growStack()
		f()
	}()
}

// hookStack is about the stack a hook's goroutines reach (the handler, and
// the connection's through hookrun and the after-reply record); growStack
// gives a new goroutine that much at once, while its stack is still empty,
// instead of the doublings that each copy what the stack holds by then
// (about 18 µs of CPU a hook before, 4 µs after, in BenchmarkToolHooks's
// profile).
const hookStack = 32 << 10

// growStack makes the calling goroutine's stack at least hookStack deep.
//
//go:noinline
func growStack() {
	var buf [hookStack - 1<<10]byte
	keepFrame(buf[:]) // keeps buf, and so the frame, from being optimised away
}

//go:noinline
func keepFrame([]byte) {}
