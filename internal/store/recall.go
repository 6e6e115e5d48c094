package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/fault"
	"github.com/vibe-science/vibe/internal/store/record"
)

// This file holds the SQL recall and the memory commands need: the FTS5
// search (BM25), reads by id, forgetting, conflict links, export, and the
// few project counts the SessionStart state line shows.

// memoryCols reads a memory with its links: the conflicts are one range of
// memory_links' primary key, a few microseconds a row. Each link comes as
// "id:where:created_at", where says how the other memory stands against
// this one (record.Outranks): f forgotten (or gone), n newer and at least
// as trusted (it supersedes this one), w newer and less trusted (it
// disputes this one), b older and more trusted (this one disputes it), o
// older and no more trusted (this one supersedes it). Trust is compared in
// SQL, as resupersede compares it, so the two never disagree on a float.
const memoryCols = `m.id, m.project_path, COALESCE(m.session_id,''), m.kind, m.text, COALESCE(m.ref,''), m.source,
    m.trust, m.forgotten,
    (SELECT group_concat(l.other_id || ':' || CASE
        WHEN o.id IS NULL OR o.forgotten <> 0 THEN 'f'
        WHEN o.created_at > m.created_at OR (o.created_at = m.created_at AND o.id > m.id) THEN
            CASE WHEN o.trust >= m.trust THEN 'n' ELSE 'w' END
        WHEN o.trust > m.trust THEN 'b' ELSE 'o' END || ':' || COALESCE(o.created_at, 0))
     FROM memory_links l LEFT JOIN memories o ON o.id = l.other_id WHERE l.memory_id = m.id), m.created_at`

func scanMemory(row interface{ Scan(...any) error }, extra ...any) (record.MemoryRecord, error) {
	var m record.MemoryRecord
	var links sql.NullString
	var created int64
	dst := append([]any{&m.ID, &m.ProjectPath, &m.SessionID, &m.Kind, &m.Text, &m.Ref, &m.Source,
		&m.Trust, &m.Forgotten, &links, &created}, extra...)
	if err := row.Scan(dst...); err != nil {
		return m, err
	}
	if links.Valid {
		readLinks(&m, links.String)
	}
	m.CreatedAt = time.UnixMilli(created).UTC()
	return m, nil
}

