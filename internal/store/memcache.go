package store

import (
	"context"
	"slices"
	"sync"

	"github.com/vibe-science/vibe/internal/store/record"
)

// memCache keeps the memory records a long-lived handle read
// (Options.MemoryCache), valid as of a position in the memory_changes log
// (migration 0013). Before the kept records are used, the changes logged
// since are read (one indexed range, empty almost always) and the memories
// they name are dropped; a log trimmed past the position drops everything.
//
// Records are kept whole, forgotten flag and project included, so a kept
// record answers exactly what the SQL it stands for would: the callers
// filter it as their WHERE does.
type memCache struct {
	mu   sync.Mutex
	max  int
	at   int64 // log position the records are valid at; < 0: not read yet
	rows map[int64]record.MemoryRecord
}

func newMemCache(max int) *memCache {
	return &memCache{max: max, at: -1, rows: make(map[int64]record.MemoryRecord)}
}

// sync brings the cache to the log's current position and returns it,
// holding c.mu (the caller unlocks).
func (c *memCache) sync(ctx context.Context, db queryer) (int64, error) {
	c.mu.Lock()
	if c.at < 0 {
		var at int64
		if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM memory_changes").Scan(&at); err != nil {
			return 0, classify("read memory changes", err)
		}
		c.at = at
		clear(c.rows)
		return c.at, nil
	}
	rows, err := db.QueryContext(ctx, "SELECT seq, memory_id FROM memory_changes WHERE seq > ? ORDER BY seq", c.at)
	if err != nil {
		return 0, classify("read memory changes", err)
	}
	defer rows.Close()
	first := true
	for rows.Next() {
		var seq, id int64
		if err := rows.Scan(&seq, &id); err != nil {
			return 0, classify("read memory changes", err)
		}
		if first && seq != c.at+1 {
			clear(c.rows) // entries after c.at were trimmed away
		}
		first = false
		delete(c.rows, id)
		c.at = seq
	}
	if err := rows.Err(); err != nil {
		return 0, classify("read memory changes", err)
	}
	return c.at, nil
}

// keep adds records read at or after position at, unless another call
// moved the cache on meanwhile (its position is the newer truth).
func (c *memCache) keep(at int64, ms []record.MemoryRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at != at {
		return
	}
	for _, m := range ms {
		if len(c.rows) >= c.max {
			// Full: drop a quarter (at least one), whichever the map
			// yields first.
			n := max(c.max/4, 1)
			for id := range c.rows {
				if n <= 0 {
					break
				}
				delete(c.rows, id)
				n--
			}
		}
		c.rows[m.ID] = own(m)
	}
}

// own is m with its own copies of what it points to, so that no caller
// changes a kept record through the one it was given.
func own(m record.MemoryRecord) record.MemoryRecord {
	m.Conflicts, m.DisputedBy = slices.Clone(m.Conflicts), slices.Clone(m.DisputedBy)
	for _, p := range []**int64{&m.SupersededBy, &m.Disputes} {
		if *p != nil {
			id := **p
			*p = &id
		}
	}
	return m
}

// cachedMemories is MemoriesByID through the cache: the kept records of
// ids that belong to project and are not forgotten, and the others read
// by read (the uncached query), in the order of ids.
func (s *Store) cachedMemories(ctx context.Context, project string, ids []int64,
	read func(ctx context.Context, project string, ids []int64) ([]record.MemoryRecord, error)) ([]record.MemoryRecord, error) {
	c := s.memories
	at, err := c.sync(ctx, s.db)
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	byID := make(map[int64]record.MemoryRecord, len(ids))
	var missing []int64
	for _, id := range ids {
		if m, ok := c.rows[id]; ok {
			if m.ProjectPath == project && !m.Forgotten {
				byID[id] = own(m)
			}
			continue
		}
		missing = append(missing, id)
	}
	c.mu.Unlock()
	if len(missing) > 0 {
		ms, err := read(ctx, project, missing)
		if err != nil {
			return nil, err
		}
		c.keep(at, ms)
		for _, m := range ms {
			byID[m.ID] = m
		}
	}
	return inOrder(ids, byID), nil
}
