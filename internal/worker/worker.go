package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofrs/flock"

	"github.com/vibe-science/vibe/internal/buildinfo"
	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/handler"
	"github.com/vibe-science/vibe/internal/hookrun"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// Defaults for Config's intervals and sizes; tests shrink them.
const (
	// DefaultBatchSize items are read per claim: hugot's Go backend is
	// most efficient around 32 texts per call.
	DefaultBatchSize = 32
	// DefaultChunkSize texts go to the model per call; between chunks a
	// waiting recall query goes first, so it waits for at most one chunk.
	DefaultChunkSize = 8
	// DefaultPollInterval is how soon after a connection (a hook, a query)
	// the embed loop does a round of work: it looks for new items, spooled
	// records and memories to check. A resting worker does no rounds.
	DefaultPollInterval = time.Second
	// DefaultDBRetry is the first pause after a database error (a long
	// lock); it doubles while the errors go on, up to a minute.
	DefaultDBRetry = time.Second
	// DefaultModelRetry is how long a model that failed to load is left
	// alone before the next attempt.
	DefaultModelRetry = time.Minute
	// DefaultReadConns is the read pool's size (see the package doc for
	// the measurement behind it).
	DefaultReadConns = 4
	// DefaultLockWait is how long Open waits for the worker lock: a second
	// worker started by a racing hook gives up after it.
	DefaultLockWait = 2 * time.Second
)

// ErrAlreadyRunning says another worker holds the lock for this VIBE_HOME.
var ErrAlreadyRunning = errors.New("another embed worker is running for this VIBE_HOME")

// Config is everything a Worker needs; zero fields take the defaults.
type Config struct {
	Paths config.Paths
	// Settings; nil means load them from Paths.Settings at Open.
	Settings *config.Settings
	// Load opens a model directory; nil leaves the worker lexical-only.
	Load embed.Loader
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Getenv reads the environment's variables (VIBE_WORKER_IDLE_EXIT);
	// nil: none is set.
	Getenv func(string) string
	// LogMirror also receives every log line (a terminal in --foreground).
	LogMirror io.Writer

	BatchSize    int
	ChunkSize    int
	PollInterval time.Duration
	DBRetry      time.Duration
	ModelRetry   time.Duration
	LockWait     time.Duration
	// IdleUnload overrides Settings.WorkerIdleUnloadSec.
	IdleUnload time.Duration
	// IdleExit overrides VIBE_WORKER_IDLE_EXIT and
	// Settings.WorkerIdleExitSec (config.WorkerIdleExit): after that long
	// with no connection and no work, Idle is closed (the worker binary
	// then exits, and the next hook starts it again). Negative: never.
	IdleExit time.Duration
	// Retry is the per-item retry policy; zero means store.DefaultRetry.
	Retry store.RetryPolicy
	// BusyTimeoutMS is the database busy timeout; 0 means the hook path's
	// (store.HookBusyTimeoutMS): the worker answers hooks, and a record it
	// cannot write in that time is spooled rather than waited for.
	BusyTimeoutMS int
	// Executable is the worker's own program file; when another file
	// takes its place (a rebuild), Replaced is closed. Empty: not watched.
	Executable string
	// ReadConns is the size of the read pool; 0 means DefaultReadConns,
	// 1 one reading connection beside the writer.
	ReadConns int
	// Lookup finds a hook's Spec by name; nil means handler.Lookup. Tests
	// pass fake handlers.
	Lookup func(name string) (hookrun.Spec, error)

	// Fallback embeds with embed.Fallback while the current model is not
	// installed, so the queue drains and recall stays hybrid (degraded,
	// and labelled so); its vectors are queued again for the model as soon
	// as it is installed. The worker binary sets it.
	Fallback bool
	// AutoPull downloads a catalogued current model in the background the
	// first time an embedding is needed and it is not installed (blueprint
	// §4.0.1's lazy pull); a failed download is retried, when an embedding
	// is needed again, after PullRetry, doubled for each failure in a row
	// up to PullRetryMax. PullBaseURL replaces the catalogue's URL (a
	// mirror; a test server).
	AutoPull     bool
	PullBaseURL  string
	PullRetry    time.Duration
	PullRetryMax time.Duration
	// QueryCache is how many query embeddings are kept; 0 means
	// DefaultQueryCache, negative none.
	QueryCache int
}

// DefaultPullRetry and DefaultPullRetryMax bound the wait after failed
// lazy downloads: a minute after the first, doubling, at most a day.
// Offline is the common reason, and it lasts; the attempt is made only
// when an embedding is needed then, and `vibe model pull` tries at once.
const (
	DefaultPullRetry    = time.Minute
	DefaultPullRetryMax = 24 * time.Hour
)