// readLinks fills m's Conflicts, SupersededBy, Disputes and DisputedBy
// from memoryCols' link list. Of several that supersede m (or that m
// disputes) the newest counts, as in resupersede.
func readLinks(m *record.MemoryRecord, list string) {
	type link struct {
		id, at int64
		where  byte
	}
	var ls []link
	for _, f := range strings.Split(list, ",") {
		id, rest, ok1 := strings.Cut(f, ":")
		where, at, ok2 := strings.Cut(rest, ":")
		l := link{}
		var err1, err2 error
		l.id, err1 = strconv.ParseInt(id, 10, 64)
		l.at, err2 = strconv.ParseInt(at, 10, 64)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || len(where) != 1 {
			continue
		}
		l.where = where[0]
		ls = append(ls, l)
		m.Conflicts = append(m.Conflicts, l.id)
	}
	slices.Sort(m.Conflicts)
	// Newest first (created_at, then id).
	slices.SortFunc(ls, func(a, b link) int {
		if c := cmp.Compare(b.at, a.at); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	for _, l := range ls {
		id := l.id
		switch l.where {
		case 'n':
			if m.SupersededBy == nil {
				m.SupersededBy = &id
			}
		case 'b':
			if m.Disputes == nil {
				m.Disputes = &id
			}
		case 'w':
			m.DisputedBy = append(m.DisputedBy, id)
		}
	}
}

// queryer is a database or a transaction: the searches below run in
// either, so a hook can check a new memory against the others in the
// transaction that adds it.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SearchMemories runs an FTS5 search over the project's memories that are
// not forgotten, best BM25 first (ties by id).
func (s *Store) SearchMemories(ctx context.Context, q record.TextQuery) ([]record.TextHit, error) {
	if s.memories == nil {
		return searchMemories(ctx, s.db, q, nil)
	}
	return searchMemories(ctx, s.db, q, s.cachedHits)
}

// SearchMemories is Store.SearchMemories inside a transaction (it sees the
// transaction's own writes).
func (t *Tx) SearchMemories(ctx context.Context, q record.TextQuery) ([]record.TextHit, error) {
	return searchMemories(ctx, t.tx, q, nil)
}

// searchMemories is SearchMemories on db. cached, when not nil, reads the
// memories a project's search keeps through the handle's memory cache
// (cachedHits) instead of hydrate.
func searchMemories(ctx context.Context, db queryer, q record.TextQuery,
	cached func(context.Context, string, []rankedID) ([]record.TextHit, error)) ([]record.TextHit, error) {
	if q.Match == "" || q.Limit <= 0 {
		return nil, nil
	}
	// Fast path: rank in FTS5 alone, then read only the best rows. Reading
	// a memory costs a page read or two, so filtering every match by
	// project first costs far more than BM25 itself. The project's best
	// hits are its first rows in the global BM25 order, so when the global
	// best `fetch` hold Limit of them, or were all the matches, the answer
	// is exact. Which of them the query keeps is one narrow read; only the
	// best Limit are read in full (text, links).
	//
	// A kinds filter, as a rule, leaves out most of the best matches:
	// SessionStart searches the last session's narrative and keeps no
	// narrative, which that query matches best; `vibe recall --kind` keeps
	// one kind of a dozen. The global order would rarely answer, so such a
	// search filters first.
	if len(q.Kinds) > 0 {
		ranked, err := rankFiltered(ctx, db, q)
		if err != nil {
			return nil, err
		}
		return hydrate(ctx, db, q, ranked)
	}
	fetch := max(4*q.Limit, 40)
	ranked, err := rankText(ctx, db, q, fetch)
	if err != nil {
		return nil, err
	}
	kept, err := keptOf(ctx, db, q, ranked)
	if err != nil {
		return nil, err
	}
	if len(kept) >= q.Limit || len(ranked) < fetch {
		kept = kept[:min(len(kept), q.Limit)]
		if cached != nil && q.Project != "" {
			// keptOf applied the query's filters; the cache re-checks only
			// the project and forgetting, which are all that can change.
			return cached(ctx, q.Project, kept)
		}
		return hydrate(ctx, db, q, kept)
	}
	// Other projects (or dates, sessions the query leaves out) own most of
	// the best matches: rank only the matches the query keeps, reading each one's
	// row to filter it (no BM25 for those left out), and read in full
	// only the best Limit.
	if ranked, err = rankFiltered(ctx, db, q); err != nil {
		return nil, err
	}
	return hydrate(ctx, db, q, ranked)
}

type rankedID struct {
	id    int64
	score float64
}

// keptSelect is the query of cols of the ranked memories that q keeps
// (keeps), and its arguments; the ids go in as one JSON array (idList).
func keptSelect(cols string, q record.TextQuery, ranked []rankedID) (string, []any) {
	ids := make([]int64, len(ranked))
	for i, r := range ranked {
		ids[i] = r.id
	}
	var b strings.Builder
	b.WriteString("SELECT " + cols + " FROM memories m WHERE ")
	args := keeps(&b, q, make([]any, 0, len(q.Kinds)+4))
	b.WriteString(" AND m.id IN (SELECT value FROM json_each(?))")
	return b.String(), append(args, idList(ids))
}

// rankText is the BM25 order of all indexed memories (every project),
// best first, at most limit.
func rankText(ctx context.Context, db queryer, q record.TextQuery, limit int) ([]rankedID, error) {
	query := "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
	args := []any{q.Match}
	if q.MinID > 0 {
		// A rowid range on the FTS5 table itself, so FTS5 skips the older
		// postings rather than scoring and then discarding them.
		query += " AND rowid >= ?"
		args = append(args, q.MinID)
	}
	query += " ORDER BY 2, 1 LIMIT ?"
	args = append(args, limit)
	return queryRanked(ctx, db, query, args)
}

// queryRanked runs a query of (id, BM25 score) rows, in its order.
func queryRanked(ctx context.Context, db queryer, query string, args []any) ([]rankedID, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify("search memories", err)
	}
	defer rows.Close()
	var out []rankedID
	for rows.Next() {
		var r rankedID
		if err := rows.Scan(&r.id, &r.score); err != nil {
			return nil, classify("search memories", err)
		}
		out = append(out, r)
	}
	return out, classify("search memories", rows.Err())
}

// keeps writes the conditions a memory m must meet to answer q (its
// project, since, session and kinds, not forgotten) and appends their
// arguments.
func keeps(b *strings.Builder, q record.TextQuery, args []any) []any {
	b.WriteString("m.forgotten = 0")
	if q.Project != "" {
		b.WriteString(" AND +m.project_path = ?")
		args = append(args, q.Project)
	}
	if !q.Since.IsZero() {
		b.WriteString(" AND +m.created_at >= ?")
		args = append(args, q.Since.UnixMilli())
	}
	if q.Session != "" {
		b.WriteString(" AND +m.session_id = ?")
		args = append(args, q.Session)
	}
	if len(q.Kinds) > 0 {
		b.WriteString(" AND m.kind IN (")
		for i, k := range q.Kinds {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("?")
			args = append(args, k)
		}
		b.WriteString(")")
	}
	return args
}

// keptOf is the ranked memories that q keeps, in the ranked order: the
// same rows hydrate returns, without reading their text and links.
func keptOf(ctx context.Context, db queryer, q record.TextQuery, ranked []rankedID) ([]rankedID, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	query, args := keptSelect("m.id", q, ranked)
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify("search memories", err)
	}
	defer rows.Close()
	in := make(map[int64]bool, len(ranked))
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, classify("search memories", err)
		}
		in[id] = true
	}
	if err := rows.Err(); err != nil {
		return nil, classify("search memories", err)
	}
	out := make([]rankedID, 0, len(in))
	for _, r := range ranked {
		if in[r.id] {
			out = append(out, r)
		}
	}
	return out, nil
}

