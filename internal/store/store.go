package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/vibe-science/vibe/db"
	"github.com/vibe-science/vibe/internal/fault"
)

// DefaultBusyTimeoutMS is how long a connection waits for another writer.
// Hooks hold the write lock for well under a millisecond, so five seconds
// only matters under a storm of parallel hooks.
const DefaultBusyTimeoutMS = 5000

// HookBusyTimeoutMS is the busy timeout on the hook path (hookrun, the
// worker): a hook must answer within its budget whoever holds the write
// lock, and what it cannot write in this time goes to the spool (Spool)
// instead of delaying the decision. A vibe writer holds the lock for well
// under a millisecond.
const HookBusyTimeoutMS = 250

// setupSQLite loads sqlite-vec, makes query plans stable (stablePlans) and
// tunes the C allocator, once per process.
var setupSQLite sync.Once

// Store is an open vibe database.
type Store struct {
	db   sqlDB // conn.go
	path string
	// file is the database file as opened, for Replaced.
	file os.FileInfo
	// memories keeps memory records read (Options.MemoryCache); nil: none.
	memories *memCache
}

// Options tune Open.
type Options struct {
	// ReadOnly opens without migrating and refuses writes.
	ReadOnly bool
	// BusyTimeoutMS overrides DefaultBusyTimeoutMS.
	BusyTimeoutMS int
	// ReadConns lets a ReadOnly handle run that many queries at once (a
	// read pool beside a writer: WAL readers block neither each other nor
	// the writer); 0 or 1 means one connection, as every handle has.
	ReadConns int
	// MemoryCache keeps up to that many memory records read by
	// MemoriesByID and a project's SearchMemories, checked against the
	// memory_changes log before each use (memcache.go): for a long-lived
	// handle such as the resident process's. 0 keeps none.
	MemoryCache int
}

// stmtCacheSize is how many prepared statements each connection keeps.
const stmtCacheSize = 128

// Open opens (creating if needed) the database at path and brings its
// schema to the latest version. The version check is one PRAGMA read; the
// migrations themselves run only when the file is behind.
func Open(ctx context.Context, path string, opt Options) (*Store, error) {
	setupSQLite.Do(func() {
		sqlite_vec.Auto()
		stablePlans()
		keepFreedMemory()
	})
	if path == "" {
		return nil, fault.Errorf(fault.Invalid, "open store", "no database path")
	}
	if !opt.ReadOnly {
		if err := private(path); err != nil {
			return nil, fault.E(fault.Unavailable, "open store", err)
		}
	}
	busy := opt.BusyTimeoutMS
	if busy <= 0 {
		busy = DefaultBusyTimeoutMS
	}
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busy))
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate") // Store.Tx begins IMMEDIATE itself; this is for a Begin on DB()
	// Keep the statements a connection prepared: a hook runs the same dozen
	// queries on every call, and preparing them again was a sixth of the
	// resident process's time per hook.
	q.Set("_stmt_cache_size", fmt.Sprint(stmtCacheSize))
	if opt.ReadOnly {
		q.Set("mode", "ro")
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	sdb, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, classify("open store", err)
	}
	// One connection: hooks are single-threaded, and every extra
	// connection re-reads the schema.
	sdb.SetMaxOpenConns(1)
	if opt.ReadOnly && opt.ReadConns > 1 {
		sdb.SetMaxOpenConns(opt.ReadConns)
		sdb.SetMaxIdleConns(opt.ReadConns)
	}
	s := &Store{db: sqlDB{sdb}, path: path}
	if opt.MemoryCache > 0 {
		s.memories = newMemCache(opt.MemoryCache)
	}
	if opt.ReadOnly {
		if _, err := s.Version(ctx); err != nil {
			sdb.Close()
			return nil, err
		}
	} else if err := s.migrate(ctx, max(time.Duration(busy)*time.Millisecond, openBusy)); err != nil {
		sdb.Close()
		return nil, err
	}
	s.file, _ = os.Stat(path)
	return s, nil
}

// Replaced reports, with one stat, whether the file at Path is no longer
// the one this Store opened: deleted, or replaced by another file. A
// process that holds the database open (the worker) would otherwise write
// to a deleted file, and every record would be lost.
func (s *Store) Replaced() bool {
	if s.file == nil {
		return false
	}
	now, err := os.Stat(s.path)
	return err != nil || !os.SameFile(now, s.file)
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB exposes the handle to this package's tests and to store-internal
// helpers; other packages go through methods.
func (s *Store) DB() *sql.DB { return s.db.DB }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Version is the schema version recorded in the file (PRAGMA user_version).
func (s *Store) Version(ctx context.Context) (int, error) {
	var v int
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, classify("read schema version", err)
	}
	return v, nil
}

// openBusy is the least an opener retries reading the schema version: it
// waits there for no writer, only for another process's checkpoint or WAL
// recovery (the last connection to close checkpoints and removes the WAL;
// the next to open rebuilds its index), which holds the file for a moment
// but, on a loaded two-core machine, past a hook's 250 ms: 8 of 4,000 opens
// in TestParallelHookProcesses while other packages' tests ran beside it.
const openBusy = time.Second