// Worker is the embed daemon for one VIBE_HOME.
type Worker struct {
	cfg      Config
	settings config.Settings
	now      func() time.Time

	lock *flock.Flock
	log  *dailyLog
	// st is the open database, the single writer (hooks and the embed
	// loop's writes); rd is the read pool beside it (queries and the embed
	// loop's reads). checkDatabase swaps both when the file was deleted or
	// replaced under the worker.
	st       atomic.Pointer[store.Store]
	rd       atomic.Pointer[store.Store]
	reopenMu sync.Mutex
	// notice is a sentence for the next hook's reply (the database was
	// reopened), taken by the first hook that runs.
	notice atomic.Pointer[string]
	ln     net.Listener
	models *models
	meter  meter

	started time.Time
	queries atomic.Int32 // recall queries waiting for or using the model

	cancel   context.CancelFunc
	loopDone chan struct{}
	// kick asks the embed loop for a round of work (kickLoop); dbRefusals
	// counts the rounds the database refused in a row (the loop's only).
	kick       chan struct{}
	dbRefusals int
	rounds     atomic.Int64 // rounds of work done, for tests
	// lastActive is when a connection last ended or the loop last worked
	// (w.now, unix nanoseconds); inUse counts open connections. The idle
	// exit (idleExitWait) reads both and closes idle.
	lastActive atomic.Int64
	inUse      atomic.Int32
	idle       chan struct{}
	idleOnce   sync.Once
	conns      sync.WaitGroup
	closing    atomic.Bool
	// hookCtx is the parent of every hook handler's context; Close cancels
	// it, then waits for handlers (counted in handlers, even those that
	// overran their budget and were answered for) before closing the store.
	hookCtx    context.Context
	hookCancel context.CancelFunc
	handlers   sync.WaitGroup
	exe        *exeWatch

	after afterGate // after-reply work that later hooks wait for
	// replied, when set (benchmarks), is told each hook's time from its
	// decoded frame to its written reply.
	replied func(hook string, took time.Duration)

	errMu   sync.Mutex
	lastErr string

	qcache *queryCache
	// vectors is every queried project's binary codes, for KNN (vectors.go).
	vectors vectorIndex
	// fallbackVectors says vectors of the fallback embedder may exist: the
	// first tick that finds the real model installed queues their memories
	// again for it.
	fallbackVectors atomic.Bool
	pull            puller
}