// rankFiltered is the BM25 order of the matches q keeps, best first (ties
// by id), at most q.Limit: FTS5 yields the matches, each one's row is read
// by rowid and filtered, and only those kept are scored and sorted.
func rankFiltered(ctx context.Context, db queryer, q record.TextQuery) ([]rankedID, error) {
	var b strings.Builder
	b.WriteString(`SELECT memories_fts.rowid, bm25(memories_fts) FROM memories_fts CROSS JOIN memories m ON m.id = memories_fts.rowid
WHERE memories_fts MATCH ?`)
	args := []any{q.Match}
	if q.MinID > 0 {
		b.WriteString(" AND memories_fts.rowid >= ?")
		args = append(args, q.MinID)
	}
	b.WriteString(" AND ")
	args = keeps(&b, q, args)
	b.WriteString(" ORDER BY 2, 1 LIMIT ?")
	args = append(args, q.Limit)
	return queryRanked(ctx, db, b.String(), args)
}

// hydrate reads the ranked memories that belong to the query's project (and
// kinds) and are not forgotten, keeping the ranked order.
func hydrate(ctx context.Context, db queryer, q record.TextQuery, ranked []rankedID) ([]record.TextHit, error) {
	if len(ranked) == 0 {
		return nil, nil
	}
	query, args := keptSelect(memoryCols, q, ranked)
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify("search memories", err)
	}
	defer rows.Close()
	byID := make(map[int64]record.MemoryRecord, len(ranked))
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, classify("search memories", err)
		}
		byID[m.ID] = m
	}
	if err := rows.Err(); err != nil {
		return nil, classify("search memories", err)
	}
	out := make([]record.TextHit, 0, len(byID))
	for _, r := range ranked {
		if m, ok := byID[r.id]; ok {
			out = append(out, record.TextHit{MemoryRecord: m, BM25: -r.score, Rank: len(out) + 1})
		}
	}
	return out, nil
}

