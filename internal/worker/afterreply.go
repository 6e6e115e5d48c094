package worker

import (
	"context"
	"sync"
	"time"
)

// afterBudget bounds the work a hook leaves for after its reply (a
// record that waits on a busy database gives up and is spooled).
const afterBudget = 5 * time.Second

// afterWait bounds how long a hook waits for the after-reply work of the
// replies written before it arrived (afterGate): a fifth of the hook's own
// budget, so its client's deadline still holds. Work that takes that long
// waits on a stuck database, which the hook would wait on as well; it goes
// on as it would have without waiting.
func afterWait(budget time.Duration) time.Duration {
	if budget <= 0 {
		budget = 5 * time.Second // hookrun's default
	}
	return budget / 5
}

// afterReply holds a hook's work that must not delay its reply
// (hookrun.Env.After): handleHook runs it once the reply is written. Work
// added later, by a handler that overran its budget, runs at once.
type afterReply struct {
	w    *Worker
	mu   sync.Mutex
	sent bool
	fs   []func(context.Context)
	// ordered: some of the work records what later hooks read
	// (hookrun.Env.AfterReplyOrdered); they wait for it (afterGate).
	ordered bool
}

// addOrdered is add for work that later hooks wait for.
func (a *afterReply) addOrdered(f func(context.Context)) {
	a.mu.Lock()
	a.ordered = a.ordered || !a.sent
	a.mu.Unlock()
	a.add(f)
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

// pendingOrdered reports whether work that later hooks wait for was
// added before the reply.
func (a *afterReply) pendingOrdered() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ordered && len(a.fs) > 0
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

// afterGate orders after-reply work that later hooks read before those
// hooks (hookrun.Env.AfterReplyOrdered): a hook that arrives once such a
// reply is written waits until its work is done, so a failed call's
// mistake memory or a literature search recorded after the reply is seen
// by every hook that comes after it, as if it had been recorded before.
// Other after-reply work (session rows, a plain call's spine entry, a
// prompt's hash, narratives) is not waited for: a hook that follows at
// once (make bench runs them back to back) would lose the overlap, up to
// 0.2 ms measured on UserPromptSubmit after SubagentStop. Hooks that
// overlap are not ordered: Claude Code runs them in parallel, and neither
// could rely on the other's record anyway. With nothing pending, the usual
// case, the check is one uncontended lock.
type afterGate struct {
	mu      sync.Mutex
	pending map[*afterReply]chan struct{}
}

// hold registers a's work as pending, before its reply is written; the
// returned func marks it done.
func (g *afterGate) hold(a *afterReply) (done func()) {
	ch := make(chan struct{})
	g.mu.Lock()
	if g.pending == nil {
		g.pending = map[*afterReply]chan struct{}{}
	}
	g.pending[a] = ch
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		delete(g.pending, a)
		g.mu.Unlock()
		close(ch)
	}
}

// wait waits for the work pending now, at most limit (or until ctx is
// done), and reports whether it all finished.
func (g *afterGate) wait(ctx context.Context, limit time.Duration) bool {
	g.mu.Lock()
	if len(g.pending) == 0 {
		g.mu.Unlock()
		return true
	}
	chs := make([]chan struct{}, 0, len(g.pending))
	for _, ch := range g.pending {
		chs = append(chs, ch)
	}
	g.mu.Unlock()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for _, ch := range chs {
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}
