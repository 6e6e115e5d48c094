package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/vibe-science/vibe/internal/privacy"
	"github.com/vibe-science/vibe/internal/store/record"
)

// AddLiteratureSearch records a search. A tool call already recorded (same
// session and tool_use_id, a hook re-run) adds nothing; the result says
// whether a row was added.
func (t *Tx) AddLiteratureSearch(ctx context.Context, l record.LiteratureSearch) (int64, bool, error) {
	if l.ToolUseID != "" {
		var id int64
		err := t.tx.QueryRowContext(ctx, "SELECT id FROM literature_searches WHERE session_id = ? AND tool_use_id = ?",
			l.SessionID, l.ToolUseID).Scan(&id)
		if err == nil {
			return id, false, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, false, classify("find literature search", err)
		}
	}
	var results any
	if l.ResultsCount != nil {
		results = *l.ResultsCount
	}
	var papers any
	if len(l.KeyPapers) > 0 {
		papers = marshalIDs(l.KeyPapers)
	}
	res, err := t.tx.ExecContext(ctx, `
INSERT INTO literature_searches (session_id, project_path, query, sources, results_count, key_papers, search_layer,
    gate_context, tool_use_id, ts)
VALUES (?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?)`,
		l.SessionID, l.ProjectPath, privacy.Scrub(l.Query), marshalIDs(l.Sources), results, papers, l.Layer,
		l.GateContext, l.ToolUseID, l.At.UnixMilli())
	if err != nil {
		return 0, false, classify("add literature search", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, false, classify("add literature search", err)
	}
	for _, p := range l.Retrieved {
		if _, err := t.tx.ExecContext(ctx, `INSERT OR IGNORE INTO literature_papers (search_id, project_path, paper_id)
VALUES (?, ?, ?)`, id, l.ProjectPath, p); err != nil {
			return 0, false, classify("add literature search", err)
		}
	}
	return id, true, nil
}

type litRowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const countedSearch = `COALESCE(gate_context, '') <> '` + record.LiteratureUncounted + `'`

func hasLiteratureSearch(ctx context.Context, q litRowQuerier, session string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM literature_searches WHERE session_id = ? AND `+
		countedSearch+`)`, session).Scan(&n)
	return n == 1, classify("check literature searches", err)
}

func actionsSinceLiterature(ctx context.Context, q litRowQuerier, session string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `
SELECT count(*) FROM spine_entries WHERE session_id = ?1 AND ts > COALESCE(
    (SELECT max(ts) FROM literature_searches WHERE session_id = ?1 AND `+countedSearch+`), -1)`, session).Scan(&n)
	return n, classify("count actions since literature", err)
}

// HasLiteratureSearch reports whether the session has a search that counts
// for gate L-1.
func (t *Tx) HasLiteratureSearch(ctx context.Context, session string) (bool, error) {
	return hasLiteratureSearch(ctx, t.tx, session)
}

// HasLiteratureSearch reports whether the session has a search that counts
// for gate L-1.
func (s *Store) HasLiteratureSearch(ctx context.Context, session string) (bool, error) {
	return hasLiteratureSearch(ctx, s.db, session)
}

// ActionsSinceLiterature counts the session's spine entries after its last
// counted literature search (all of them when there was none).
func (t *Tx) ActionsSinceLiterature(ctx context.Context, session string) (int, error) {
	return actionsSinceLiterature(ctx, t.tx, session)
}

// ActionsSinceLiterature counts the session's spine entries after its last
// counted literature search (all of them when there was none).
func (s *Store) ActionsSinceLiterature(ctx context.Context, session string) (int, error) {
	return actionsSinceLiterature(ctx, s.db, session)
}

// LiteratureSearches lists recorded searches, newest first, of one session
// or (session "") of one project (project "" means every project).
func (s *Store) LiteratureSearches(ctx context.Context, project, session string, limit int) ([]record.LiteratureSearch, error) {
	if limit <= 0 {
		limit = 50
	}
	rows, err := s.db.QueryContext(ctx, `
SELECT id, session_id, project_path, query, sources, COALESCE(key_papers, '[]'), results_count, search_layer,
       COALESCE(gate_context, ''), COALESCE(tool_use_id, ''), ts
FROM literature_searches WHERE (?1 = '' OR project_path = ?1) AND (?2 = '' OR session_id = ?2)
ORDER BY ts DESC, id DESC LIMIT ?3`, project, session, limit)
	if err != nil {
		return nil, classify("list literature searches", err)
	}
	defer rows.Close()
	var out []record.LiteratureSearch
	for rows.Next() {
		var l record.LiteratureSearch
		var sources, papers string
		var results sql.NullInt64
		var ts int64
		if err := rows.Scan(&l.ID, &l.SessionID, &l.ProjectPath, &l.Query, &sources, &papers, &results, &l.Layer,
			&l.GateContext, &l.ToolUseID, &ts); err != nil {
			return nil, classify("list literature searches", err)
		}
		l.Sources, l.KeyPapers = unmarshalIDs(sources), unmarshalIDs(papers)
		if results.Valid {
			v := int(results.Int64)
			l.ResultsCount = &v
		}
		l.At = time.UnixMilli(ts).UTC()
		out = append(out, l)
	}
	return out, classify("list literature searches", rows.Err())
}