// cachedHits is hydrate of memories keptOf kept, read through the
// handle's memory cache (memcache.go).
func (s *Store) cachedHits(ctx context.Context, project string, kept []rankedID) ([]record.TextHit, error) {
	if len(kept) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(kept))
	for i, r := range kept {
		ids[i] = r.id
	}
	ms, err := s.cachedMemories(ctx, project, ids, s.readMemories)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]record.MemoryRecord, len(ms))
	for _, m := range ms {
		byID[m.ID] = m
	}
	out := make([]record.TextHit, 0, len(ms))
	for _, r := range kept {
		if m, ok := byID[r.id]; ok {
			out = append(out, record.TextHit{MemoryRecord: m, BM25: -r.score, Rank: len(out) + 1})
		}
	}
	return out, nil
}

// NewestMatches reads the newest memories of a project (not forgotten)
// that match an FTS5 expression, newest first, at most limit. FTS5 walks
// its postings in rowid order and stops at the limit, so the cost is
// bounded however common the words are, where a BM25 order must score
// every match: the contradiction check of a new memory uses it.
func (s *Store) NewestMatches(ctx context.Context, project, match string, limit int) ([]record.MemoryRecord, error) {
	return newestMatches(ctx, s.db, project, match, limit)
}

// NewestMatches is Store.NewestMatches inside a transaction.
func (t *Tx) NewestMatches(ctx context.Context, project, match string, limit int) ([]record.MemoryRecord, error) {
	return newestMatches(ctx, t.tx, project, match, limit)
}

func newestMatches(ctx context.Context, db queryer, project, match string, limit int) ([]record.MemoryRecord, error) {
	if match == "" || limit <= 0 {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, "SELECT "+memoryCols+` FROM memories m
WHERE m.id IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?)
  AND +m.project_path = ? AND m.forgotten = 0 ORDER BY m.id DESC`, match, limit, project)
	if err != nil {
		return nil, classify("search memories", err)
	}
	defer rows.Close()
	var out []record.MemoryRecord
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, classify("search memories", err)
		}
		out = append(out, m)
	}
	return out, classify("search memories", rows.Err())
}

// TermCounts counts, for each FTS5 expression, the indexed memories that
// match it (all projects), stopping at limit: recall only needs to know
// which words are rare and how rare, and a capped count costs at most
// limit postings however common the word is.
func (s *Store) TermCounts(ctx context.Context, exprs []string, limit int) ([]int, error) {
	return termCounts(ctx, s.db, exprs, limit)
}

// TermCounts is Store.TermCounts inside a transaction.
func (t *Tx) TermCounts(ctx context.Context, exprs []string, limit int) ([]int, error) {
	return termCounts(ctx, t.tx, exprs, limit)
}

func termCounts(ctx context.Context, db queryer, exprs []string, limit int) ([]int, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	args := make([]any, 0, 2*len(exprs))
	for i, e := range exprs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?))")
		args = append(args, e, limit)
	}
	counts := make([]int, len(exprs))
	dst := make([]any, len(exprs))
	for i := range counts {
		dst[i] = &counts[i]
	}
	if err := db.QueryRowContext(ctx, b.String(), args...).Scan(dst...); err != nil {
		return nil, classify("count search terms", err)
	}
	return counts, nil
}

// MaxMemoryID is the largest memory id (0 when there is none): ids grow
// with time, so it marks where the newest memories are.
func (s *Store) MaxMemoryID(ctx context.Context) (int64, error) {
	return maxMemoryID(ctx, s.db)
}

// MaxMemoryID is Store.MaxMemoryID inside a transaction.
func (t *Tx) MaxMemoryID(ctx context.Context) (int64, error) {
	return maxMemoryID(ctx, t.tx)
}

func maxMemoryID(ctx context.Context, db queryer) (int64, error) {
	var id sql.NullInt64
	err := db.QueryRowContext(ctx, "SELECT max(id) FROM memories").Scan(&id)
	return id.Int64, classify("read newest memory", err)
}

// MemoriesByID reads the given memories of a project that are not
// forgotten, in the order of ids; ids that are missing, forgotten or of
// another project are left out. Vector hits are hydrated with it.
func (s *Store) MemoriesByID(ctx context.Context, project string, ids []int64) ([]record.MemoryRecord, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if s.memories != nil {
		return s.cachedMemories(ctx, project, ids, s.readMemories)
	}
	return s.readMemories(ctx, project, ids)
}

