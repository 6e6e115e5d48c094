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

	"github.com/vibe-science/vibe/internal/config"
	"github.com/vibe-science/vibe/internal/embed"
	"github.com/vibe-science/vibe/internal/record"
	"github.com/vibe-science/vibe/internal/store"
	"github.com/vibe-science/vibe/internal/worker/client"
)

// Version is the worker's build version, reported by health; the Makefile
// sets it with -ldflags "-X …/internal/worker.Version=…".
var Version = "0.1.0-dev"

// Defaults for Config's intervals and sizes; tests shrink them.
const (
	// DefaultBatchSize items are read per claim: hugot's Go backend is
	// most efficient around 32 texts per call.
	DefaultBatchSize = 32
	// DefaultChunkSize texts go to the model per call; between chunks a
	// waiting recall query goes first, so it waits for at most one chunk.
	DefaultChunkSize = 8
	// DefaultPollInterval is how often an idle worker looks for new items.
	DefaultPollInterval = time.Second
	// DefaultDBRetry is the pause after a database error (a long lock).
	DefaultDBRetry = time.Second
	// DefaultModelRetry is how long a model that failed to load is left
	// alone before the next attempt.
	DefaultModelRetry = time.Minute
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
	// Retry is the per-item retry policy; zero means store.DefaultRetry.
	Retry store.RetryPolicy
	// BusyTimeoutMS is the database busy timeout; 0 means the hook path's
	// (store.HookBusyTimeoutMS): the worker answers hooks, and a record it
	// cannot write in that time is spooled rather than waited for.
	BusyTimeoutMS int
}

// Worker is the embed daemon for one VIBE_HOME.
type Worker struct {
	cfg      Config
	settings config.Settings
	now      func() time.Time

	lock *flock.Flock
	log  *dailyLog
	// st is the open database; reopen swaps it when the file was deleted
	// or replaced under the worker.
	st       atomic.Pointer[store.Store]
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
	conns    sync.WaitGroup
	closing  atomic.Bool

	errMu   sync.Mutex
	lastErr string
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
	return &Worker{cfg: cfg, now: cfg.Now}
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
	st, err := w.openStore(ctx)
	if err != nil {
		return fmt.Errorf("open worker: %w", err)
	}
	w.st.Store(st)
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
	w.models = &models{
		load:  w.cfg.Load,
		now:   w.now,
		dir:   func(name string) string { return embed.Dir(p.Models, name) },
		retry: w.cfg.ModelRetry,
		logf:  w.logf,
	}
	w.started = w.now()
	lctx2, cancel2 := context.WithCancel(context.Background())
	w.cancel = cancel2
	w.loopDone = make(chan struct{})
	go w.loop(lctx2)
	go w.serve()
	w.logf("worker %s started (pid %d, home %s, batch %d, idle unload %s)", Version, os.Getpid(), p.Home, w.cfg.BatchSize, idle)
	return nil
}

// Close stops accepting connections, lets the current batch finish and
// store its vectors, unloads the model, closes the database and removes the
// socket and pid file before releasing the lock.
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
	w.conns.Wait()
	w.logf("worker stopped")
	return w.release()
}

