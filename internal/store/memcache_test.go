package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// TestMemoryCacheAnswersAsTheQuery: a handle that keeps memory records
// (Options.MemoryCache, as the resident process opens it) answers
// MemoriesByID and SearchMemories exactly as a handle that reads every time, while another
// handle (another process: the CLI, a hook binary) adds, forgets,
// remembers and links memories and marks them checked. Random operations,
// random id sets over two projects, repeated ids and missing ones
// included.
func TestMemoryCacheAnswersAsTheQuery(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "vibe.db")
	open := func(o Options) *Store {
		t.Helper()
		st, err := Open(ctx, path, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	other := open(Options{})
	cached := open(Options{MemoryCache: 16}) // small: the eviction runs too
	fresh := open(Options{})

	rng := rand.New(rand.NewPCG(7, 15))
	projects := []string{"/p/a", "/p/b"}
	var ids []int64
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	write := func(fn func(tx *Tx) error) {
		t.Helper()
		if err := other.Tx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	for step := range 600 {
		at = at.Add(time.Minute)
		switch op := rng.IntN(10); {
		case op < 3 || len(ids) < 4:
			write(func(tx *Tx) error {
				id, added, err := tx.AddMemory(ctx, record.NewMemory{ProjectPath: projects[rng.IntN(2)], Kind: "note",
					Text: fmt.Sprintf("note %d: coverage %d", step, rng.IntN(5)), Source: "cli", At: at})
				if added {
					ids = append(ids, id)
				}
				return err
			})
		case op < 5:
			write(func(tx *Tx) error { return tx.ForgetMemory(ctx, ids[rng.IntN(len(ids))]) })
		case op < 6:
			write(func(tx *Tx) error { return tx.RememberMemory(ctx, ids[rng.IntN(len(ids))], at) })
		case op < 8:
			write(func(tx *Tx) error {
				_, err := tx.LinkConflict(ctx, ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))], at)
				return err
			})
		default:
			write(func(tx *Tx) error { return tx.MarkChecked(ctx, ids[rng.IntN(len(ids))]) })
		}
		for range 2 {
			project := projects[rng.IntN(2)]
			ask := make([]int64, 1+rng.IntN(12))
			for i := range ask {
				ask[i] = ids[rng.IntN(len(ids))]
				if rng.IntN(20) == 0 {
					ask[i] = ids[len(ids)-1] + 1000 // no such memory
				}
			}
			got, err := cached.MemoriesByID(ctx, project, ask)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.MemoriesByID(ctx, project, ask)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("step %d, %s %v:\ncached %+v\nread   %+v", step, project, ask, got, want)
			}
			if len(got) > 0 && len(got[0].Conflicts) > 0 {
				got[0].Conflicts[0] = -1 // a caller's change must not reach the cache
			}
		}
		q := record.TextQuery{Project: projects[rng.IntN(2)], Match: []string{`"coverage"`, `"note"`, `"3"`, `"coverage" AND "1"`}[rng.IntN(4)],
			Limit: 1 + rng.IntN(10)}
		switch rng.IntN(4) {
		case 0:
			q.Project = "" // every project
		case 1:
			q.Kinds = []string{"note"}
		}
		got, err := cached.SearchMemories(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.SearchMemories(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d, search %+v:\ncached %+v\nread   %+v", step, q, got, want)
		}
	}
}

// TestMemoryCacheSurvivesATrimmedLog: when the change log was trimmed past
// the position a cache is valid at, the entries that would have named its
// stale records are gone; the cache then drops everything it kept.
func TestMemoryCacheSurvivesATrimmedLog(t *testing.T) {
	ctx := context.Background()
	other, cached := cacheAndWriter(t)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var id int64
	err := other.Tx(ctx, func(tx *Tx) (err error) {
		id, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: "note", Text: "the effect holds", Source: "cli", At: at})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if ms, err := cached.MemoriesByID(ctx, "/p", []int64{id}); err != nil || len(ms) != 1 {
		t.Fatalf("read %v, %v", ms, err)
	}
	err = other.Tx(ctx, func(tx *Tx) error {
		if err := tx.ForgetMemory(ctx, id); err != nil {
			return err
		}
		// Twelve thousand changes of other memories: the trim keeps the
		// last ten thousand, so the forget's entry is gone.
		_, err := tx.tx.ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
INSERT INTO memory_changes (memory_id) SELECT -i FROM n`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := other.db.QueryRowContext(ctx, "SELECT count(*) FROM memory_changes WHERE memory_id = ?", id).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the forget's log entry was not trimmed (%d, %v): the test proves nothing", n, err)
	}
	if ms, err := cached.MemoriesByID(ctx, "/p", []int64{id}); err != nil || len(ms) != 0 {
		t.Fatalf("a memory forgotten behind a trimmed log is still returned: %+v, %v", ms, err)
	}
}

// TestMemoryCacheKeepsNoRecordReadBeforeAChangeItSkipped: records read by
// a call whose position another call has since moved past are not kept:
// the change between (here a forget) is already behind the cache's
// position, so nothing would drop them. Also, a link written without
// resuperseding (as an import could) is logged like any other.
func TestMemoryCacheKeepsNoRecordReadBeforeAChangeItSkipped(t *testing.T) {
	ctx := context.Background()
	other, cached := cacheAndWriter(t)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var x, y int64
	err := other.Tx(ctx, func(tx *Tx) (err error) {
		if x, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: "note", Text: "the effect holds", Source: "cli", At: at}); err != nil {
			return err
		}
		y, _, err = tx.AddMemory(ctx, record.NewMemory{ProjectPath: "/p", Kind: "note", Text: "the batch is clean", Source: "cli", At: at})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cached.MemoriesByID(ctx, "/p", []int64{y}); err != nil { // the cache knows its position
		t.Fatal(err)
	}
	slow := func(ctx context.Context, project string, ids []int64) ([]record.MemoryRecord, error) {
		ms, err := cached.readMemories(ctx, project, ids) // x as it is now
		if err != nil {
			return nil, err
		}
		if err := other.Tx(ctx, func(tx *Tx) error { return tx.ForgetMemory(ctx, x) }); err != nil {
			return nil, err
		}
		_, err = cached.MemoriesByID(ctx, project, []int64{y}) // another call moves past the forget
		return ms, err
	}
	if ms, err := cached.cachedMemories(ctx, "/p", []int64{x}, slow); err != nil || len(ms) != 1 {
		t.Fatalf("read %+v, %v", ms, err)
	}
	if ms, err := cached.MemoriesByID(ctx, "/p", []int64{x}); err != nil || len(ms) != 0 {
		t.Fatalf("a forgotten memory read before its forget was kept: %+v, %v", ms, err)
	}

	if _, err := other.db.ExecContext(ctx, "INSERT INTO memory_links (memory_id, other_id, created_at) VALUES (?, ?, 0)", y, x); err != nil {
		t.Fatal(err)
	}
	ms, err := cached.MemoriesByID(ctx, "/p", []int64{y})
	if err != nil || len(ms) != 1 || !reflect.DeepEqual(ms[0].Conflicts, []int64{x}) {
		t.Fatalf("after a link was written the cache answers %+v, %v", ms, err)
	}
}

// cacheAndWriter opens one database twice: a handle that writes (another
// process) and one that keeps 64 memory records.
func cacheAndWriter(t *testing.T) (other, cached *Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vibe.db")
	for _, h := range []struct {
		st **Store
		o  Options
	}{{&other, Options{}}, {&cached, Options{MemoryCache: 64}}} {
		st, err := Open(context.Background(), path, h.o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		*h.st = st
	}
	return other, cached
}