// readMemories is MemoriesByID's query.
func (s *Store) readMemories(ctx context.Context, project string, ids []int64) ([]record.MemoryRecord, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+memoryCols+
		" FROM memories m WHERE +m.project_path = ? AND m.forgotten = 0 AND m.id IN (SELECT value FROM json_each(?))",
		project, idList(ids))
	if err != nil {
		return nil, classify("read memories", err)
	}
	defer rows.Close()
	byID := make(map[int64]record.MemoryRecord, len(ids))
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, classify("read memories", err)
		}
		byID[m.ID] = m
	}
	if err := rows.Err(); err != nil {
		return nil, classify("read memories", err)
	}
	return inOrder(ids, byID), nil
}

// inOrder is the records of byID in the order of ids, a repeated id once.
func inOrder(ids []int64, byID map[int64]record.MemoryRecord) []record.MemoryRecord {
	out := make([]record.MemoryRecord, 0, len(byID))
	for _, id := range ids {
		if m, ok := byID[id]; ok {
			out = append(out, m)
			delete(byID, id)
		}
	}
	return out
}

// Memory reads one memory by id, forgotten or not.
func (s *Store) Memory(ctx context.Context, id int64) (record.MemoryRecord, error) {
	m, err := scanMemory(s.db.QueryRowContext(ctx, "SELECT "+memoryCols+" FROM memories m WHERE m.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return m, fault.Errorf(fault.NotFound, "read memory", "no memory M-%d (see `vibe recall QUERY`)", id)
	}
	return m, classify("read memory", err)
}

// Memory is Store.Memory inside a transaction.
func (t *Tx) Memory(ctx context.Context, id int64) (record.MemoryRecord, error) {
	m, err := scanMemory(t.tx.QueryRowContext(ctx, "SELECT "+memoryCols+" FROM memories m WHERE m.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return m, fault.Errorf(fault.NotFound, "read memory", "no memory M-%d (see `vibe recall QUERY`)", id)
	}
	return m, classify("read memory", err)
}

// RecentMemories lists a project's memories that are not forgotten, newest
// first (ties by id), at most limit, in full (SessionStart ranks only the
// heads: SalientCandidates).
func (s *Store) RecentMemories(ctx context.Context, project string, limit int) ([]record.MemoryRecord, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+memoryCols+` FROM memories m
WHERE m.project_path = ? AND m.forgotten = 0 ORDER BY m.created_at DESC, m.id DESC LIMIT ?`, project, limit)
	if err != nil {
		return nil, classify("list memories", err)
	}
	defer rows.Close()
	var out []record.MemoryRecord
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, classify("list memories", err)
		}
		out = append(out, m)
	}
	return out, classify("list memories", rows.Err())
}

const salientCandidatesSQL = `SELECT id, kind, trust, superseded_by, created_at
FROM memories INDEXED BY idx_memories_salient
WHERE project_path = ? AND forgotten = 0 AND kind <> '` + record.KindNarrative + `'
ORDER BY created_at DESC, id DESC LIMIT ?`

// SalientCandidates lists the heads of a project's newest memories that
// SessionStart may rank by salience: not forgotten and not narratives
// (layer 1 already summarises the last session, and a narrative is written
// every session), newest first (ties by id, larger first), at most limit.
// It reads one range of idx_memories_salient (0012) and no row; the caller
// reads the few it keeps with MemoriesByID. The WHERE repeats the index's
// literally, or SQLite would not use it (see stablePlans).
func (s *Store) SalientCandidates(ctx context.Context, project string, limit int) ([]record.MemoryHead, error) {
	rows, err := s.db.QueryContext(ctx, salientCandidatesSQL, project, limit)
	if err != nil {
		return nil, classify("list memories", err)
	}
	defer rows.Close()
	out := make([]record.MemoryHead, 0, min(limit, 64))
	for rows.Next() {
		var h record.MemoryHead
		var outranked sql.NullInt64
		var created int64
		if err := rows.Scan(&h.ID, &h.Kind, &h.Trust, &outranked, &created); err != nil {
			return nil, classify("list memories", err)
		}
		if outranked.Valid {
			c := outranked.Int64
			h.OutrankedBy = &c
		}
		h.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, h)
	}
	return out, classify("list memories", rows.Err())
}

