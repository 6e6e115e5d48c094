package store

import (
	"context"
	"database/sql"
)

// How the store runs its statements: without the goroutines a cancellable
// context costs.
//
// Given a context that can be cancelled, database/sql watches every Rows,
// and every statement of an sql.Tx, from a goroutine of its own, and the
// SQLite driver runs each Exec on another goroutine while the caller waits.
// The hook handlers run under their time budget, a cancellable context, so
// a hook started 6 to 16 goroutines (PostToolUse 10, SessionEnd 16), each a
// wake-up of an idle thread: in the resident process, scheduling and
// thread wake-ups were a third of its CPU time per hook. Detached, a hook
// starts only the worker's own two.
//
// So a statement gets its context without the cancellation (detach), and a
// transaction is BEGIN IMMEDIATE … COMMIT on one connection (Store.Tx)
// instead of an sql.Tx. What a cancelled context still does: a statement
// that starts after it is refused with the context's error (checked below;
// a QueryRow keeps the cancelled context, which the driver refuses before
// its first step), so a handler that overran its budget, or a worker
// shutting down, stops at its next statement and its transaction rolls
// back. What it no longer does is
// interrupt a statement already running. vibe's statements take well under
// a millisecond; the long wait is for another writer's lock, which SQLite's
// busy handler sleeps through without looking at interrupts either, and the
// busy timeout bounds.
//
// The wait for a free connection is not bounded by the context either
// (database/sql waits with the context the statement gets). The writer
// has one connection: a Store call made inside a Tx callback, or inside a
// callback that streams rows from the same handle, waits for itself. That
// ended at the hook's budget before; now it never ends. No caller does it,
// and none may.

// detach is ctx for one statement: its values without its cancellation, or
// ctx itself when it is already done (or cannot be).
func detach(ctx context.Context) context.Context {
	if ctx.Done() == nil || ctx.Err() != nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// sqlDB is the store's pool, its statements detached.
type sqlDB struct{ *sql.DB }

func (d sqlDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return d.DB.QueryContext(detach(ctx), query, args...)
}

func (d sqlDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return d.DB.QueryRowContext(detach(ctx), query, args...)
}

func (d sqlDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := ctx.Err(); err != nil { // neither database/sql nor the driver refuses an Exec for it
		return nil, err
	}
	return d.DB.ExecContext(detach(ctx), query, args...)
}

// txConn is the connection a transaction holds, its statements detached.
// It keeps the Rows it hands out: an sql.Tx closed its Rows when it ended,
// and a Rows left open would keep Store.Tx from giving the connection back
// (sql.Conn.Close waits for it), the writer's only one.
type txConn struct {
	c    *sql.Conn
	rows *[]*sql.Rows
}

func (t txConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows, err := t.c.QueryContext(detach(ctx), query, args...)
	if err == nil {
		*t.rows = append(*t.rows, rows)
	}
	return rows, err
}

// closeRows closes the Rows the transaction's statements left open.
func (t txConn) closeRows() {
	for _, r := range *t.rows {
		r.Close()
	}
	*t.rows = nil
}

func (t txConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.c.QueryRowContext(detach(ctx), query, args...)
}

func (t txConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := ctx.Err(); err != nil { // neither database/sql nor the driver refuses an Exec for it
		return nil, err
	}
	return t.c.ExecContext(detach(ctx), query, args...)
}
