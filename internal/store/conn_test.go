package store

import (
	"context"
	"errors"
	"runtime/metrics"
	"testing"
	"time"
)

// goroutinesCreated is how many goroutines the process has started.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// countRows is how many rows table t holds.
func countRows(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func newTable(t *testing.T) *Store {
	t.Helper()
	s := openTest(t)
	if _, err := s.db.ExecContext(context.Background(), "CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	return s
}

// Statements under a cancellable context, in a transaction and on the
// pool, start no goroutines: database/sql's watchers and the driver's
// Exec goroutine cost a thread wake-up each (conn.go). With an sql.Tx and
// the context passed on, these 50 rounds started 300.
func TestStatementsStartNoGoroutines(t *testing.T) {
	s := newTable(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := goroutinesCreated()
	for i := 0; i < 50; i++ {
		err := s.Tx(ctx, func(tx *Tx) error {
			if _, err := tx.tx.ExecContext(ctx, "INSERT INTO t (x) VALUES (?)", i); err != nil {
				return err
			}
			rows, err := tx.tx.QueryContext(ctx, "SELECT x FROM t WHERE x = ?", i)
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			rows.Close()
			var n int
			return tx.tx.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n)
		})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.db.QueryContext(ctx, "SELECT x FROM t LIMIT 1")
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if n := goroutinesCreated() - before; n > 5 {
		t.Fatalf("50 transactions and reads started %d goroutines; want none (a few for the runtime's own)", n)
	}
	if n := countRows(t, s); n != 50 {
		t.Fatalf("%d rows, want 50", n)
	}
}

// A context cancelled inside a transaction stops it at its next statement
// and rolls back what it wrote; the connection goes back to the pool
// without the transaction, so the next one works.
func TestTxCancelledRollsBack(t *testing.T) {
	s := newTable(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := s.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, "INSERT INTO t (x) VALUES (1)"); err != nil {
			return err
		}
		cancel()
		_, err := tx.tx.ExecContext(ctx, "INSERT INTO t (x) VALUES (2)")
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Tx = %v, want context.Canceled", err)
	}
	if n := countRows(t, s); n != 0 {
		t.Fatalf("%d rows after a cancelled transaction, want 0", n)
	}
	// Cancelled before COMMIT: refused, nothing lands.
	ctx2, cancel2 := context.WithCancel(context.Background())
	err = s.Tx(ctx2, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx2, "INSERT INTO t (x) VALUES (3)")
		cancel2()
		return err
	})
	if err == nil {
		t.Fatal("a transaction whose context was cancelled before COMMIT committed")
	}
	if n := countRows(t, s); n != 0 {
		t.Fatalf("%d rows after a refused COMMIT, want 0", n)
	}
	if err := s.Tx(context.Background(), func(tx *Tx) error {
		_, err := tx.tx.ExecContext(context.Background(), "INSERT INTO t (x) VALUES (4)")
		return err
	}); err != nil {
		t.Fatalf("the next transaction: %v", err)
	}
	if n := countRows(t, s); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
}

// A panic inside a transaction rolls it back before the connection returns
// to the pool: the next transaction must not find one already open.
func TestTxPanicRollsBack(t *testing.T) {
	s := newTable(t)
	func() {
		defer func() { recover() }()
		s.Tx(context.Background(), func(tx *Tx) error {
			if _, err := tx.tx.ExecContext(context.Background(), "INSERT INTO t (x) VALUES (1)"); err != nil {
				t.Fatal(err)
			}
			panic("handler bug")
		})
	}()
	// A connection left inside the transaction would hold the pool's only
	// slot: bounded, so that fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Tx(ctx, func(tx *Tx) error {
		_, err := tx.tx.ExecContext(ctx, "INSERT INTO t (x) VALUES (2)")
		return err
	}); err != nil {
		t.Fatalf("the transaction after a panic: %v", err)
	}
	if n := countRows(t, s); n != 1 {
		t.Fatalf("%d rows, want 1 (the panicking transaction's row rolled back)", n)
	}
}

// Every way a statement is asked for refuses a context already cancelled.
func TestCancelledStatementsRefused(t *testing.T) {
	s := newTable(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.db.ExecContext(ctx, "INSERT INTO t (x) VALUES (1)"); !errors.Is(err, context.Canceled) {
		t.Errorf("Exec = %v", err)
	}
	if _, err := s.db.QueryContext(ctx, "SELECT x FROM t"); !errors.Is(err, context.Canceled) {
		t.Errorf("Query = %v", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); !errors.Is(err, context.Canceled) {
		t.Errorf("QueryRow = %v", err)
	}
	if err := s.Tx(ctx, func(*Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Tx = %v", err)
	}
	// Inside a transaction, through the connection it holds.
	ctx2, cancel2 := context.WithCancel(context.Background())
	err := s.Tx(ctx2, func(tx *Tx) error {
		cancel2()
		if err := tx.tx.QueryRowContext(ctx2, "SELECT count(*) FROM t").Scan(&n); !errors.Is(err, context.Canceled) {
			t.Errorf("QueryRow in Tx = %v", err)
		}
		if _, err := tx.tx.QueryContext(ctx2, "SELECT x FROM t"); !errors.Is(err, context.Canceled) {
			t.Errorf("Query in Tx = %v", err)
		}
		_, err := tx.tx.ExecContext(ctx2, "INSERT INTO t (x) VALUES (1)")
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Exec in Tx = %v", err)
	}
	if n := countRows(t, s); n != 0 {
		t.Fatalf("%d rows, want 0", n)
	}
}

// Rows a transaction's statements leave open are closed when it ends, so
// the connection goes back to the pool (sql.Conn.Close waits for open
// Rows): on success, on an error and on a panic. Bounded, so a regression
// fails instead of hanging.
func TestTxClosesLeftRows(t *testing.T) {
	s := newTable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	leak := func(tx *Tx) {
		if _, err := tx.tx.ExecContext(ctx, "INSERT INTO t (x) VALUES (1), (2)"); err != nil {
			t.Fatal(err)
		}
		rows, err := tx.tx.QueryContext(ctx, "SELECT x FROM t")
		if err != nil {
			t.Fatal(err)
		}
		rows.Next() // one row read, the Rows left open
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.Tx(ctx, func(tx *Tx) error { leak(tx); return nil }); err != nil {
			t.Error(err)
		}
		if err := s.Tx(ctx, func(tx *Tx) error { leak(tx); return errors.New("handler error") }); err == nil {
			t.Error("the failing transaction returned nil")
		}
		func() {
			defer func() { recover() }()
			s.Tx(ctx, func(tx *Tx) error { leak(tx); panic("handler bug") })
		}()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a transaction that left its Rows open did not give its connection back")
	}
	if n := countRows(t, s); n != 2 {
		t.Fatalf("%d rows, want 2 (the committed transaction's)", n)
	}
}