func (s *Store) migrate(ctx context.Context, busy time.Duration) error {
	var v int
	err := retryBusy(ctx, busy, func() (err error) {
		v, err = s.Version(ctx)
		return err
	})
	if err != nil {
		return err
	}
	latest := db.Latest()
	if v == latest {
		return nil
	}
	if v > latest {
		return fault.Errorf(fault.Unavailable, "open store",
			"database schema version %d is newer than this vibe (%d): update vibe", v, latest)
	}
	ms, err := db.Migrations()
	if err != nil {
		return fault.E(fault.Internal, "load migrations", err)
	}
	// WAL is a property of the file: set it once, when the schema is made.
	err = retryBusy(ctx, busy, func() error {
		_, err := s.db.ExecContext(ctx, "PRAGMA journal_mode=WAL")
		return classify("enable WAL", err)
	})
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := retryBusy(ctx, busy, func() error { return s.apply(ctx, m) }); err != nil {
			return err
		}
	}
	return nil
}

// retryBusy runs f again while it fails with "busy", with growing pauses,
// until the busy timeout. Processes that create the database at the same
// moment race for its locks while one of them turns the file to WAL and
// writes the schema, and SQLite answers some of them "busy" at once instead
// of waiting (its busy handler could deadlock there, or the file is
// mid-switch): seen with eight hook processes on a new VIBE_HOME.
func retryBusy(ctx context.Context, busy time.Duration, f func() error) error {
	deadline := time.Now().Add(busy)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		err := f()
		var se sqlite3.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite3.ErrBusy && se.Code != sqlite3.ErrLocked) ||
			time.Now().Add(pause).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// apply runs one migration in its own immediate transaction, re-checking the
// version inside it so two processes migrating at once apply it once.
func (s *Store) apply(ctx context.Context, m db.Migration) error {
	return s.Tx(ctx, func(tx *Tx) error {
		var v int
		if err := tx.tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return classify("read schema version", err)
		}
		if v >= m.Version {
			return nil
		}
		if _, err := tx.tx.ExecContext(ctx, m.SQL); err != nil {
			return classify(fmt.Sprintf("migration %04d_%s", m.Version, m.Name), err)
		}
		if _, err := tx.tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version=%d", m.Version)); err != nil {
			return classify("record schema version", err)
		}
		return nil
	})
}

// Tx is one immediate transaction.
type Tx struct {
	tx txConn
}

// Tx runs fn in one immediate transaction: everything fn writes lands, or
// nothing does. It is BEGIN IMMEDIATE … COMMIT on one connection of the
// pool (conn.go says why not an sql.Tx); whatever ends it early (an error,
// a refused COMMIT, a panic in fn) rolls it back before the connection
// returns to the pool.
func (s *Store) Tx(ctx context.Context, fn func(*Tx) error) error {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return classify("begin transaction", err)
	}
	tx := txConn{c: c, rows: new([]*sql.Rows)}
	open := false
	defer func() {
		tx.closeRows()
		if open {
			endTx(c)
		}
		c.Close()
	}()
	if _, err := tx.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return classify("begin transaction", err)
	}
	open = true
	if err := fn(&Tx{tx: tx}); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "COMMIT"); err != nil {
		return classify("commit", err)
	}
	open = false
	return nil
}

// endTx rolls back the transaction c holds. If it is still open after
// that (a ROLLBACK that failed: an I/O error, memory), the connection is
// discarded instead of going back to the pool, where every later
// transaction would fail to begin and the write lock would stay held.
func endTx(c *sql.Conn) {
	c.ExecContext(context.Background(), "ROLLBACK")
	c.Raw(func(dc any) error {
		if sc, ok := dc.(*sqlite3.SQLiteConn); ok && !sc.AutoCommit() {
			return driver.ErrBadConn
		}
		return nil
	})
}

// classify turns SQLite failures into fault kinds a hook can act on: a
// locked, corrupt, read-only or full database is Unavailable (the agent's
// session goes on without it), anything else Internal.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
			return fault.E(fault.Unavailable, op, fmt.Errorf("database is locked by another process: %w", err))
		case sqlite3.ErrCorrupt, sqlite3.ErrNotADB:
			return fault.E(fault.Unavailable, op, fmt.Errorf("database file is corrupt (`vibe doctor --repair` keeps every readable row): %w", err))
		case sqlite3.ErrFull:
			return fault.E(fault.Unavailable, op, fmt.Errorf("disk is full: %w", err))
		case sqlite3.ErrIoErr:
			if strings.Contains(err.Error(), "no space left on device") {
				return fault.E(fault.Unavailable, op, fmt.Errorf("disk is full (free space where VIBE_HOME lives): %w", err))
			}
			return fault.E(fault.Unavailable, op, fmt.Errorf("database cannot be opened or written: %w", err))
		case sqlite3.ErrReadonly, sqlite3.ErrPerm, sqlite3.ErrCantOpen, sqlite3.ErrAuth:
			return fault.E(fault.Unavailable, op, fmt.Errorf("database cannot be opened or written: %w", err))
		case sqlite3.ErrConstraint:
			return fault.E(fault.Invalid, op, err)
		}
	}
	if strings.Contains(err.Error(), "no such module") {
		return fault.E(fault.Internal, op, fmt.Errorf("%w (vibe must be built with -tags sqlite_fts5)", err))
	}
	return fault.E(fault.Internal, op, err)
}

// private makes a missing database folder 0700 and the database with its
// WAL and shared-memory files 0600: it creates an empty database file so
// SQLite (which gives its -wal and -shm files the database's mode) never
// creates them readable by others, and narrows an older install's 0644.
// An existing folder is config.SecureHome's to narrow (VIBE_DB may name a
// file in a folder that is not vibe's).
func private(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		f.Close()
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, st.Mode().Perm()&0o600); err != nil {
				return err
			}
		}
	}
	return nil
}