// New returns a worker; nothing happens until Open.
func New(cfg Config) *Worker {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.ChunkSize <= 0 {
		cfg.ChunkSize = DefaultChunkSize
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.DBRetry <= 0 {
		cfg.DBRetry = DefaultDBRetry
	}
	if cfg.ModelRetry <= 0 {
		cfg.ModelRetry = DefaultModelRetry
	}
	if cfg.LockWait <= 0 {
		cfg.LockWait = DefaultLockWait
	}
	if cfg.Retry.MaxAttempts <= 0 {
		cfg.Retry = store.DefaultRetry
	}
	if cfg.ReadConns <= 0 {
		cfg.ReadConns = DefaultReadConns
	}
	if cfg.Lookup == nil {
		cfg.Lookup = handler.Lookup
	}
	if cfg.PullRetry <= 0 {
		cfg.PullRetry = DefaultPullRetry
	}
	if cfg.PullRetryMax <= 0 {
		cfg.PullRetryMax = max(DefaultPullRetryMax, cfg.PullRetry)
	}
	if cfg.QueryCache == 0 {
		cfg.QueryCache = DefaultQueryCache
	}
	w := &Worker{cfg: cfg, now: cfg.Now, exe: newExeWatch(cfg.Executable), qcache: newQueryCache(cfg.QueryCache),
		kick: make(chan struct{}, 1), idle: make(chan struct{})}
	w.hookCtx, w.hookCancel = context.WithCancel(context.Background())
	w.vectors.run = w.goHandler // loads codes: a second at 100k vectors
	w.vectors.ctx = w.hookCtx
	return w
}

// Open takes the lock (or returns ErrAlreadyRunning), writes the pid file,
// opens the log and the database, listens on the socket, and starts the
// drain loop. Everything it acquired is released if a later step fails.
func (w *Worker) Open(ctx context.Context) (err error) {
	p := w.cfg.Paths
	if w.cfg.Settings != nil {
		w.settings = *w.cfg.Settings
	} else {
		s, serr := config.LoadSettings(p)
		w.settings = s
		defer func() {
			if serr != nil && w.log != nil {
				w.logf("%v; using default settings", serr)
			}
		}()
	}
	// The socket lives in VIBE_HOME: a folder only the user may enter.
	if err := config.SecureHome(p); err != nil {
		return fmt.Errorf("open worker: %w", err)
	}
	defer func() {
		if err != nil {
			w.release()
		}
	}()
	w.log, err = openDailyLog(p.Logs, w.settings.LogRetentionDays, w.now, w.cfg.LogMirror)
	if err != nil {
		return fmt.Errorf("open worker: %w", err)
	}
	w.lock = flock.New(p.LockFile)
	lctx, cancel := context.WithTimeout(ctx, w.cfg.LockWait)
	ok, lerr := w.lock.TryLockContext(lctx, 20*time.Millisecond)
	cancel()
	if !ok {
		w.lock = nil
		if lerr != nil && !errors.Is(lerr, context.DeadlineExceeded) && ctx.Err() == nil {
			return fmt.Errorf("open worker: lock %s: %w", p.LockFile, lerr)
		}
		if pid := client.ReadPID(p); pid > 0 {
			return fmt.Errorf("%w (pid %d)", ErrAlreadyRunning, pid)
		}
		return ErrAlreadyRunning
	}
	// Written after the lock: the pid file is for people and `vibe worker
	// stop`; the lock is what decides.
	if err := writeFileAtomic(p.PIDFile, strconv.Itoa(os.Getpid())+"\n"); err != nil {
		return fmt.Errorf("open worker: %w", err)
	}
	st, rd, err := w.openStore(ctx)
	if err != nil {
		return fmt.Errorf("open worker: %w", err)
	}
	w.st.Store(st)
	w.rd.Store(rd)
	// We hold the lock, so a socket file left here is a dead worker's.
	os.Remove(p.Socket)
	w.ln, err = net.Listen("unix", p.Socket)
	if err != nil {
		return fmt.Errorf("open worker: listen on %s: %w (a path over ~100 bytes is too long for a Unix socket; use a shorter VIBE_HOME)", p.Socket, err)
	}
	if err := os.Chmod(p.Socket, 0o600); err != nil {
		return fmt.Errorf("open worker: %w", err)
	}
	idle := w.cfg.IdleUnload
	if idle <= 0 {
		idle = time.Duration(w.settings.WorkerIdleUnloadSec) * time.Second
	}
	w.cfg.IdleUnload = idle
	if w.cfg.IdleExit == 0 {
		getenv := w.cfg.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		exit, err := config.WorkerIdleExit(getenv, w.settings)
		if err != nil {
			w.logf("%v", err)
		}
		w.cfg.IdleExit = exit
	}
	w.models = &models{
		load:   w.cfg.Load,
		now:    w.now,
		dir:    func(name string) string { return embed.Dir(p.Models, name) },
		retry:  w.cfg.ModelRetry,
		logf:   w.logf,
		onLoad: w.kickLoop, // the next round arms the model's idle unload
	}
	w.started = w.now()
	w.touch()
	w.exe.start()
	lctx2, cancel2 := context.WithCancel(context.Background())
	w.cancel = cancel2
	w.pull.ctx = lctx2
	if w.cfg.Fallback {
		// The queue answers this in milliseconds; counting vec_memories by
		// model would read every row's model, a long text vec0 keeps apart.
		if ok, err := st.EmbeddedBy(ctx, embed.FallbackModel); err == nil && ok {
			w.fallbackVectors.Store(true)
		}
	}
	w.loopDone = make(chan struct{})
	go w.loop(lctx2)
	w.goHandler(func() { w.rescanSecrets(w.hookCtx) })
	go w.serve()
	exit := "never"
	if w.cfg.IdleExit > 0 {
		exit = "after " + w.cfg.IdleExit.String() + " idle"
	}
	w.logf("worker %s started (pid %d, home %s, batch %d, idle unload %s, exits %s)", buildinfo.Version, os.Getpid(), p.Home, w.cfg.BatchSize, idle, exit)
	return nil
}

// Idle is closed once the worker has rested Config.IdleExit: no
// connection, no work, no download for that long. Its owner should Close
// it (cmd/vibe-embed-worker exits then; the next hook starts a worker
// again). The worker goes on serving until closed.
func (w *Worker) Idle() <-chan struct{} { return w.idle }

// touch notes activity now (a connection ended, the loop worked).
func (w *Worker) touch() { w.lastActive.Store(w.now().UnixNano()) }

// idleExitWait is how long until the worker will have rested IdleExit, or
// rest when it never exits or is busy (what keeps it busy kicks the loop
// when it ends). Once the time has come it closes Idle.
func (w *Worker) idleExitWait() time.Duration {
	if w.cfg.IdleExit <= 0 {
		return rest
	}
	if w.inUse.Load() > 0 || w.pull.active.Load() {
		return rest
	}
	if left := w.cfg.IdleExit - w.now().Sub(time.Unix(0, w.lastActive.Load())); left > 0 {
		return left
	}
	w.idleOnce.Do(func() {
		w.logf("no hook, query or work for %s: the worker exits (the next hook starts it again)", w.cfg.IdleExit)
		close(w.idle)
	})
	return rest
}

// Replaced is closed when the worker's executable (Config.Executable) was
// replaced on disk by another build: its owner should Close it and start
// the new file (cmd/vibe-embed-worker does). Until then the hook clients
// of the new build bypass this process, so hooks only run slower.
func (w *Worker) Replaced() <-chan struct{} { return w.exe.done }

// Close stops accepting connections, lets the current batch finish and
// store its vectors, lets the hooks in flight answer, cancels and waits for
// the handlers still running (one that overran its budget was answered for
// but may still be using the store), unloads the model, closes the
// database and removes the socket and pid file before releasing the lock.
func (w *Worker) Close() error {
	if !w.closing.CompareAndSwap(false, true) {
		return nil
	}
	if w.ln != nil {
		w.ln.Close()
	}
	if w.cancel != nil {
		w.cancel()
		<-w.loopDone
	}
	w.pull.wg.Wait()
	w.conns.Wait()
	w.hookCancel()
	w.waitHandlers()
	w.logf("worker stopped")
	return w.release()
}

func (w *Worker) release() error {
	var errs []error
	if w.models != nil {
		w.models.closeAll()
	}
	if rd := w.rd.Swap(nil); rd != nil {
		errs = append(errs, rd.Close())
	}
	if st := w.st.Swap(nil); st != nil {
		errs = append(errs, st.Close())
	}
	p := w.cfg.Paths
	if w.lock != nil {
		if w.ln != nil {
			os.Remove(p.Socket)
		}
		if client.ReadPID(p) == os.Getpid() {
			os.Remove(p.PIDFile)
		}
		errs = append(errs, w.lock.Unlock())
		w.lock = nil
	}
	if w.log != nil {
		errs = append(errs, w.log.Close())
	}
	return errors.Join(errs...)
}

// store is the open database's writer (its one connection also reads for
// the hooks).
func (w *Worker) store() *store.Store { return w.st.Load() }

// reader is the read pool, for reads that need not see the writer's
// uncommitted work.
func (w *Worker) reader() *store.Store { return w.rd.Load() }

// openStore opens the writer (migrating the file) and then the read pool
// beside it.
func (w *Worker) openStore(ctx context.Context) (st, rd *store.Store, err error) {
	busy := w.cfg.BusyTimeoutMS
	if busy <= 0 {
		busy = store.HookBusyTimeoutMS
	}
	st, err = store.Open(ctx, w.cfg.Paths.DB, store.Options{BusyTimeoutMS: busy, MemoryCache: memoryCache})
	if err != nil {
		return nil, nil, err
	}
	rd, err = store.Open(ctx, w.cfg.Paths.DB, store.Options{ReadOnly: true, BusyTimeoutMS: busy, ReadConns: w.cfg.ReadConns})
	if err != nil {
		st.Close()
		return nil, nil, fmt.Errorf("open the read pool: %w", err)
	}
	return st, rd, nil
}

// memoryCache is how many memory records the writer keeps for the hooks
// (store.Options.MemoryCache): a prompt's recall reads fifty, and a
// project's working set is a few hundred; 4096 records of a few hundred
// bytes each is about a megabyte.
const memoryCache = 4096

// reopenGrace is how long a replaced database handle stays open for the
// requests already using it.
const reopenGrace = 30 * time.Second

// checkDatabase reopens the database when its file was deleted or replaced
// under the worker (one stat per call): otherwise every hook would write
// into a file nobody can read again. The first hook after a reopen tells
// the user (notice).
func (w *Worker) checkDatabase(ctx context.Context) {
	old := w.store()
	if old == nil || !old.Replaced() {
		return
	}
	w.reopenMu.Lock()
	defer w.reopenMu.Unlock()
	if w.store() != old { // another goroutine reopened it
		return
	}
	st, rd, err := w.openStore(ctx)
	if err != nil {
		w.fail("the database %s was deleted or replaced while the worker held it open, and reopening it failed: %v", w.cfg.Paths.DB, err)
		return
	}
	oldRd := w.rd.Swap(rd)
	w.st.Store(st)
	time.AfterFunc(reopenGrace, func() { old.Close(); oldRd.Close() })
	msg := fmt.Sprintf("the database %s was deleted or replaced while vibe's worker held it open; vibe now writes to the file at that path. "+
		"Records written to the old file since it was removed are not in the new one: restore the file from a backup if it was removed by mistake, and run `vibe doctor`.", w.cfg.Paths.DB)
	w.notice.Store(&msg)
	w.logf("%s", msg)
}

func (w *Worker) logf(format string, args ...any) {
	if w.log != nil {
		w.log.Printf(format, args...)
	}
}

// fail records an error for health and the log.
func (w *Worker) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	w.errMu.Lock()
	w.lastErr = msg
	w.errMu.Unlock()
	w.logf("%s", msg)
}

func writeFileAtomic(path, content string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