func (w *Worker) release() error {
	var errs []error
	if w.models != nil {
		w.models.closeAll()
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

// store is the open database.
func (w *Worker) store() *store.Store { return w.st.Load() }

func (w *Worker) openStore(ctx context.Context) (*store.Store, error) {
	busy := w.cfg.BusyTimeoutMS
	if busy <= 0 {
		busy = store.HookBusyTimeoutMS
	}
	return store.Open(ctx, w.cfg.Paths.DB, store.Options{BusyTimeoutMS: busy})
}

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
	st, err := w.openStore(ctx)
	if err != nil {
		w.fail("the database %s was deleted or replaced while the worker held it open, and reopening it failed: %v", w.cfg.Paths.DB, err)
		return
	}
	w.st.Store(st)
	time.AfterFunc(reopenGrace, func() { old.Close() })
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

// currentModel is the model `vibe model use` chose, else the settings'.
func (w *Worker) currentModel(ctx context.Context) (string, error) {
	name, err := w.store().EmbedModel(ctx)
	if err != nil {
		return "", err
	}
	if name == "" {
		name = w.settings.Model
	}
	if name == "" {
		name = embed.DefaultModel
	}
	return name, nil
}

// loop drains the queue until ctx is cancelled; the batch in hand when
// that happens is finished and stored first.
func (w *Worker) loop(ctx context.Context) {
	defer close(w.loopDone)
	for ctx.Err() == nil {
		wait := w.tick(ctx)
		if wait == 0 {
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
	}
}

// tick does one round of work and says how long to wait before the next
// (0: go on at once).
func (w *Worker) tick(ctx context.Context) time.Duration {
	// The batch in hand must be stored even when ctx is cancelled
	// mid-batch (SIGTERM), so the work runs on an uncancelled context.
	work := context.WithoutCancel(ctx)
	w.checkDatabase(work)
	w.replaySpool(work)
	name, err := w.currentModel(work)
	if err != nil {
		w.fail("read current model: %v", err)
		return w.cfg.DBRetry
	}
	installed := embed.Ready(embed.Dir(w.cfg.Paths.Models, name)) == nil && w.cfg.Load != nil
	w.models.note(name, installed)
	now := w.now()
	w.models.unloadIdle(now, w.cfg.IdleUnload)
	if !installed {
		return w.cfg.PollInterval
	}
	items, err := w.store().ClaimEmbeds(work, name, w.cfg.BatchSize, now)
	if err != nil {
		w.fail("claim embeddings: %v", err)
		return w.cfg.DBRetry
	}
	if len(items) == 0 {
		return w.cfg.PollInterval
	}
	emb, release, err := w.models.acquire(name, now)
	if err != nil {
		if !errors.Is(err, errNoModel) {
			w.fail("load model %s: %v", name, err)
		}
		return w.cfg.PollInterval
	}
	defer release()
	start := w.now()
	stored, failed := 0, 0
	for i := 0; i < len(items); i += w.cfg.ChunkSize {
		chunk := items[i:min(i+w.cfg.ChunkSize, len(items))]
		w.yieldToQueries(ctx)
		n, f, err := w.embedChunk(work, emb, chunk)
		stored, failed = stored+n, failed+f
		if err != nil {
			w.fail("store %d vectors: %v", len(chunk), err)
			return w.cfg.DBRetry
		}
	}
	elapsed := w.now().Sub(start)
	w.logf("embedded %d of %d texts with %s in %s", stored, len(items), name, elapsed.Round(time.Millisecond))
	if failed == 0 {
		w.errMu.Lock()
		w.lastErr = ""
		w.errMu.Unlock()
	}
	return 0
}

// yieldToQueries waits while a recall query is using the model: a hook is
// waiting for it, the backlog is not. The wait is bounded so a stream of
// queries cannot starve the queue.
func (w *Worker) yieldToQueries(ctx context.Context) {
	for i := 0; i < 500 && w.queries.Load() > 0 && ctx.Err() == nil; i++ {
		time.Sleep(2 * time.Millisecond)
	}
}

// embedChunk embeds and stores one chunk. When the model fails on the
// chunk, each text is tried alone so one bad text fails alone. It returns
// how many vectors were stored and how many texts failed; an error means
// the database refused them (they stay pending).
func (w *Worker) embedChunk(ctx context.Context, emb embed.Embedder, chunk []record.EmbedItem) (stored, failedN int, err error) {
	texts := make([]string, len(chunk))
	for i, it := range chunk {
		texts[i] = it.Text
	}
	t0 := w.now()
	vecs, eerr := emb.Embed(ctx, texts)
	var results []record.EmbedResult
	var failed []int64
	var lastErr error
	if eerr == nil {
		for i, it := range chunk {
			results = append(results, record.EmbedResult{Item: it, Vector: vecs[i]})
		}
	} else {
		for _, it := range chunk {
			v, err := emb.Embed(ctx, []string{it.Text})
			if err != nil {
				failed = append(failed, it.QueueID)
				lastErr = err
				continue
			}
			results = append(results, record.EmbedResult{Item: it, Vector: v[0]})
		}
	}
	busy := w.now().Sub(t0)
	now := w.now()
	stored, err = w.store().CompleteEmbeds(ctx, emb.Model(), results, now)
	if err != nil {
		return 0, 0, err
	}
	w.meter.add(now, stored, busy)
	if len(failed) > 0 {
		gaveUp, err := w.store().FailEmbeds(ctx, failed, lastErr.Error(), now, w.cfg.Retry)
		if err != nil {
			return stored, len(failed), err
		}
		w.fail("embedding failed for %d texts (%d gave up after %d attempts): %v", len(failed), gaveUp, w.cfg.Retry.MaxAttempts, lastErr)
	}
	return stored, len(failed), nil
}

// Health is the worker's state now.
func (w *Worker) Health(ctx context.Context) client.Health {
	name, state, modelErr, loaded := w.models.status()
	if name == "" { // before the loop's first look at the database
		name, _ = w.currentModel(ctx)
		state = StateStarting
	}
	h := client.Health{
		PID: os.Getpid(), Version: Version, Model: name, Loaded: loaded, State: state,
		StartedAt: w.started.UnixMilli(),
	}
	now := w.now()
	h.Throughput, h.EmbedRate = w.meter.rates(now)
	if mem, err := embed.ReadMemory(); err == nil {
		h.RSSBytes = mem.RSS
	}
	if name != "" {
		if c, err := w.store().EmbedCounts(ctx, name, now); err == nil {
			h.Backlog, h.Waiting, h.Failed, h.Done = c.Backlog, c.Waiting, c.Failed, c.Done
		} else {
			h.LastError = "count queue: " + err.Error()
		}
	}
	w.errMu.Lock()
	if h.LastError == "" {
		h.LastError = w.lastErr
	}
	w.errMu.Unlock()
	if modelErr != "" {
		h.LastError = modelErr
	}
	return h
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

// replaySpool writes what hooks spooled while the database refused them,
// when no hook event came to do it.
func (w *Worker) replaySpool(ctx context.Context) {
	path := w.cfg.Paths.Spool
	if path == "" || !store.Spooled(path) {
		return
	}
	n, skipped, err := w.store().ReplaySpool(ctx, path)
	switch {
	case err != nil:
		w.fail("replay spool: %v", err)
	case n > 0 || skipped > 0:
		w.logf("replayed %d spooled records (%d unreadable lines skipped)", n, skipped)
	}
}
