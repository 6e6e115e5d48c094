package hookrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/hook"
	"github.com/vibe-science/vibe/internal/integrity"
	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/project"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/store/record"
	"github.com/vibe-science/vibe/internal/wire"
)

// Env is all the I/O a handler may do. Tests build one over buffers and a
// fixed clock.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time
	Getenv func(string) string
	// Context is the parent of each handler's deadline; nil means
	// context.Background(). The resident process passes its own, so that
	// its Close cancels a handler that outlived its hook.
	Context context.Context
	// Go starts the handler's goroutine; nil means a go statement. The
	// resident process counts them, so that it closes the database only
	// after the last one returned, even one that overran its time budget.
	Go func(func())
	// After takes work that must not delay the reply, such as recording
	// what the hook saw: the resident process runs it once the reply is
	// written. nil means AfterReply runs the work at once.
	After func(func(context.Context))
	// AfterOrdered is After for work whose records the hooks that follow
	// read (AfterReplyOrdered); nil means After.
	AfterOrdered func(func(context.Context))
	// Query, in the resident process, answers the query service's
	// requests (warm, embed, knn) in-process, so a handler there does not
	// dial its own socket; nil in vibe-hook, whose handlers ask the
	// resident process over the socket (internal/worker/client).
	Query func(context.Context, wire.Request) (*wire.Response, error)
	// StartQuery is Query begun without waiting: wait gives the answer, or
	// gives up once ctx is done (a recall's KNN runs while SQLite searches,
	// on no goroutine of the handler's); nil wherever Query is.
	StartQuery func(ctx context.Context, req wire.Request) (wait func() (*wire.Response, error))

	// mu guards the lazily resolved state below, and notesMu the notes: a
	// handler that overran its budget goes on using the Env while Main
	// records the outcome and builds the reply.
	mu       sync.Mutex
	paths    *config.Paths
	settings *config.Settings
	proj     *project.Project // Project's answer, for projCwd
	projCwd  string
	st       *store.Store
	stErr    error
	opened   bool
	borrowed bool
	// spooled: the database refused a record of this event, so the
	// event's other records go straight to the spool (each attempt would
	// wait the busy timeout again) and the spool is not replayed now.
	spooled bool
	notesMu sync.Mutex
	notes   []string
}

// UseStore gives the Env an already open database (the worker's), which it
// uses instead of opening one and leaves open when the hook ends.
func (e *Env) UseStore(st *store.Store) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.st, e.stErr, e.opened, e.borrowed = st, nil, true, true
}

// WithStreams is a copy of e that reads and writes other streams, for one
// of several events an agent client sends at once (internal/client). It
// starts with e's notes and resolved state; a database e already holds is
// shared, not owned: the copy leaves it open.
func (e *Env) WithStreams(stdin io.Reader, stdout, stderr io.Writer) *Env {
	e.mu.Lock()
	sub := &Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Now: e.Now, Getenv: e.Getenv, Context: e.Context, Go: e.Go, After: e.After, AfterOrdered: e.AfterOrdered, Query: e.Query, StartQuery: e.StartQuery,
		paths: e.paths, settings: e.settings, st: e.st, stErr: e.stErr, opened: e.opened,
		borrowed: e.borrowed || e.st != nil, spooled: e.spooled}
	e.mu.Unlock()
	sub.notes = e.Notes()
	return sub
}

// OSEnv is the Env of a real process.
func OSEnv() *Env {
	return &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: time.Now, Getenv: os.Getenv}
}

// Paths are vibe's files for this environment.
func (e *Env) Paths() config.Paths {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.paths == nil {
		p := config.Resolve(e.Getenv)
		e.paths = &p
	}
	return *e.paths
}

// Project is the project of this hook's event (project.ResolveEnv: the
// folder CLAUDE_PROJECT_DIR names, else the one holding cwd), resolved
// once: the handler, tamper's check and the advisory record ask for it.
func (e *Env) Project(cwd string) project.Project {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.proj == nil || e.projCwd != cwd {
		p := project.ResolveEnv(cwd, e.Getenv)
		e.proj, e.projCwd = &p, cwd
	}
	return *e.proj
}

// Enforced reports whether vibe acts on an event from cwd: the project
// opted in (project.OptedIn: a .vibe-science folder at or above its root),
// or the user turned enforcement on everywhere (config.EnforcedEverywhere).
// Elsewhere every hook is silent and records nothing (Main).
func (e *Env) Enforced(cwd string) bool {
	return project.OptedIn(e.Project(cwd).Root, e.Paths().Home) || config.EnforcedEverywhere(e.Getenv, e.Settings())
}

// Settings are the user's settings; a broken settings file is reported to
// the user once and the defaults are used.
func (e *Env) Settings() config.Settings {
	p := e.Paths()
	e.mu.Lock()
	if e.settings != nil {
		defer e.mu.Unlock()
		return *e.settings
	}
	s, err := config.LoadSettings(p)
	e.settings = &s
	e.mu.Unlock()
	if err != nil {
		e.Note("%s; using default settings", err)
	}
	return s
}