// ExportMemories calls fn for every memory that is not forgotten, of one
// project ("" means all), oldest first, streaming so a large export does
// not sit in memory.
func (s *Store) ExportMemories(ctx context.Context, project string, fn func(record.MemoryRecord) error) error {
	rows, err := s.db.QueryContext(ctx, "SELECT "+memoryCols+` FROM memories m
WHERE (?1 = '' OR m.project_path = ?1) AND m.forgotten = 0 ORDER BY m.created_at, m.id`, project)
	if err != nil {
		return classify("export memories", err)
	}
	defer rows.Close()
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return classify("export memories", err)
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return classify("export memories", rows.Err())
}

// MemoryCount counts a project's memories, forgotten ones included: the
// index answers it without reading rows, and recall only needs the size of
// the pool its candidates were drawn from.
func (s *Store) MemoryCount(ctx context.Context, project string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM memories WHERE project_path = ?", project).Scan(&n)
	return n, classify("count memories", err)
}

// ForgetMemory marks a memory forgotten and removes it from the FTS5 index
// and from vec_memories, so no search can return it; its row stays for the
// record. Forgetting a forgotten memory changes nothing.
func (t *Tx) ForgetMemory(ctx context.Context, id int64) error {
	m, err := t.Memory(ctx, id)
	if err != nil {
		return err
	}
	if m.Forgotten {
		return nil
	}
	// The memories_forget trigger (0003) takes it out of the FTS5 index.
	if _, err := t.tx.ExecContext(ctx, "UPDATE memories SET forgotten = 1 WHERE id = ?", id); err != nil {
		return classify("forget memory", err)
	}
	if err := t.deleteVector(ctx, id); err != nil {
		return err
	}
	// The worker skips forgotten memories, so a pending row would only sit
	// in the backlog; RememberMemory queues a new one.
	if _, err := t.tx.ExecContext(ctx, "DELETE FROM embed_queue WHERE memory_id = ? AND status = 'pending'", id); err != nil {
		return classify("forget memory", err)
	}
	// A forgotten memory supersedes nothing: what it pointed down comes
	// back up (or points to the next newer contradiction).
	return t.resupersedeLinked(ctx, id)
}

// RememberMemory undoes ForgetMemory: the memory is indexed again and
// queued for a new vector. Adding a forgotten text again calls it.
func (t *Tx) RememberMemory(ctx context.Context, id int64, now time.Time) error {
	m, err := t.Memory(ctx, id)
	if err != nil {
		return err
	}
	if !m.Forgotten {
		return nil
	}
	// The memories_remember trigger (0003) indexes it again.
	if _, err := t.tx.ExecContext(ctx, "UPDATE memories SET forgotten = 0 WHERE id = ?", id); err != nil {
		return classify("remember memory", err)
	}
	ms := now.UnixMilli()
	if _, err := t.tx.ExecContext(ctx, "INSERT INTO embed_queue (memory_id, created_at, updated_at) VALUES (?, ?, ?)", id, ms, ms); err != nil {
		return classify("queue embedding", err)
	}
	return t.resupersedeLinked(ctx, id)
}

// RaiseTrust sets a memory's trust to trust when that is higher (a
// person restating model output), and updates what it outranks and what
// outranks it.
func (t *Tx) RaiseTrust(ctx context.Context, id int64, trust float64) error {
	res, err := t.tx.ExecContext(ctx, "UPDATE memories SET trust = ? WHERE id = ? AND trust < ?", trust, id, trust)
	if err != nil {
		return classify("raise memory trust", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	return t.resupersede(ctx, "id = ? OR id IN (SELECT other_id FROM memory_links WHERE memory_id = ?)", id, id)
}

// UncheckedMemories lists, oldest first, at most limit memories stored
// without the contradiction check (NewMemory.Checked false: what the hooks
// write), forgotten or not.
func (s *Store) UncheckedMemories(ctx context.Context, limit int) ([]record.MemoryRecord, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+memoryCols+` FROM memories m WHERE m.unchecked = 1 ORDER BY m.id LIMIT ?`, limit)
	if err != nil {
		return nil, classify("list unchecked memories", err)
	}
	defer rows.Close()
	var out []record.MemoryRecord
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, classify("list unchecked memories", err)
		}
		out = append(out, m)
	}
	return out, classify("list unchecked memories", rows.Err())
}

