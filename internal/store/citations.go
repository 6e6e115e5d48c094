package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/vibe-science/vibe/internal/store/record"
)

// maxIDsPerQuery bounds the ids of one IN list (SQLite allows 32766 host
// parameters; a smaller chunk keeps each statement cheap).
const maxIDsPerQuery = 500

// PaperSources returns, for each of ids the project retrieved, what
// retrieved it: the recorded literature searches whose results carried it
// (oldest first), then the researcher's addition. Ids nothing retrieved
// are absent.
func (s *Store) PaperSources(ctx context.Context, project string, ids []string) (map[string][]record.PaperSource, error) {
	return paperSources(ctx, s.db, project, ids)
}

type litQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func paperSources(ctx context.Context, q litQuerier, project string, ids []string) (map[string][]record.PaperSource, error) {
	out := map[string][]record.PaperSource{}
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), maxIDsPerQuery)]
		ids = ids[len(chunk):]
		args := []any{project}
		for _, id := range chunk {
			args = append(args, id)
		}
		marks := make([]string, len(chunk))
		for i := range chunk {
			marks[i] = "?" + strconv.Itoa(i+2)
		}
		in := strings.Join(marks, ", ")
		rows, err := q.QueryContext(ctx, `
SELECT p.paper_id, s.id, s.session_id, s.search_layer, s.query, '', '', s.ts, 0
FROM literature_papers p JOIN literature_searches s ON s.id = p.search_id
WHERE p.project_path = ?1 AND p.paper_id IN (`+in+`)
UNION ALL
SELECT paper_id, 0, '', '`+record.PaperAdded+`', '', COALESCE(title, ''), COALESCE(note, ''), ts, 1
FROM added_papers WHERE project_path = ?1 AND paper_id IN (`+in+`)
ORDER BY 9, 8, 2`, args...)
		if err != nil {
			return nil, classify("read paper sources", err)
		}
		for rows.Next() {
			var p record.PaperSource
			var ts int64
			var added int
			if err := rows.Scan(&p.PaperID, &p.SearchID, &p.SessionID, &p.Layer, &p.Query, &p.Title, &p.Note, &ts, &added); err != nil {
				rows.Close()
				return nil, classify("read paper sources", err)
			}
			p.At = time.UnixMilli(ts).UTC()
			out[p.PaperID] = append(out[p.PaperID], p)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, classify("read paper sources", err)
		}
	}
	return out, nil
}

// Retrieved reports which of ids the project retrieved (PaperSources, but
// only whether): what the hooks ask of a written file and a promotion.
func (s *Store) Retrieved(ctx context.Context, project string, ids []string) (map[string]bool, error) {
	src, err := paperSources(ctx, s.db, project, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(src))
	for id := range src {
		out[id] = true
	}
	return out, nil
}

// AddPaper records a paper the researcher added by hand; adding it again
// replaces its title and note. The result says whether it was new.
func (t *Tx) AddPaper(ctx context.Context, p record.AddedPaper) (bool, error) {
	var n int
	if err := t.tx.QueryRowContext(ctx, "SELECT count(*) FROM added_papers WHERE project_path = ? AND paper_id = ?",
		p.ProjectPath, p.PaperID).Scan(&n); err != nil {
		return false, classify("add paper", err)
	}
	_, err := t.tx.ExecContext(ctx, `INSERT INTO added_papers (project_path, paper_id, title, note, ts)
VALUES (?, ?, NULLIF(?, ''), NULLIF(?, ''), ?)
ON CONFLICT (project_path, paper_id) DO UPDATE SET title = excluded.title, note = excluded.note, ts = excluded.ts`,
		p.ProjectPath, p.PaperID, p.Title, p.Note, p.At.UnixMilli())
	return n == 0, classify("add paper", err)
}

// CitationCheck returns the cached online check of id, and whether there
// is one.
func (s *Store) CitationCheck(ctx context.Context, id string) (record.CitationCheck, bool, error) {
	c := record.CitationCheck{PaperID: id}
	var found int
	var ts int64
	err := s.db.QueryRowContext(ctx, "SELECT found, COALESCE(title, ''), source, ts FROM citation_checks WHERE paper_id = ?", id).
		Scan(&found, &c.Title, &c.Source, &ts)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, classify("read citation check", err)
	}
	c.Found, c.At = found == 1, time.UnixMilli(ts).UTC()
	return c, true, nil
}

// PutCitationCheck caches an online check's answer, replacing an older one.
func (t *Tx) PutCitationCheck(ctx context.Context, c record.CitationCheck) error {
	found := 0
	if c.Found {
		found = 1
	}
	_, err := t.tx.ExecContext(ctx, `INSERT INTO citation_checks (paper_id, found, title, source, ts) VALUES (?, ?, NULLIF(?, ''), ?, ?)
ON CONFLICT (paper_id) DO UPDATE SET found = excluded.found, title = excluded.title, source = excluded.source, ts = excluded.ts`,
		c.PaperID, found, c.Title, c.Source, c.At.UnixMilli())
	return classify("cache citation check", err)
}