// Store opens the database on first use and returns the same handle after.
// An error is sticky: a hook does not retry a locked or corrupt database.
func (e *Env) Store(ctx context.Context) (*store.Store, error) {
	p := e.Paths()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.opened {
		e.opened = true
		opt := store.Options{BusyTimeoutMS: store.HookBusyTimeoutMS}
		// VIBE_BUSY_TIMEOUT_MS changes the wait for a locked database.
		if ms, err := strconv.Atoi(e.Getenv("VIBE_BUSY_TIMEOUT_MS")); err == nil && ms > 0 {
			opt.BusyTimeoutMS = ms
		}
		e.st, e.stErr = store.Open(ctx, p.DB, opt)
	}
	return e.st, e.stErr
}

// AfterReply runs f after the hook's reply has gone out when the resident
// process hosts the hook (Env.After), and now, with ctx, elsewhere: a
// hook binary's caller waits for the process to exit anyway.
func (e *Env) AfterReply(ctx context.Context, f func(context.Context)) {
	if e.After != nil {
		e.After(f)
		return
	}
	f(ctx)
}

// AfterReplyOrdered is AfterReply for a record that the hooks after this
// one read to decide or to tell Claude something (a failed call's mistake
// memory, a literature search that gate L-1 counts): the resident process
// finishes it before it runs a hook that arrives after this reply
// (Env.AfterOrdered), so it is there as if it had been written before the
// reply.
func (e *Env) AfterReplyOrdered(ctx context.Context, f func(context.Context)) {
	switch {
	case e.AfterOrdered != nil:
		e.AfterOrdered(f)
	case e.After != nil:
		e.After(f)
	default:
		f(ctx)
	}
}

// Record writes r in one transaction when the database takes it, and
// otherwise appends it to the spool (VIBE_HOME/spool.jsonl), from which
// the next event that reaches the database replays it: a locked database,
// a full disk or a database that cannot be opened delays a record, it
// does not lose it. The error is only for a record that could be neither
// written nor spooled.
func (e *Env) Record(ctx context.Context, r store.Record) error {
	if r.Empty() {
		return nil
	}
	var err error
	if e.isSpooled() {
		err = errors.New("the database refused an earlier record of this event")
	} else if st, serr := e.Store(ctx); serr != nil {
		err = serr
	} else if err = st.Tx(ctx, func(tx *store.Tx) error { return tx.Apply(ctx, r) }); err == nil {
		return nil
	} else if !spoolable(err) {
		return err
	}
	e.mu.Lock()
	e.spooled = true
	e.mu.Unlock()
	if serr := store.Spool(e.Paths().Spool, r); serr != nil {
		return fmt.Errorf("%w; spooling it failed too: %v", err, serr)
	}
	e.Logf("spooled a record the database refused: %v", err)
	return nil
}

// spoolable: the database is there but cannot take the record now (locked,
// full, unwritable) or the hook's time ran out; a record the database
// rejects as invalid would be rejected again.
func spoolable(err error) bool {
	return fault.KindOf(err) == fault.Unavailable || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// storeState is what Store left: whether it was called, the handle and
// its error.
func (e *Env) storeState() (opened bool, st *store.Store, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opened, e.st, e.stErr
}

func (e *Env) isSpooled() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.spooled
}

// Note queues a sentence for the user (the reply's systemMessage). It is
// safe for concurrent use.
func (e *Env) Note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	e.notesMu.Lock()
	e.notes = append(e.notes, msg)
	e.notesMu.Unlock()
}

// NoteUnavailable is Note for a dependency that failed (integrity.DepDatabase,
// DepBrief, ...): the sentence is shown unless the user set that
// dependency's circuit breaker to skip.
func (e *Env) NoteUnavailable(dep string, format string, args ...any) {
	if e.Settings().Breakers.Mode(dep) == integrity.ModeSkip {
		e.Logf(format, args...)
		return
	}
	e.Note(format, args...)
}

// Notes returns a copy of the queued sentences.
func (e *Env) Notes() []string {
	e.notesMu.Lock()
	defer e.notesMu.Unlock()
	return slices.Clone(e.notes)
}

// Logf appends one line to today's hook log under VIBE_HOME/logs. Logging
// never fails a hook.
func (e *Env) Logf(format string, args ...any) {
	dir := e.Paths().Logs
	if err := os.MkdirAll(dir, config.DirMode); err != nil {
		return
	}
	now := e.Now()
	f, err := os.OpenFile(filepath.Join(dir, "hooks-"+now.UTC().Format("2006-01-02")+".log"),
		os.O_CREATE|os.O_APPEND|os.O_WRONLY, config.FileMode)
	if err != nil {
		return
	}
	defer f.Close()
	config.NarrowFile(f)
	fmt.Fprintf(f, "%s %s\n", now.UTC().Format(time.RFC3339Nano), privacy.Scrub(fmt.Sprintf(format, args...)))
}

func (e *Env) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.st != nil && !e.borrowed {
		e.st.Close()
	}
}

// Seen is the session upsert every hook performs, built from its event.
func Seen(ev *hook.Event, projectRoot string, now time.Time) record.SessionSeen {
	return record.SessionSeen{
		ID:             ev.SessionID,
		ProjectPath:    projectRoot,
		At:             now,
		Start:          ev.HookEventName == hook.SessionStart,
		Source:         ev.Source,
		TranscriptPath: ev.TranscriptPath,
		Client:         ev.Client,
	}
}