// MarkChecked records that a memory's contradictions were checked.
func (t *Tx) MarkChecked(ctx context.Context, id int64) error {
	_, err := t.tx.ExecContext(ctx, "UPDATE memories SET unchecked = 0 WHERE id = ?", id)
	return classify("mark memory checked", err)
}

// LinkConflict records that memories id and other contradict each other
// (a link in both directions; linking twice changes nothing) and updates
// which of the two recall ranks down (resupersede). It reports whether
// the link is new.
func (t *Tx) LinkConflict(ctx context.Context, id, other int64, at time.Time) (bool, error) {
	if id == other {
		return false, nil
	}
	ms := at.UnixMilli()
	res, err := t.tx.ExecContext(ctx, `
INSERT OR IGNORE INTO memory_links (memory_id, other_id, created_at) VALUES (?1, ?2, ?3), (?2, ?1, ?3)`,
		id, other, ms)
	if err != nil {
		return false, classify("record memory conflict", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	return true, t.resupersede(ctx, "id IN (?, ?)", id, other)
}

// resupersede recomputes superseded_by for the memories where matches: the
// linked memory, not forgotten, that outranks the row (record.Outranks:
// trust, then recency). That is the newest one newer and at least as
// trusted (it supersedes the row), else the newest one older and more
// trusted (the row disputes it, and it stays current). The column is what
// outranks a memory, whichever way, so that SessionStart ranks it down from
// the index alone (0012); a read tells the two apart (memoryCols).
func (t *Tx) resupersede(ctx context.Context, where string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, `
UPDATE memories SET superseded_by = COALESCE(
    (SELECT o.id FROM memory_links l JOIN memories o ON o.id = l.other_id
     WHERE l.memory_id = memories.id AND o.forgotten = 0 AND o.trust >= memories.trust
       AND (o.created_at > memories.created_at OR (o.created_at = memories.created_at AND o.id > memories.id))
     ORDER BY o.created_at DESC, o.id DESC LIMIT 1),
    (SELECT o.id FROM memory_links l JOIN memories o ON o.id = l.other_id
     WHERE l.memory_id = memories.id AND o.forgotten = 0 AND o.trust > memories.trust
       AND (o.created_at < memories.created_at OR (o.created_at = memories.created_at AND o.id < memories.id))
     ORDER BY o.created_at DESC, o.id DESC LIMIT 1))
WHERE `+where, args...)
	return classify("record superseded memory", err)
}

// resupersedeLinked recomputes superseded_by for the memories linked to id
// (after id was forgotten or remembered).
func (t *Tx) resupersedeLinked(ctx context.Context, id int64) error {
	return t.resupersede(ctx, "id IN (SELECT other_id FROM memory_links WHERE memory_id = ?)", id)
}

// The counts SessionCounts reads, for project ?1: the claims still in play
// (latest status neither KILLED nor VERIFIED) and the gates whose latest
// run, per gate and claim, failed. Both read one index range in group
// order (0011): a claim is in play unless its latest non-null status
// closed it, and the status of a group's latest row is the bare column
// beside max(id), which SQLite takes from the row holding the maximum.
const (
	activeClaimsSQL = `SELECT (SELECT count(DISTINCT claim_id) FROM claim_events WHERE project_path = ?1)
 - (SELECT count(*) FROM (
      SELECT max(id), new_status FROM claim_events
      WHERE project_path = ?1 AND new_status IS NOT NULL GROUP BY claim_id)
    WHERE new_status IN ('KILLED', 'VERIFIED'))`
	pendingGatesSQL = `SELECT count(*) FROM (
    SELECT max(id), status FROM gate_checks WHERE project_path = ?1 GROUP BY gate_id, COALESCE(claim_id, ''))
  WHERE status = 'FAIL'`
)
