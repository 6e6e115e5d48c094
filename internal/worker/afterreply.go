package worker

import (
	"context"
	"sync"
	"time"
)

// afterBudget bounds the work a hook leaves for after its reply (a
// record that waits on a busy database gives up and is spooled).
const afterBudget = 5 * time.Second

// afterReply holds a hook's work that must not delay its reply
// (hookrun.Env.After): handleHook runs it once the reply is written. Work
// added later, by a handler that overran its budget, runs at once.
type afterReply struct {
	w    *Worker
	mu   sync.Mutex
	sent bool
	fs   []func(context.Context)
}

func (a *afterReply) add(f func(context.Context)) {
	a.mu.Lock()
	if !a.sent {
		a.fs = append(a.fs, f)
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	a.w.runAfter(f)
}

// run runs the work added so far, in order, on the caller's goroutine
// (the connection's, which Close waits for before the database closes).
func (a *afterReply) run() {
	a.mu.Lock()
	a.sent = true
	fs := a.fs
	a.fs = nil
	a.mu.Unlock()
	for _, f := range fs {
		a.w.runAfter(f)
	}
}

// runAfter runs one piece of after-reply work under the process's hook
// context, so that Close cancels it like a handler.
func (w *Worker) runAfter(f func(context.Context)) {
	ctx, cancel := context.WithTimeout(w.hookCtx, afterBudget)
	defer cancel()
	f(ctx)
}
